import Foundation

/// `read(2)` and `write(2)` as trove uses them: retried when a signal interrupts them
/// (`EINTR`), short transfers continued. Failures leave `errno` set for the message.
public enum FileIO {
    /// At most `count` bytes into `target`; 0 at the end, -1 on failure.
    public static func read(_ descriptor: Int32, into target: UnsafeMutableRawPointer, count: Int)
        -> Int
    {
        while true {
            let got = Foundation.read(descriptor, target, count)
            if got >= 0 || errno != EINTR { return got }
        }
    }

    /// Everything left to read, straight into one array (no second copy of a 12 MP
    /// photo when the size is known up front); nil on failure.
    public static func readAll(_ descriptor: Int32) -> [UInt8]? {
        var status = stat()
        let expected = fstat(descriptor, &status) == 0 ? max(Int(status.st_size), 0) : 0
        // One byte more than the size, so that the read that finds the end needs no room.
        var bytes = [UInt8](repeating: 0, count: max(expected + 1, 1 << 16))
        var count = 0
        while true {
            if count == bytes.count { bytes += [UInt8](repeating: 0, count: bytes.count) }
            let got = bytes.withUnsafeMutableBytes {
                read(descriptor, into: $0.baseAddress! + count, count: $0.count - count)
            }
            if got < 0 { return nil }
            if got == 0 { break }
            count += got
        }
        bytes.removeSubrange(count...)
        return bytes
    }

    /// Writes all of `bytes`; false on failure (a closed pipe, a full disk). A non-blocking
    /// descriptor that is full is waited on.
    public static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = Foundation.write(
                descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                if waitUntilWritable(descriptor) { continue }
                return false
            }
            offset += written
        }
        return true
    }

    /// After a write failed: when it failed because `descriptor` is non-blocking and full
    /// (a pipe whose reader is slow, say), waits until it takes more and returns true, so
    /// the output is delayed rather than dropped; false for any other failure.
    public static func waitUntilWritable(_ descriptor: Int32) -> Bool {
        guard errno == EAGAIN || errno == EWOULDBLOCK else { return false }
        var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        while poll(&ready, 1, -1) < 0 {
            if errno != EINTR { return false }
        }
        return true
    }

    /// Writes all of `bytes` at `offset` (`pwrite(2)`: the file position stays); false on
    /// failure.
    public static func writeAll(
        _ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, at offset: off_t
    )
        -> Bool
    {
        var done = 0
        while done < bytes.count {
            let written = pwrite(
                descriptor, bytes.baseAddress! + done, bytes.count - done, offset + off_t(done))
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            done += written
        }
        return true
    }

    /// Fills all of `target` from `offset` (`pread(2)`: the file position stays); false on
    /// failure or when the file ends first.
    public static func readAll(
        _ descriptor: Int32, into target: UnsafeMutableRawBufferPointer, at offset: off_t
    ) -> Bool {
        var done = 0
        while done < target.count {
            let got = pread(
                descriptor, target.baseAddress! + done, target.count - done, offset + off_t(done))
            if got < 0 {
                if errno == EINTR { continue }
                return false
            }
            if got == 0 { return false }
            done += got
        }
        return true
    }
}
