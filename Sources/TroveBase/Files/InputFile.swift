import Foundation

/// The one way trove opens a file it reads (treasure and posts files, images and photos,
/// whatever the command): without waiting (a FIFO nobody writes to does not block the open), and only a
/// regular file. A FIFO, a device or a socket is refused at once: reading one could wait
/// for ever or never end, and it could not be read twice (a format is sniffed from a
/// file's first bytes before it is read). Standard input is read with `-` instead.
public enum InputFile {
    /// Why a file was not opened, in words that read well after "cannot read the file: ".
    public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        public enum Kind: Equatable, Sendable {
            case missing
            case unreadable
            /// A FIFO, a device, a folder, a socket.
            case notRegular
        }

        public let kind: Kind
        public let reason: String
        public var description: String { reason }
    }

    /// A descriptor on the regular file at `path`, read blocking from its start; the caller
    /// closes it.
    ///
    /// - Throws: `InputFile.Failure`.
    public static func open(_ path: String) throws(Failure) -> Int32 {
        let descriptor = Foundation.open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR {
                throw Failure(kind: .missing, reason: String(cString: strerror(code)))
            }
            throw Failure(kind: .unreadable, reason: String(cString: strerror(code)))
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw Failure(kind: .unreadable, reason: reason)
        }
        let type = status.st_mode & S_IFMT
        guard type == S_IFREG else {
            close(descriptor)
            throw Failure(kind: .notRegular, reason: "it is \(described(type)), not a regular file")
        }
        // Reads of a regular file never wait; the flag goes so that nothing else sees it.
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        return descriptor
    }

    /// A file type (`st_mode & S_IFMT`) as messages name it.
    public static func described(_ type: mode_t) -> String {
        switch type {
        case S_IFDIR: "a folder"
        case S_IFIFO: "a FIFO"
        case S_IFCHR, S_IFBLK: "a device"
        case S_IFSOCK: "a socket"
        default: "not a regular file"
        }
    }

    /// Up to `count` bytes from the start of the open regular file `descriptor` (`pread`:
    /// its position stays): the bytes a format is told by.
    public static func head(_ descriptor: Int32, count: Int = 512) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            let read = bytes.withUnsafeMutableBytes {
                pread(descriptor, $0.baseAddress! + got, count - got, off_t(got))
            }
            if read < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if read == 0 { break }
            got += read
        }
        return Array(bytes[..<got])
    }
}
