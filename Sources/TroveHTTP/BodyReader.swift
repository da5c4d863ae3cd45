import Foundation

/// Feeds a request's body parts to libcurl's read callback in order, a buffer at a time:
/// files are read as they are sent, so memory stays flat whatever their size.
final class BodyReader {
    private let parts: [HTTPBodyPart]
    /// Each part's length, files as they were when the transfer started.
    private let lengths: [Int64]
    /// The whole body's length, sent as `Content-Length`.
    package let length: Int64
    private var part = 0
    /// Bytes of the current part already given.
    private var offset: Int64 = 0
    private var descriptor: Int32 = -1
    /// Why the body could not be sent (a file that vanished or shrank), once known.
    private(set) var failure: String?

    /// A reader at the start of `parts`.
    ///
    /// - Throws: `BodyFileError` when a file cannot be read.
    package init(_ parts: [HTTPBodyPart]) throws(BodyFileError) {
        self.parts = parts
        var lengths: [Int64] = []
        for part in parts {
            switch part {
            case .bytes(let bytes):
                lengths.append(Int64(bytes.count))
            case .file(let path):
                var status = stat()
                guard stat(path, &status) == 0 else {
                    throw BodyFileError(message: "cannot read \(path): \(errorText(errno))")
                }
                guard (status.st_mode & S_IFMT) == S_IFREG else {
                    throw BodyFileError(message: "cannot read \(path): not a regular file")
                }
                lengths.append(Int64(status.st_size))
            }
        }
        self.lengths = lengths
        length = lengths.reduce(0, +)
    }

    deinit { closeFile() }

    /// Copies up to `capacity` bytes into `buffer`; 0 at the end of the body, nil when a
    /// file cannot be read (`failure` says why).
    package func read(into buffer: UnsafeMutableRawPointer, capacity: Int) -> Int? {
        while part < parts.count {
            let remaining = lengths[part] - offset
            if remaining == 0 {
                closeFile()
                part += 1
                offset = 0
                continue
            }
            let wanted = Int(min(Int64(capacity), remaining))
            switch parts[part] {
            case .bytes(let bytes):
                let start = Int(offset)
                bytes.withUnsafeBytes { source in
                    buffer.copyMemory(from: source.baseAddress! + start, byteCount: wanted)
                }
                offset += Int64(wanted)
                return wanted
            case .file(let path):
                if descriptor < 0 {
                    descriptor = open(path, O_RDONLY | O_CLOEXEC)
                    guard descriptor >= 0 else {
                        failure = "cannot read \(path): \(errorText(errno))"
                        return nil
                    }
                    if offset > 0, lseek(descriptor, off_t(offset), SEEK_SET) < 0 {
                        failure = "cannot read \(path): \(errorText(errno))"
                        return nil
                    }
                }
                var count: Int
                repeat {
                    count = Foundation.read(descriptor, buffer, wanted)
                } while count < 0
                    && errno == EINTR
                if count < 0 {
                    failure = "cannot read \(path): \(errorText(errno))"
                    return nil
                }
                if count == 0 {
                    failure = "\(path) got shorter while it was being sent"
                    return nil
                }
                offset += Int64(count)
                return count
            }
        }
        return 0
    }

    /// Goes back to the start of the body (libcurl asks when it resends on a fresh
    /// connection).
    func rewind() {
        closeFile()
        part = 0
        offset = 0
        failure = nil
    }

    private func closeFile() {
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
    }
}

/// A body file that cannot be read; not worth retrying.
struct BodyFileError: Error {
    package var message: String
}

func errorText(_ code: Int32) -> String {
    String(cString: strerror(code))
}
