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
/// file as a whole are thrown as ``TreasureFileError``. CSV is streamed; GeoJSON is
/// read whole.
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
            let bytes = try Self.readAll(path: path, displayPath: shown)
            source = .geojson(
                try GeoJSONTreasureSource(bytes: bytes, displayPath: shown, encoding: encoding))
        }
        self.format = chosen
        self.displayPath = shown
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
            let bytes = try Self.readAll(descriptor: fileDescriptor, displayPath: displayPath)
            source = .geojson(
                try GeoJSONTreasureSource(
                    bytes: bytes, displayPath: displayPath, encoding: encoding))
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
            let row = geojson.next()
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

    /// Records of only delimiters (`,,,,`) skipped so far, as blank lines are; CSV only.
    public var blankRecords: Int {
        switch source {
        case .csv(let csv): csv.blankRecords
        case .geojson: 0
        }
    }

    // MARK: - Files

    static func sniffFormat(_ path: String, _ shown: String) throws(TreasureFileError)
        -> TreasureFormat
    {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw unreadable(shown) }
        defer { _ = close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 512)
        let count = read(descriptor, &bytes, bytes.count)
        guard count >= 0 else { throw unreadable(shown) }
        let text = bytes[..<count].drop { [0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
        return text.first == UInt8(ascii: "{") ? .geojson : .csv
    }

    static func readAll(path: String, displayPath: String) throws(TreasureFileError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw unreadable(displayPath) }
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
