// One file past ~400 lines on purpose: `Storage` below is one class whose buffer and
// parser state are `private`, so the compiler sees every use of them in the parse loop.
// Its reading, UTF-16 and parsing parts all work on that state; in separate files it
// would have to become `internal`. The records and errors are in CSVRecord.swift.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// MARK: - Reader

/// A streaming RFC 4180 CSV reader that works on bytes.
///
/// The file is read in chunks (1 MiB by default) and never held whole. Quoted fields may
/// hold delimiters, doubled quotes and line breaks; lines end in LF, CRLF or a lone CR; a
/// UTF-8 byte order mark is skipped; blank lines are skipped (they hold no record); a
/// last line without a line break is read. Text after a closing quote is kept as written
/// (`"ab"c` reads `abc`), as most spreadsheets do. The reader does not compare field
/// counts between records: that is the caller's business.
///
/// Copies of a reader share the underlying file position.
public struct CSVReader {
    /// The field separator: `,`, `;` or tab.
    public let delimiter: UInt8
    /// The file as the user named it, for messages.
    public let displayPath: String
    /// The encoding the bytes are read in: the one asked for, or UTF-8 for a file that
    /// starts with a UTF-16 byte order mark (it is transcoded while read).
    public let encoding: TextEncoding
    private let storage: Storage

    /// Opens a file. The delimiter is `delimiter` if given, tab for a `.tsv` file, else
    /// whichever of `,`, `;` and tab occurs most often in the first line (outside quotes).
    /// - Throws: ``CSVError`` when the file cannot be opened or read.
    public init(
        path: String, displayPath: String? = nil, encoding: TextEncoding = .utf8,
        delimiter: UInt8? = nil
    ) throws(CSVError) {
        let shown = displayPath ?? path
        let descriptor: Int32
        do throws(InputFile.Failure) {
            descriptor = try InputFile.open(path)
        } catch {
            throw CSVError(.unreadable(error.reason), file: shown)
        }
        let isTSV = path.lowercased().hasSuffix(".tsv")
        try self.init(
            fileDescriptor: descriptor, closesDescriptor: true, displayPath: shown,
            encoding: encoding, delimiter: delimiter ?? (isTSV ? UInt8(ascii: "\t") : nil))
    }

    /// Reads text already in memory (a file read whole for another reason), sniffing the
    /// delimiter unless given.
    public init(
        bytes: [UInt8], displayPath: String, encoding: TextEncoding = .utf8,
        delimiter: UInt8? = nil
    ) {
        let storage = Storage(
            descriptor: -1, closes: false, displayPath: displayPath, encoding: encoding,
            chunkSize: 1 << 20, memory: bytes)
        // Reading memory cannot fail.
        try? storage.fillFirstLine(skippingByteOrderMark: encoding == .utf8)
        self.init(storage: storage, displayPath: displayPath, delimiter: delimiter)
    }

    /// Reads an open descriptor; `chunkSize` is small in tests so that fields cross
    /// chunk boundaries.
    package init(
        fileDescriptor: Int32, closesDescriptor: Bool, displayPath: String,
        encoding: TextEncoding, delimiter: UInt8?, chunkSize: Int = 1 << 20
    ) throws(CSVError) {
        let storage = Storage(
            descriptor: fileDescriptor, closes: closesDescriptor, displayPath: displayPath,
            encoding: encoding, chunkSize: max(chunkSize, 1))
        try storage.fillFirstLine(skippingByteOrderMark: encoding == .utf8)
        self.init(storage: storage, displayPath: displayPath, delimiter: delimiter)
    }

    /// Reads the text a gzip file holds, sniffing the delimiter unless given.
    /// - Throws: ``CSVError`` when the file cannot be read or its gzip data is damaged.
    package init(
        gzip: GzipInput, displayPath: String, encoding: TextEncoding, delimiter: UInt8?
    ) throws(CSVError) {
        let storage = Storage(
            descriptor: -1, closes: false, displayPath: displayPath, encoding: encoding,
            chunkSize: 1 << 20, gzip: gzip)
        try storage.fillFirstLine(skippingByteOrderMark: encoding == .utf8)
        self.init(storage: storage, displayPath: displayPath, delimiter: delimiter)
    }

    /// The reader over `storage`, whose first line is read: the delimiter given, or the one
    /// that line shows.
    private init(storage: Storage, displayPath: String, delimiter: UInt8?) {
        let chosen = delimiter ?? storage.sniffDelimiter()
        storage.delimiter = chosen
        self.storage = storage
        self.delimiter = chosen
        self.displayPath = displayPath
        self.encoding = storage.encoding
    }

    /// The next record, or `nil` at the end of the file.
    /// - Throws: ``CSVError`` for an unterminated quote, bytes that are not UTF-8 (when
    ///   reading UTF-8) or a read failure.
    public mutating func next() throws(CSVError) -> CSVRecord? {
        try storage.nextRecord()
    }

    package static func systemMessage() -> String {
        String(cString: strerror(errno))
    }
}

// MARK: - Storage

extension CSVReader {
    /// The buffer and parser state, shared by copies of a reader.
    package final class Storage {
        private let descriptor: Int32
        private let closes: Bool
        package let displayPath: String
        /// How fields are decoded: the caller's encoding, or UTF-8 once UTF-16 input is
        /// transcoded.
        private(set) var encoding: TextEncoding
        private let chunkSize: Int
        package var delimiter: UInt8 = UInt8(ascii: ",")

        /// Bytes `[start, end)` of `buffer` are read but not yet parsed.
        private var buffer: UnsafeMutablePointer<UInt8>
        private var capacity: Int
        private var start = 0
        private var end = 0
        private var atEndOfFile = false
        /// The physical line of `buffer[start]`.
        private var line = 1

        /// One field found by the scanner: a byte range of the buffer, and whether it
        /// needs its quotes removed.
        private struct Span {
            var start: Int
            var end: Int
            var quoted: Bool
        }
        private var spans: [Span] = []
        private var scratch: [UInt8] = []
        /// The text, when it is read from memory instead of `descriptor`, and how much of
        /// it has been handed to the parser.
        private let memory: [UInt8]?
        private var memoryRead = 0
        /// The file's text, when it comes out of gzip instead of `descriptor`.
        private let gzip: GzipInput?

        package init(
            descriptor: Int32, closes: Bool, displayPath: String, encoding: TextEncoding,
            chunkSize: Int, memory: [UInt8]? = nil, gzip: GzipInput? = nil
        ) {
            self.memory = memory
            self.gzip = gzip
            self.descriptor = descriptor
            self.closes = closes
            self.displayPath = displayPath
            self.encoding = encoding
            self.chunkSize = chunkSize
            self.capacity = chunkSize
            self.buffer = .allocate(capacity: chunkSize)
        }

        deinit {
            buffer.deallocate()
            if closes { _ = close(descriptor) }
        }

        // MARK: Reading

        /// Keeps `[start, end)`, moves it to the front, and reads at least one more
        /// chunk's worth of space (growing the buffer when a record is larger than it).
        /// Sets `atEndOfFile` when nothing more comes.
        private func refill() throws(CSVError) {
            if start > 0 {
                let kept = end - start
                if kept > 0 { buffer.update(from: buffer + start, count: kept) }
                start = 0
                end = kept
            }
            if capacity - end < chunkSize / 2 || end == capacity {
                let grown = max(capacity * 2, end + chunkSize)
                let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
                bigger.update(from: buffer, count: end)
                buffer.deallocate()
                buffer = bigger
                capacity = grown
            }
            let count = try readInput(into: buffer + end, room: capacity - end)
            if count > 0 {
                end += count
            } else {
                atEndOfFile = true
            }
        }

        // MARK: UTF-16

        /// Whether the file starts with a UTF-16 byte order mark (FF FE little-endian, as
        /// Excel's "Unicode Text" writes, or FE FF big-endian); nil before the first read.
        private var utf16: (checked: Bool, bigEndian: Bool?) = (false, nil)
        /// Bytes read from the file and not yet handed on: while looking for the mark, or
        /// UTF-16 not yet transcoded (an odd byte, half a surrogate pair).
        private var raw: [UInt8] = []
        /// Transcoded UTF-8 not yet copied into the buffer.
        private var transcoded: [UInt8] = []

        /// Reads at most `room` bytes of UTF-8 (or of the file as it is, in a single-byte
        /// encoding) into `target`; 0 at the end of the file. UTF-16 is transcoded to UTF-8
        /// on the way, so the parser only ever sees ASCII delimiters.
        private func readInput(into target: UnsafeMutablePointer<UInt8>, room: Int)
            throws(CSVError) -> Int
        {
            if !utf16.checked {
                utf16.checked = true
                var two: [UInt8] = [0, 0]
                while raw.count < 2 {
                    let count = try readFile(into: &two, count: 2 - raw.count)
                    if count == 0 { break }
                    raw += two[..<count]
                }
                if raw == [0xFF, 0xFE] || raw == [0xFE, 0xFF] {
                    utf16.bigEndian = raw[0] == 0xFE
                    raw.removeAll()
                    encoding = .utf8
                }
            }
            guard let bigEndian = utf16.bigEndian else {
                if !raw.isEmpty {
                    let count = min(room, raw.count)
                    target.update(from: raw, count: count)
                    raw.removeFirst(count)
                    return count
                }
                return try readFile(into: target, count: room)
            }
            var chunk = [UInt8](repeating: 0, count: max(chunkSize, 2))
            while transcoded.isEmpty {
                let count = try readFile(into: &chunk, count: chunk.count)
                if count == 0 {
                    // An odd byte or half a surrogate pair at the end.
                    if !raw.isEmpty { transcoded += [0xEF, 0xBF, 0xBD] }
                    raw.removeAll()
                    if transcoded.isEmpty { return 0 }
                    break
                }
                raw += chunk[..<count]
                transcodeUTF16(bigEndian: bigEndian)
            }
            let count = min(room, transcoded.count)
            target.update(from: transcoded, count: count)
            transcoded.removeFirst(count)
            return count
        }

        /// Turns the whole code units of `raw` into UTF-8 in `transcoded`, leaving an odd
        /// byte or a high surrogate waiting for its pair. Unpaired surrogates become U+FFFD.
        private func transcodeUTF16(bigEndian: Bool) {
            var index = 0
            func unit(at offset: Int) -> UInt32 {
                bigEndian
                    ? UInt32(raw[offset]) << 8 | UInt32(raw[offset + 1])
                    : UInt32(raw[offset]) | UInt32(raw[offset + 1]) << 8
            }
            while index + 2 <= raw.count {
                var scalar = unit(at: index)
                var used = 2
                if (0xD800...0xDBFF).contains(scalar) {
                    guard index + 4 <= raw.count else { break }
                    let low = unit(at: index + 2)
                    if (0xDC00...0xDFFF).contains(low) {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        used = 4
                    } else {
                        scalar = 0xFFFD
                    }
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    scalar = 0xFFFD
                }
                index += used
                for byte in String(Character(Unicode.Scalar(scalar) ?? "\u{FFFD}")).utf8 {
                    transcoded.append(byte)
                }
            }
            raw.removeFirst(index)
        }

        /// At most `count` bytes of the file (or of `memory`); 0 at the end.
        private func readFile(into target: UnsafeMutableRawPointer, count: Int)
            throws(CSVError) -> Int
        {
            if let memory {
                let got = min(count, memory.count - memoryRead)
                guard got > 0 else { return 0 }
                memory.withUnsafeBytes {
                    target.copyMemory(from: $0.baseAddress! + memoryRead, byteCount: got)
                }
                memoryRead += got
                return got
            }
            if let gzip {
                let got = gzip.read(into: target, count: count)
                guard got >= 0 else {
                    throw CSVError(
                        .unreadable(gzip.problem ?? "damaged gzip data"), file: displayPath)
                }
                return got
            }
            let got = FileIO.read(descriptor, into: target, count: count)
            guard got >= 0 else {
                throw CSVError(.unreadable(CSVReader.systemMessage()), file: displayPath)
            }
            return got
        }

        /// How much of the file the delimiter is guessed from, at most: a first line longer
        /// than this is judged by its beginning.
        static let sniffLimit = 1 << 16

        /// How often each candidate delimiter occurs outside quotes in the first record.
        private var candidateCounts: [UInt8: Int] = [0x2C: 0, 0x3B: 0, 0x09: 0]

        /// Reads until the buffer holds the whole first record — up to a line break outside
        /// quotes (a quoted header name may hold one), the end of the file or `sniffLimit`
        /// bytes — counting the candidate delimiters on the way. Quotes are read as the
        /// parser reads them: they open only at the start of a field, `""` inside is a quote.
        /// A UTF-8 byte order mark is skipped first, when asked.
        func fillFirstLine(skippingByteOrderMark: Bool) throws(CSVError) {
            while end - start < 3 && !atEndOfFile { try refill() }
            if skippingByteOrderMark, end - start >= 3, buffer[start] == 0xEF,
                buffer[start + 1] == 0xBB, buffer[start + 2] == 0xBF
            {
                start += 3
            }
            var offset = 0
            var inQuotes = false
            var quoteInQuotes = false
            var atFieldStart = true
            while true {
                while start + offset < end, offset < Self.sniffLimit {
                    let byte = buffer[start + offset]
                    offset += 1
                    if inQuotes {
                        if quoteInQuotes {
                            quoteInQuotes = false
                            if byte == 0x22 { continue }
                            inQuotes = false
                        } else {
                            if byte == 0x22 { quoteInQuotes = true }
                            continue
                        }
                    }
                    switch byte {
                    case 0x22 where atFieldStart:
                        inQuotes = true
                        atFieldStart = false
                    case 0x2C, 0x3B, 0x09:
                        candidateCounts[byte, default: 0] += 1
                        atFieldStart = true
                    case 0x0A, 0x0D:
                        return
                    default:
                        atFieldStart = false
                    }
                }
                if atEndOfFile || offset >= Self.sniffLimit { return }
                try refill()
            }
        }

        /// The most frequent of `,` `;` and tab in the first record outside quotes; comma
        /// when there is none (a single-column file).
        func sniffDelimiter() -> UInt8 {
            var best: UInt8 = 0x2C
            for candidate: UInt8 in [0x3B, 0x09]
            where candidateCounts[candidate, default: 0] > candidateCounts[best, default: 0] {
                best = candidate
            }
            return best
        }

        // MARK: Parsing

        private enum Scan {
            case record(next: Int, lineBreaks: Int)
            case needMore
        }

        /// The longest first record (the header) read: 1 MB.
        static let headerLimit = 1 << 20
        /// The longest other record read: `RecordLimit`, 10 MB.
        static let recordLimit = RecordLimit.bytes
        /// Whether a record was returned (the header is behind).
        private var hasRecord = false

        func nextRecord() throws(CSVError) -> CSVRecord? {
            while true {
                // Blank lines hold no record.
                while start < end, buffer[start] == 0x0A || buffer[start] == 0x0D {
                    if buffer[start] == 0x0D {
                        if start + 1 == end && !atEndOfFile { break }
                        if start + 1 < end && buffer[start + 1] == 0x0A { start += 1 }
                    }
                    start += 1
                    line += 1
                }
                if start == end || (buffer[start] == 0x0D && start + 1 == end) {
                    if atEndOfFile {
                        if start < end {
                            start = end
                            line += 1
                        }
                        return nil
                    }
                    try refill()
                    continue
                }
                switch try scanRecord() {
                case .needMore:
                    // Refused before it is read whole: each refill scans the record again.
                    if !hasRecord && end - start > Self.headerLimit {
                        throw CSVError(
                            .headerTooLong(limit: Self.headerLimit), file: displayPath, line: line)
                    }
                    if end - start > Self.recordLimit {
                        throw CSVError(
                            .recordTooLong(limit: Self.recordLimit), file: displayPath, line: line)
                    }
                    try refill()
                case .record(let next, let lineBreaks):
                    // Whole in a buffer that a longer record before it grew, but as long.
                    if hasRecord && next - start > Self.recordLimit {
                        throw CSVError(
                            .recordTooLong(limit: Self.recordLimit), file: displayPath, line: line)
                    }
                    hasRecord = true
                    let record = try makeRecord()
                    start = next
                    line += lineBreaks
                    return record
                }
            }
        }

        /// Finds the fields of the record at `start`, filling `spans`.
        private func scanRecord() throws(CSVError) -> Scan {
            // Work on locals: every access to a class property costs an exclusivity
            // check, which would dominate this loop.
            var spans: [Span] = []
            swap(&spans, &self.spans)
            spans.removeAll(keepingCapacity: true)
            defer { swap(&spans, &self.spans) }
            let line = self.line
            let displayPath = self.displayPath
            let bytes = buffer
            let delimiter = self.delimiter
            let delimiterPattern = UInt64(delimiter) &* Self.ones
            let limit = end
            let final = atEndOfFile
            var index = start
            var lineBreaks = 0
            while true {
                let fieldStart = index
                var quoted = false
                if index < limit && bytes[index] == 0x22 {
                    quoted = true
                    let quoteLine = line + lineBreaks
                    index += 1
                    quote: while true {
                        guard index < limit else {
                            if final {
                                throw CSVError(
                                    .unterminatedQuote, file: displayPath, line: quoteLine)
                            }
                            return .needMore
                        }
                        switch bytes[index] {
                        case 0x22:
                            if index + 1 == limit && !final { return .needMore }
                            if index + 1 < limit && bytes[index + 1] == 0x22 {
                                index += 2
                            } else {
                                index += 1
                                break quote
                            }
                        case 0x0A:
                            lineBreaks += 1
                            index += 1
                        case 0x0D:
                            if index + 1 == limit && !final { return .needMore }
                            if index + 1 == limit || bytes[index + 1] != 0x0A { lineBreaks += 1 }
                            index += 1
                        default:
                            index += 1
                            // Skip ahead over runs of plain text inside the quotes.
                            while index + 8 <= limit {
                                let word = UnsafeRawPointer(bytes + index).loadUnaligned(
                                    as: UInt64.self)
                                if Self.containsByte(word, Self.quote)
                                    | Self.containsByte(word, Self.lf)
                                    | Self.containsByte(word, Self.cr) != 0
                                {
                                    break
                                }
                                index += 8
                            }
                        }
                    }
                }
                // The unquoted field, or whatever follows a closing quote: skip eight
                // bytes at a time while none of them ends the field.
                while index + 8 <= limit {
                    let word = UnsafeRawPointer(bytes + index).loadUnaligned(as: UInt64.self)
                    if Self.containsByte(word, delimiterPattern) | Self.containsByte(word, Self.lf)
                        | Self.containsByte(word, Self.cr) != 0
                    {
                        break
                    }
                    index += 8
                }
                while index < limit {
                    let byte = bytes[index]
                    if byte == delimiter || byte == 0x0A || byte == 0x0D { break }
                    index += 1
                }
                spans.append(Span(start: fieldStart, end: index, quoted: quoted))
                guard index < limit else {
                    return final ? .record(next: index, lineBreaks: lineBreaks) : .needMore
                }
                let byte = bytes[index]
                if byte == delimiter {
                    index += 1
                    if index == limit && !final { return .needMore }
                    continue
                }
                if byte == 0x0A {
                    return .record(next: index + 1, lineBreaks: lineBreaks + 1)
                }
                // CR: alone, or the first half of CRLF.
                if index + 1 == limit && !final { return .needMore }
                let next = index + 1 < limit && bytes[index + 1] == 0x0A ? index + 2 : index + 1
                return .record(next: next, lineBreaks: lineBreaks + 1)
            }
        }

        private static let ones: UInt64 = 0x0101_0101_0101_0101
        private static let lf: UInt64 = 0x0A * ones
        private static let cr: UInt64 = 0x0D * ones
        private static let quote: UInt64 = 0x22 * ones

        /// Nonzero when one of the eight bytes of `word` equals the byte repeated in
        /// `pattern` (the classic "has zero byte" test on `word ^ pattern`).
        @inline(__always)
        private static func containsByte(_ word: UInt64, _ pattern: UInt64) -> UInt64 {
            let difference = word ^ pattern
            return (difference &- ones) & ~difference & 0x8080_8080_8080_8080
        }

        /// Turns `spans` into text.
        private func makeRecord() throws(CSVError) -> CSVRecord {
            let spans = self.spans
            let buffer = self.buffer
            let encoding = self.encoding
            var scratch: [UInt8] = []
            swap(&scratch, &self.scratch)
            defer { swap(&scratch, &self.scratch) }
            var fields: [String] = []
            fields.reserveCapacity(spans.count)
            for span in spans {
                var text: String?
                if span.quoted {
                    text = Self.unquoted(span, in: buffer, encoding: encoding, scratch: &scratch)
                } else {
                    text = encoding.decode(
                        UnsafeBufferPointer(
                            start: buffer + span.start, count: span.end - span.start))
                }
                guard let text else {
                    throw CSVError(
                        .invalidEncoding, file: displayPath, line: lineOfBadByte(in: span))
                }
                fields.append(text)
            }
            return CSVRecord(fields: fields, line: line)
        }

        /// The text of a field that starts with a quote: the quoted part with doubled
        /// quotes made single, then anything after the closing quote as written.
        private static func unquoted(
            _ span: Span, in buffer: UnsafeMutablePointer<UInt8>, encoding: TextEncoding,
            scratch: inout [UInt8]
        ) -> String? {
            // The common case, `"text"` without doubled quotes, needs no copy.
            let contentStart = span.start + 1
            if span.end - span.start >= 2, buffer[span.end - 1] == 0x22 {
                let inner = UnsafeBufferPointer(
                    start: buffer + contentStart, count: span.end - 1 - contentStart)
                if !inner.contains(0x22) { return encoding.decode(inner) }
            }
            scratch.removeAll(keepingCapacity: true)
            var index = contentStart
            while index < span.end {
                // Copy the run up to the next quote in one go.
                var quoteIndex = index
                while quoteIndex < span.end && buffer[quoteIndex] != 0x22 { quoteIndex += 1 }
                scratch.append(
                    contentsOf: UnsafeBufferPointer(
                        start: buffer + index, count: quoteIndex - index))
                index = quoteIndex
                guard index < span.end else { break }
                if index + 1 < span.end && buffer[index + 1] == 0x22 {
                    scratch.append(0x22)
                    index += 2
                    continue
                }
                // The closing quote: what follows it is kept as written.
                scratch.append(
                    contentsOf: UnsafeBufferPointer(
                        start: buffer + index + 1, count: span.end - index - 1))
                break
            }
            return scratch.withUnsafeBufferPointer { encoding.decode($0) }
        }

        /// The physical line of the first byte in a field that is not UTF-8.
        private func lineOfBadByte(in span: Span) -> Int {
            let field = UnsafeBufferPointer(
                start: buffer + span.start, count: span.end - span.start)
            let bad = span.start + (UTF8Validation.firstInvalidOffset(in: field) ?? 0)
            var lines = line
            var index = start
            while index < bad {
                if buffer[index] == 0x0A {
                    lines += 1
                } else if buffer[index] == 0x0D, index + 1 >= end || buffer[index + 1] != 0x0A {
                    lines += 1
                }
                index += 1
            }
            return lines
        }
    }
}
