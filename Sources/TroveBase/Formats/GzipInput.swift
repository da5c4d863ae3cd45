import CZlib

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a gzip file (`carshare.csv.gz`) as the bytes it holds, a buffer at a time through
/// zlib's inflate: memory stays at the two buffers whatever the file's size. Files of
/// several gzip members (`cat a.gz b.gz`) read as their concatenation.
package final class GzipInput {
    private let descriptor: Int32
    private let closes: Bool
    private var stream = z_stream()
    private var input: UnsafeMutablePointer<UInt8>
    private static let inputSize = 1 << 16
    private var finished = false
    private var atMemberEnd = false
    /// Why reading stopped early: zlib's message, or the system's.
    package private(set) var problem: String?

    /// Wraps an open descriptor; closes it at the end when `closes`.
    package init?(descriptor: Int32, closes: Bool) {
        self.descriptor = descriptor
        self.closes = closes
        input = .allocate(capacity: Self.inputSize)
        guard trove_inflate_init_gzip(&stream) == Z_OK else {
            input.deallocate()
            if closes { _ = close(descriptor) }
            return nil
        }
    }

    deinit {
        inflateEnd(&stream)
        input.deallocate()
        if closes { _ = close(descriptor) }
    }

    /// Whether `bytes` start as gzip does (`1F 8B`).
    package static func isGzip(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.starts(with: [0x1F, 0x8B])
    }

    /// Up to `count` decompressed bytes into `target`: 0 at the end, -1 when the data is
    /// damaged or cannot be read (see `problem`).
    package func read(into target: UnsafeMutableRawPointer, count: Int) -> Int {
        guard problem == nil else { return -1 }
        guard !finished, count > 0 else { return 0 }
        stream.next_out = target.assumingMemoryBound(to: UInt8.self)
        stream.avail_out = UInt32(clamping: count)
        while stream.avail_out > 0 {
            if stream.avail_in == 0 {
                let got = FileIO.read(descriptor, into: input, count: Self.inputSize)
                if got < 0 {
                    problem = "cannot read the file: \(String(cString: strerror(errno)))"
                    return -1
                }
                if got == 0 {
                    if !atMemberEnd {
                        problem = "the gzip data ends early (the file is truncated)"
                        return -1
                    }
                    finished = true
                    break
                }
                stream.next_in = input
                stream.avail_in = UInt32(got)
            }
            if atMemberEnd {
                // Another member follows the one that ended.
                guard inflateReset(&stream) == Z_OK else {
                    problem = "the gzip data is damaged"
                    return -1
                }
                atMemberEnd = false
            }
            let status = inflate(&stream, Z_NO_FLUSH)
            switch status {
            case Z_OK, Z_BUF_ERROR:
                continue
            case Z_STREAM_END:
                atMemberEnd = true
            default:
                let message = stream.msg.map { String(cString: $0) } ?? "error \(status)"
                problem = "the gzip data is damaged: \(message)"
                return -1
            }
        }
        return count - Int(stream.avail_out)
    }

    /// The rest of the decompressed bytes, or nil when the data is damaged.
    package func readAll() -> [UInt8]? {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let got = chunk.withUnsafeMutableBytes { read(into: $0.baseAddress!, count: $0.count) }
            if got < 0 { return nil }
            if got == 0 { return bytes }
            bytes += chunk[..<got]
        }
    }
}
