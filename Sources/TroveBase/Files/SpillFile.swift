import Foundation

/// Bytes set aside in an anonymous temporary file and read back in the order written:
/// what a stream works ahead of the merging thread, the Storage plan's blocks until they
/// are recorded. The file disappears when closed, or when the process ends.
package final class SpillFile {
    private let file: UnsafeMutablePointer<FILE>?
    private var writeOffset: off_t = 0
    private var readOffset: off_t = 0

    package init() {
        file = tmpfile()
    }

    deinit {
        if let file { fclose(file) }
    }

    /// Whether bytes written have not been read back yet.
    package var hasUnread: Bool { readOffset < writeOffset }

    /// How many bytes written have not been read back yet.
    package var unreadCount: Int { Int(writeOffset - readOffset) }

    /// Appends `parts` one after the other; false (and nothing appended) when they
    /// cannot all be written (`errno` says why).
    package func append(_ parts: [UnsafeRawBufferPointer]) -> Bool {
        guard let file else {
            errno = ENOSPC
            return false
        }
        var offset = writeOffset
        for part in parts {
            guard FileIO.writeAll(fileno(file), part, at: offset) else { return false }
            offset += off_t(part.count)
        }
        writeOffset = offset
        return true
    }

    /// Fills `target` with the oldest bytes not yet read; false when that many were never
    /// written or cannot be read.
    package func read(into target: UnsafeMutableRawBufferPointer) -> Bool {
        guard let file, readOffset + off_t(target.count) <= writeOffset,
            FileIO.readAll(fileno(file), into: target, at: readOffset)
        else { return false }
        readOffset += off_t(target.count)
        return true
    }
}
