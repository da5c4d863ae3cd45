#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a JSON text a value at a time from a file, a gzip stream or memory, holding only
/// the value being read: the GeoJSON reader takes a FeatureCollection's features one by
/// one this way, and hands each one's bytes to `JSONParser`.
///
/// It only finds where a value ends (brackets, strings and their escapes, scalars up to a
/// delimiter); `JSONParser` checks the grammar of the bytes it returns. Lines and columns
/// are counted as bytes are consumed, so each value knows where it starts.
package final class JSONStream {
    /// Reads up to `count` bytes into the pointer: the count, 0 at the end, -1 on failure.
    package typealias Fill = (UnsafeMutableRawPointer, Int) -> Int

    private var buffer: [UInt8] = []
    private var scratch: [UInt8] = []
    /// The next byte not yet consumed.
    private var position = 0
    private var atEnd = false
    private let fill: Fill?
    /// The line and column of `buffer[position]`.
    package private(set) var line = 1
    package private(set) var column = 1
    /// Set when reading failed (the caller names it); the stream then ends.
    package private(set) var failed = false
    /// The most bytes one value or line may take (`RecordLimit`): a longer one is cut
    /// there and `overLimit` set, so that no record of a file costs more memory than this.
    package var limit = Int.max
    /// Set when a value or line was longer than `limit`; the caller says so and stops.
    package private(set) var overLimit = false
    private static let chunk = 1 << 16

    package init(fill: @escaping Fill) {
        self.fill = fill
    }

    package init(bytes: [UInt8]) {
        buffer = bytes
        fill = nil
        atEnd = true
    }

    // MARK: Buffer

    /// Whether `count` bytes from `position` on are in the buffer (false at the end).
    private func ensure(_ count: Int) -> Bool {
        while buffer.count - position < count && !atEnd { readMore() }
        return buffer.count - position >= count
    }

    private func readMore() {
        guard let fill else {
            atEnd = true
            return
        }
        // Consumed bytes go once they are half the buffer: offsets from `position` stay.
        if position > 0 && position >= buffer.count / 2 {
            buffer.removeFirst(position)
            position = 0
        }
        // One chunk of scratch for the stream's life: a read that returns a few bytes (a
        // pipe, a slow source) costs those bytes, not a chunk's allocation.
        if scratch.isEmpty { scratch = [UInt8](repeating: 0, count: Self.chunk) }
        let got = scratch.withUnsafeMutableBytes { fill($0.baseAddress!, Self.chunk) }
        if got > 0 { buffer.append(contentsOf: scratch[..<got]) }
        if got < 0 { failed = true }
        if got <= 0 { atEnd = true }
    }

    /// The byte `offset` bytes ahead, or nil at the end.
    package func peek(_ offset: Int = 0) -> UInt8? {
        ensure(offset + 1) ? buffer[position + offset] : nil
    }

    /// Consumes `count` bytes, counting lines.
    package func advance(_ count: Int) {
        buffer.withUnsafeBufferPointer { bytes in
            var lastBreak = -1
            for index in position..<(position + count) where bytes[index] == 0x0A {
                line += 1
                lastBreak = index
            }
            column = lastBreak >= 0 ? position + count - lastBreak : column + count
        }
        position += count
    }

    /// The length of the run of bytes from `offset` on that `inRun` accepts, reading more
    /// as needed, but no further than `limit` bytes from `position`: scans the buffer
    /// directly, the hot loop of reading a big file.
    private func run(from offset: Int, limit: Int = .max, while inRun: (UInt8) -> Bool) -> Int {
        var end = position + offset
        while true {
            let stop = buffer.withUnsafeBufferPointer { bytes -> Int in
                var index = end
                let last = limit - (bytes.count - position) > 0 ? bytes.count : position + limit
                while index < last, inRun(bytes[index]) { index += 1 }
                return index
            }
            end = stop
            if end < buffer.count || atEnd || end - position >= limit { return end - position }
            let consumed = position
            readMore()
            end -= consumed - position
        }
    }

    /// Consumes white space (and nothing else), a buffer at a time however much there is;
    /// the next byte, or nil at the end.
    @discardableResult
    package func skipWhitespace() -> UInt8? {
        while true {
            let end = buffer.withUnsafeBufferPointer { bytes -> Int in
                var index = position
                while index < bytes.count {
                    let byte = bytes[index]
                    guard byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D else {
                        break
                    }
                    index += 1
                }
                return index
            }
            advance(end - position)
            if position < buffer.count { return buffer[position] }
            if atEnd { return nil }
            readMore()
        }
    }

    /// The bytes from `offset` up to the next line feed or the end (not consumed), and the
    /// offset after it; nil when that is more than `limit` bytes.
    package func peekLine(from offset: Int, limit: Int) -> (bytes: [UInt8], next: Int)? {
        var end = offset
        while let byte = peek(end), byte != 0x0A {
            end += 1
            if end - offset > limit { return nil }
        }
        let bytes = Array(buffer[(position + offset)..<(position + end)])
        return (bytes, peek(end) == nil ? end : end + 1)
    }

    /// Consumes the bytes up to (and the byte) `separator`, or to the end. A line longer
    /// than `limit` comes back cut there, with `overLimit` set.
    package func take(through separator: UInt8) -> [UInt8] {
        let end = run(from: 0, limit: limit == .max ? .max : limit + 1) { $0 != separator }
        if end > limit {
            overLimit = true
            return Array(buffer[position..<(position + limit)])
        }
        let bytes = Array(buffer[position..<(position + end)])
        advance(peek(end) == nil ? end : end + 1)
        return bytes
    }

    // MARK: Values

    /// Consumes one value from here (white space before it skipped): its bytes and the
    /// line and column it starts at. A value cut off by the end of the text comes back as
    /// far as it goes, for the parser to report.
    package func takeValue() -> (bytes: [UInt8], line: Int, column: Int) {
        skipWhitespace()
        let startLine = line
        let startColumn = column
        var length = 0
        guard let first = peek() else { return ([], startLine, startColumn) }
        switch first {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            var inString = false
            var escaped = false
            var done = false
            // Plain bytes inside strings and between tokens are skipped in bulk.
            let bound = limit == .max ? Int.max : limit + 1
            while !done {
                length = run(from: length, limit: bound) { byte in
                    if inString {
                        if escaped {
                            escaped = false
                        } else if byte == UInt8(ascii: "\\") {
                            escaped = true
                        } else if byte == UInt8(ascii: "\"") {
                            inString = false
                        }
                        return true
                    }
                    switch byte {
                    case UInt8(ascii: "\""): inString = true
                    case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                        if depth == 0 {
                            done = true
                            return false
                        }
                    default: break
                    }
                    return true
                }
                if done {
                    length += 1  // the closing bracket
                } else {
                    break  // the end of the text, or the limit
                }
            }
        case UInt8(ascii: "\""):
            length = 1
            var escaped = false
            while length <= limit, let byte = peek(length) {
                length += 1
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    break
                }
            }
        default:
            while let byte = peek(length) {
                if [0x20, 0x09, 0x0A, 0x0D, 0x2C, 0x5D, 0x7D, 0x1E].contains(byte) { break }
                length += 1
                // A scalar is short; anything longer is not JSON, and the parser says so.
                if length > 4096 { break }
            }
        }
        if length > limit {
            overLimit = true
            return (Array(buffer[position..<(position + limit)]), startLine, startColumn)
        }
        let bytes = Array(buffer[position..<(position + length)])
        advance(length)
        return (bytes, startLine, startColumn)
    }
}

/// A descriptor read through a `JSONStream` and closed with it.
package final class StreamedFile: @unchecked Sendable {
    package let descriptor: Int32
    private let closes: Bool

    package init(descriptor: Int32, closes: Bool) {
        self.descriptor = descriptor
        self.closes = closes
    }

    deinit {
        if closes { _ = close(descriptor) }
    }

    package func read(into target: UnsafeMutableRawPointer, count: Int) -> Int {
        FileIO.read(descriptor, into: target, count: count)
    }
}
