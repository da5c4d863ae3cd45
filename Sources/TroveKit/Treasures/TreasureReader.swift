import TroveBase
import TroveImaging
import TroveStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// MARK: - Results

/// The input formats for treasures.
public enum TreasureFormat: String, Sendable, CaseIterable {
    case csv
    case geojson

    /// The format a file name implies: `.csv`, `.tsv` and `.txt` are CSV; `.geojson`,
    /// `.json`, `.ndjson`, `.geojsonl` and `.jsonl` are GeoJSON.
    public init?(path: String) {
        let name = path.lowercased()
        if [".csv", ".tsv", ".txt"].contains(where: { name.hasSuffix($0) }) {
            self = .csv
        } else if [".geojson", ".json", ".ndjson", ".geojsonl", ".jsonl"].contains(where: {
            name.hasSuffix($0)
        }) {
            self = .geojson
        } else {
            return nil
        }
    }
}

/// One record of a treasure file: a treasure ready to import, or the reason it cannot be.
public enum TreasureRow: Equatable, Sendable {
    case treasure(TreasureInput)
    /// A record that cannot be imported; the caller stops, or skips it with
    /// `--skip-invalid`.
    case invalid(Diagnostic)
}

/// A treasure file that cannot be read on: unreadable, unterminated quote, text that
/// is not UTF-8, a missing required column, or broken JSON. Nothing from such a file
/// should be imported.
public struct TreasureFileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The stable diagnostic code, or `nil` when the file itself could not be read.
    public var code: String?
    /// The problem in words, without the location.
    public var message: String
    /// The file, and the line or feature when known.
    public var location: Diagnostic.Location
    /// What to do about it.
    public var hint: String?

    /// A file error with its code (see ``DiagnosticCode``), words, place and hint.
    public init(
        code: String?, message: String, location: Diagnostic.Location, hint: String? = nil
    ) {
        self.code = code
        self.message = message
        self.location = location
        self.hint = hint
    }

    init(_ error: CSVError) {
        self.init(
            code: error.code, message: error.message,
            location: .init(file: error.file, line: error.line), hint: error.hint)
    }

    /// The problem as a diagnostic, for callers that list everything alike; a file that
    /// could not be read at all has the code `DiagnosticCode.unreadableFile`.
    public var diagnostic: Diagnostic {
        Diagnostic(
            .error, code ?? DiagnosticCode.unreadableFile, message, at: location, hint: hint)
    }

    /// `treasures.csv:14: the quoted field that starts on this line never ends [T109] (hint)`
    public var description: String {
        var text = "\(location.text): \(message)"
        if let code { text += " [\(code)]" }
        if let hint { text += " (\(hint))" }
        return text
    }
}

// MARK: - Reader

/// Reads treasures from a CSV or GeoJSON file, one record at a time.
///
/// ```swift
/// var reader = try TreasureReader(path: "treasures.csv")
/// while let row = try reader.next() {
///     switch row {
///     case .treasure(let input): ...
///     case .invalid(let diagnostic): ...   // stop, or skip with --skip-invalid
///     }
/// }
/// ```
///
/// Problems with one record come back as ``TreasureRow/invalid(_:)``; problems with the
/// file as a whole are thrown as ``TreasureFileError``. Both formats are streamed (GeoJSON
/// a feature at a time), gzip-compressed files too; other binary formats are refused by
/// their signature.
///
/// Locations: CSV rows carry the file and the physical line the record starts on, and
/// a diagnostic about one value adds its 1-based column (field) number. GeoJSON
/// features carry the 0-based feature index and, in diagnostics, the JSON path of the
/// offending value (`features[7].geometry.type`); newline-delimited features also
/// carry their line.
public struct TreasureReader {
    /// The format being read.
    public let format: TreasureFormat
    /// The file as the user named it, used in every location.
    public let displayPath: String
    private var source: Source

    private enum Source {
        case csv(CSVTreasureSource)
        case geojson(GeoJSONTreasureSource)
    }

    /// Opens a treasure file.
    ///
    /// - Parameters:
    ///   - path: The file to read.
    ///   - displayPath: How to name the file in messages; `path` by default.
    ///   - format: CSV or GeoJSON; by default from the extension, else from the first
    ///     character (`{` means GeoJSON).
    ///   - encoding: The text encoding; only UTF-8 is checked.
    /// - Throws: ``TreasureFileError`` when the file cannot be read, or its header or
    ///   JSON structure is unusable.
    public init(
        path: String, displayPath: String? = nil, format: TreasureFormat? = nil,
        encoding: TextEncoding = .utf8
    ) throws(TreasureFileError) {
        let shown = displayPath ?? path
        // Signatures first: a spreadsheet, an archive or an image is named, and gzip read.
        let head = try Self.head(path, shown)
        if GzipInput.isGzip(head) {
            (source, self.format) = try Self.gzipSource(
                path: path, displayPath: shown, format: format, encoding: encoding)
            self.displayPath = shown
            return
        }
        try Self.refuseOtherFormats(head, shown)
        let chosen: TreasureFormat
        if let known = format ?? TreasureFormat(path: path) {
            chosen = known
        } else {
            chosen = try Self.sniffFormat(path, shown)
        }
        switch chosen {
        case .csv:
            let csv: CSVReader
            do throws(CSVError) {
                csv = try CSVReader(path: path, displayPath: shown, encoding: encoding)
            } catch {
                throw TreasureFileError(error)
            }
            source = .csv(try CSVTreasureSource(csv))
        case .geojson:
            let file = StreamedFile(descriptor: try Self.open(path, shown), closes: true)
            source = .geojson(
                try GeoJSONTreasureSource(
                    stream: JSONStream { file.read(into: $0, count: $1) }, displayPath: shown,
                    encoding: encoding))
        }
        self.format = chosen
        self.displayPath = shown
    }

    /// Reads a gzip-compressed treasure file (`cities.csv.gz`) as the file it holds: its
    /// format from the name without `.gz`, else from its first character.
    private static func gzipSource(
        path: String, displayPath shown: String, format: TreasureFormat?,
        encoding: TextEncoding
    ) throws(TreasureFileError) -> (Source, TreasureFormat) {
        let inner = path.lowercased().hasSuffix(".gz") ? String(path.dropLast(3)) : path
        func openGzip() throws(TreasureFileError) -> GzipInput {
            let descriptor = try Self.open(path, shown)
            guard let gzip = GzipInput(descriptor: descriptor, closes: true) else {
                throw unreadable(shown)
            }
            return gzip
        }
        func damaged(_ gzip: GzipInput) -> TreasureFileError {
            TreasureFileError(
                code: nil, message: gzip.problem ?? "the gzip data is damaged",
                location: .init(file: shown))
        }
        var chosen = format ?? TreasureFormat(path: inner)
        if chosen == nil {
            let gzip = try openGzip()
            var first = [UInt8](repeating: 0, count: 512)
            let count = first.withUnsafeMutableBytes {
                gzip.read(into: $0.baseAddress!, count: 512)
            }
            guard count >= 0 else { throw damaged(gzip) }
            try refuseOtherFormats(first[..<count], shown)
            let text = first[..<count].drop {
                [0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0)
            }
            chosen = text.first == UInt8(ascii: "{") ? .geojson : .csv
        }
        let gzip = try openGzip()
        switch chosen ?? .csv {
        case .csv:
            let csv: CSVReader
            do throws(CSVError) {
                csv = try CSVReader(
                    gzip: gzip, displayPath: shown, encoding: encoding,
                    delimiter: inner.lowercased().hasSuffix(".tsv") ? UInt8(ascii: "\t") : nil)
            } catch {
                throw TreasureFileError(error)
            }
            return (.csv(try CSVTreasureSource(csv)), .csv)
        case .geojson:
            let stream = JSONStream { gzip.read(into: $0, count: $1) }
            do throws(TreasureFileError) {
                let geojson = try GeoJSONTreasureSource(
                    stream: stream, displayPath: shown, encoding: encoding)
                return (.geojson(geojson), .geojson)
            } catch {
                throw gzip.problem == nil ? error : damaged(gzip)
            }
        }
    }

    /// Reads an open descriptor without closing it; tests use pipes.
    init(
        fileDescriptor: Int32, format: TreasureFormat, displayPath: String,
        encoding: TextEncoding = .utf8, chunkSize: Int = 1 << 20
    ) throws(TreasureFileError) {
        switch format {
        case .csv:
            let csv: CSVReader
            do throws(CSVError) {
                csv = try CSVReader(
                    fileDescriptor: fileDescriptor, closesDescriptor: false,
                    displayPath: displayPath, encoding: encoding, delimiter: nil,
                    chunkSize: chunkSize)
            } catch {
                throw TreasureFileError(error)
            }
            source = .csv(try CSVTreasureSource(csv))
        case .geojson:
            let file = StreamedFile(descriptor: fileDescriptor, closes: false)
            source = .geojson(
                try GeoJSONTreasureSource(
                    stream: JSONStream { file.read(into: $0, count: $1) },
                    displayPath: displayPath, encoding: encoding))
        }
        self.format = format
        self.displayPath = displayPath
    }

    /// Reads treasures from bytes already in memory, such as standard input read whole
    /// by the caller.
    /// - Throws: ``TreasureFileError`` when the header or JSON structure is unusable.
    public init(
        bytes: [UInt8], format: TreasureFormat, displayPath: String,
        encoding: TextEncoding = .utf8
    ) throws(TreasureFileError) {
        try Self.refuseOtherFormats(bytes.prefix(512), displayPath)
        switch format {
        case .csv:
            let csv = CSVReader(bytes: bytes, displayPath: displayPath, encoding: encoding)
            source = .csv(try CSVTreasureSource(csv))
        case .geojson:
            source = .geojson(
                try GeoJSONTreasureSource(
                    bytes: bytes, displayPath: displayPath, encoding: encoding))
        }
        self.format = format
        self.displayPath = displayPath
    }

    /// Reads a CSV reader's records as treasures, e.g. one made with a small chunk size.
    /// - Throws: ``TreasureFileError`` when the header is unusable.
    init(csv: CSVReader) throws(TreasureFileError) {
        source = .csv(try CSVTreasureSource(csv))
        format = .csv
        displayPath = csv.displayPath
    }

    /// The next record, or `nil` at the end.
    /// - Throws: ``TreasureFileError`` when the rest of the file cannot be read.
    public mutating func next() throws(TreasureFileError) -> TreasureRow? {
        switch source {
        case .csv(var csv):
            let row = try csv.next()
            source = .csv(csv)
            return row
        case .geojson(var geojson):
            let row = try geojson.next()
            source = .geojson(geojson)
            return row
        }
    }

    /// Extra columns in file order, under the names they are stored with: the header's,
    /// made unique (`dup`, `dup_2`; an empty name is `column_N`). CSV only; GeoJSON
    /// features each have their own properties.
    public var extraColumns: [String] {
        switch source {
        case .csv(let csv): csv.extraNames
        case .geojson: []
        }
    }

    /// The columns the file has: the CSV header's names as extras are stored under them
    /// (made unique), or the property names of
    /// the GeoJSON features read so far, in order of first use.
    public var columnNames: [String] {
        switch source {
        case .csv(let csv): CSVTreasureSource.uniqueNames(csv.header)
        case .geojson(let geojson): geojson.propertyNames
        }
    }

    /// Whether a comma in a value is a decimal comma (CSV not separated by commas).
    public var decimalComma: Bool {
        switch source {
        case .csv(let csv): csv.decimalComma
        case .geojson: false
        }
    }

    /// Read positions as `[latitude, longitude]`, or the `lat` column as the longitude and
    /// the `lon` column as the latitude (`--swap-coordinates`).
    public var swapCoordinates: Bool {
        get {
            switch source {
            case .csv(let csv): csv.swapCoordinates
            case .geojson(let geojson): geojson.swapCoordinates
            }
        }
        set {
            switch source {
            case .csv(var csv):
                csv.swapCoordinates = newValue
                source = .csv(csv)
            case .geojson(var geojson):
                geojson.swapCoordinates = newValue
                source = .geojson(geojson)
            }
        }
    }

    /// Findings about the file as a whole, complete once every record was read: GeoJSON
    /// positions converted from Web Mercator, names that are not text, a file written
    /// lat,lon.
    public var fileWarnings: [Diagnostic] {
        switch source {
        case .csv: []
        case .geojson(let geojson): geojson.warnings
        }
    }

    /// The JSON text of the features `wanted` (by index) of a GeoJSON file, read again,
    /// for the rejects file.
    static func featureTexts(
        _ wanted: Set<Int>, path: String, displayPath: String, encoding: TextEncoding
    ) -> [Int: String] {
        guard let head = try? head(path, displayPath),
            let descriptor = try? Self.open(path, displayPath)
        else { return [:] }
        let stream: JSONStream
        if GzipInput.isGzip(head) {
            guard let gzip = GzipInput(descriptor: descriptor, closes: true) else { return [:] }
            stream = JSONStream { gzip.read(into: $0, count: $1) }
        } else {
            let file = StreamedFile(descriptor: descriptor, closes: true)
            stream = JSONStream { file.read(into: $0, count: $1) }
        }
        return GeoJSONTreasureSource.featureTexts(
            wanted, stream: stream, displayPath: displayPath, encoding: encoding)
    }

    /// Records of only delimiters (`,,,,`) skipped so far, as blank lines are; CSV only.
    public var blankRecords: Int {
        switch source {
        case .csv(let csv): csv.blankRecords
        case .geojson: 0
        }
    }

    // MARK: - Files

    /// Opens the file the one way every input is opened (`InputFile`): a FIFO, a device
    /// or a socket is refused at once.
    static func open(_ path: String, _ shown: String) throws(TreasureFileError) -> Int32 {
        do throws(InputFile.Failure) {
            return try InputFile.open(path)
        } catch {
            throw TreasureFileError(
                code: nil, message: "cannot read the file: \(error.reason)",
                location: .init(file: shown))
        }
    }

    /// The first 512 bytes of the file (fewer when it is shorter).
    static func head(_ path: String, _ shown: String) throws(TreasureFileError) -> [UInt8] {
        let descriptor = try open(path, shown)
        defer { _ = close(descriptor) }
        guard let head = InputFile.head(descriptor) else { throw unreadable(shown) }
        return head
    }

    /// Refuses a file that is not text by its signature (a spreadsheet, an archive, an
    /// image, a database), naming what it is and what to do, instead of reading its bytes
    /// as CSV; and any other file whose first bytes are binary (`isBinary`), except UTF-16
    /// with its byte order mark.
    static func refuseOtherFormats(_ head: some Collection<UInt8>, _ shown: String)
        throws(TreasureFileError)
    {
        if let signature = FileSignature(sniffing: head) {
            throw TreasureFileError(
                code: nil,
                message: "this is \(signature.described), not a CSV or GeoJSON file",
                location: .init(file: shown), hint: signature.advice)
        }
        if GzipInput.isGzip(head) {
            throw TreasureFileError(
                code: nil, message: "this is gzip data; trove reads gzip from files only",
                location: .init(file: shown), hint: "name the .gz file, or pipe it through gunzip")
        }
        let isUTF16 = head.starts(with: [0xFF, 0xFE]) || head.starts(with: [0xFE, 0xFF])
        if !isUTF16, isBinary(head) {
            throw TreasureFileError(
                code: nil, message: "this is a binary file, not CSV or GeoJSON text",
                location: .init(file: shown),
                hint: "export the data as CSV UTF-8 or GeoJSON")
        }
    }

    /// Whether a file's first bytes are binary data rather than text: two NULs or more.
    /// One stray NUL in a field of an otherwise textual file (csvkit's `null_byte.csv`) is
    /// text, read as the rest is; binary data has NULs throughout (other control bytes are
    /// no sign: text may carry terminal escapes, which trove shows escaped).
    static func isBinary(_ head: some Collection<UInt8>) -> Bool {
        var nuls = 0
        for byte in head where byte == 0 {
            nuls += 1
            if nuls >= 2 { return true }
        }
        return false
    }

    static func sniffFormat(_ path: String, _ shown: String) throws(TreasureFileError)
        -> TreasureFormat
    {
        let bytes = try head(path, shown)
        let text = bytes.drop { [0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
        return text.first == UInt8(ascii: "{") ? .geojson : .csv
    }

    static func readAll(path: String, displayPath: String) throws(TreasureFileError) -> [UInt8] {
        let descriptor = try open(path, displayPath)
        defer { _ = close(descriptor) }
        return try readAll(descriptor: descriptor, displayPath: displayPath)
    }

    static func readAll(descriptor: Int32, displayPath: String) throws(TreasureFileError)
        -> [UInt8]
    {
        guard let bytes = FileIO.readAll(descriptor) else { throw unreadable(displayPath) }
        return bytes
    }

    private static func unreadable(_ shown: String) -> TreasureFileError {
        TreasureFileError(
            code: nil, message: "cannot read the file: \(CSVReader.systemMessage())",
            location: .init(file: shown))
    }
}
