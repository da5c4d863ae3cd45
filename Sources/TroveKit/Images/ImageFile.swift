import Foundation
import TroveBase
import TroveImaging

/// Reads an image or photo file the one bounded way `validate`, `images`, `import posts`
/// and review share, so that a hostile file costs a few reads, not the machine.
///
/// The file is opened non-blocking (a FIFO does not wait for a writer) and must be a
/// regular file (never `/dev/zero`, a FIFO or a socket). Its first bytes must be a JPEG or
/// PNG signature before anything else is read. Its size, known before reading, must fit
/// what an image of its declared dimensions can hold (`maximumBytes`): a sparse 20 GB file
/// behind a valid header is refused from its size alone. Only then is it read whole.
public enum ImageFile {
    /// Why a file was not read.
    public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        public enum Kind: Equatable, Sendable {
            case missing
            case unreadable
            /// A FIFO, a device, a folder, a socket.
            case notRegular
            case notAnImage
            /// A file of 0 bytes: said as it is, by `validate` and `images` alike.
            case empty
            case tooLarge
        }

        public let kind: Kind
        /// The reason in words that read well after "cannot be read: ".
        public let reason: String
        /// The format a `notAnImage` file has, when it is a known one.
        public var signature: FileSignature? = nil
        public var description: String { reason }
    }

    /// Bytes per pixel the largest image trove reads could take, compressed: 16-bit RGBA
    /// PNG stored uncompressed is 8, and no JPEG comes near it.
    static let bytesPerPixel = 8
    /// Room for what a file holds besides pixels: EXIF, ICC profiles, XMP, text chunks.
    static let metadataRoom = 16 << 20
    /// How much of the file is read to learn its dimensions before the size check.
    static let headerRead = 1 << 20

    /// The most bytes an image of `pixels` pixels may take.
    static func maximumBytes(pixels: Int) -> Int {
        pixels.multipliedReportingOverflow(by: bytesPerPixel).partialValue + metadataRoom
    }

    /// The whole file at `path`, once it is known to be a JPEG or PNG of a size its
    /// dimensions (or `maxPixels`) allow.
    ///
    /// - Throws: `ImageFile.Failure`.
    public static func read(_ path: String, maxPixels: Int = Thumbnailer.defaultMaxPixels)
        throws(Failure) -> [UInt8]
    {
        let descriptor = try openFile(path)
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw Failure(kind: .unreadable, reason: String(cString: strerror(errno)))
        }
        let size = Int(status.st_size)
        // The signature first: 16 bytes decide whether anything more is read.
        var head = try readUpTo(min(size, 16), from: descriptor)
        guard !head.isEmpty else {
            throw Failure(kind: .empty, reason: "empty image file (0 bytes)")
        }
        guard ImageFormat(sniffing: head) != nil else {
            // Named by its format where it has a known one (TIFF, GIF, HEIC…), with what to do.
            head += try readUpTo(min(size, 512) - head.count, from: descriptor)
            if let other = FileSignature(sniffing: head) {
                throw Failure(
                    kind: .notAnImage,
                    reason: "not a JPEG or PNG image: it is \(other.described); \(other.advice)",
                    signature: other)
            }
            let start = head.prefix(4).map { String(format: "%02X", $0) }.joined(separator: " ")
            throw Failure(
                kind: .notAnImage, reason: "not a JPEG or PNG image: starts with bytes \(start)")
        }
        head += try readUpTo(min(size, headerRead) - head.count, from: descriptor)
        let got = head.count
        // The header's dimensions, when the first MB holds them, bound the size closer.
        var pixels = maxPixels
        if let header = try? ImageHeader.read(from: head), header.pixelCount <= maxPixels {
            pixels = max(header.pixelCount, 1)
        }
        let limit = maximumBytes(pixels: pixels)
        if size > limit {
            throw Failure(
                kind: .tooLarge,
                reason:
                    "the file is \(size) bytes, more than an image of \(pixels) pixels can hold"
                    + " (\(limit) bytes)")
        }
        if got == size { return head }
        return try readRest(of: descriptor, after: head, size: size)
    }

    /// Opens `path` as every input is (`InputFile`): a regular file, opened without
    /// waiting; its failures said of an image.
    private static func openFile(_ path: String) throws(Failure) -> Int32 {
        do throws(InputFile.Failure) {
            return try InputFile.open(path)
        } catch {
            switch error.kind {
            case .missing: throw Failure(kind: .missing, reason: "no such file")
            case .unreadable: throw Failure(kind: .unreadable, reason: error.reason)
            case .notRegular:
                throw Failure(
                    kind: .notRegular,
                    reason: error.reason.replacingOccurrences(
                        of: "not a regular file", with: "not an image file"))
            }
        }
    }

    /// The whole file of `size` bytes whose first bytes, `head`, were read already.
    private static func readRest(of descriptor: Int32, after head: [UInt8], size: Int)
        throws(Failure) -> [UInt8]
    {
        let got = head.count
        // Read straight into one buffer of the stated size (and a byte to see growth): no
        // zero-filled copy of a many-megabyte file is made first.
        var readError: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: size + 1) { buffer, initialized in
            _ = buffer.initialize(from: head)
            var count = got
            // The file may grow while read: never past the limit.
            while count < buffer.count {
                let read = FileIO.read(
                    descriptor, into: buffer.baseAddress! + count, count: buffer.count - count)
                if read < 0 {
                    readError = errno
                    break
                }
                if read == 0 { break }
                count += read
            }
            initialized = count
        }
        if readError != 0 {
            throw Failure(kind: .unreadable, reason: String(cString: strerror(readError)))
        }
        if bytes.count > size {
            throw Failure(kind: .unreadable, reason: "the file grew while it was read")
        }
        return bytes
    }

    /// Up to `count` bytes from the descriptor's position (fewer at the end).
    private static func readUpTo(_ count: Int, from descriptor: Int32) throws(Failure) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: max(count, 0))
        var done = 0
        while done < bytes.count {
            let got = bytes.withUnsafeMutableBytes {
                FileIO.read(descriptor, into: $0.baseAddress! + done, count: $0.count - done)
            }
            if got < 0 {
                throw Failure(kind: .unreadable, reason: String(cString: strerror(errno)))
            }
            if got == 0 { break }
            done += got
        }
        bytes.removeSubrange(done...)
        return bytes
    }
}
