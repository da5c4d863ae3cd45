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

    /// Reads standard input in the given format (`trove import treasures - --from csv`).
    /// - Throws: ``TreasureFileError`` as ``init(path:displayPath:format:encoding:)``.
    public init(
        standardInputAs format: TreasureFormat, displayPath: String = "<stdin>",
        encoding: TextEncoding = .utf8
    ) throws(TreasureFileError) {
        try self.init(
            fileDescriptor: 0, format: format, displayPath: displayPath, encoding: encoding)
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

// MARK: - CSV

/// Maps CSV records to treasures by their header.
struct CSVTreasureSource {
    private var csv: CSVReader
    let header: [String]
    let extras: [Int]
    /// The name each extra column is stored under, by position in `extras`: as the header
    /// names it, made unique (see `uniqueNames`).
    let extraNames: [String]
    // Column indexes, looked up once rather than per row.
    private let keyIndex: Int?
    private let nameIndex: Int
    private let latitudeIndex: Int
    private let longitudeIndex: Int
    private let imageIndex: Int?
    private let descriptionIndex: Int?
    private let decimalComma: Bool

    init(_ csv: CSVReader) throws(TreasureFileError) {
        var csv = csv
        let file = csv.displayPath
        let first: CSVRecord?
        do throws(CSVError) {
            first = try csv.next()
        } catch {
            throw TreasureFileError(error)
        }
        guard let first else {
            throw TreasureFileError(
                code: DiagnosticCode.missingColumn,
                message: "the file is empty; it needs a header with name, lat and lon columns",
                location: .init(file: file, line: 1))
        }
        let (columns, extras) = TreasureField.match(first.fields)
        func required(_ field: TreasureField) throws(TreasureFileError) -> Int {
            if let index = columns[field] { return index }
            let found = first.fields.map { "'\(TreasureCheck.shown($0))'" }.joined(separator: ", ")
            throw TreasureFileError(
                code: DiagnosticCode.missingColumn,
                message: "there is no '\(field.label)' column; the header has \(found)",
                location: .init(file: file, line: first.line),
                hint: "name it \(field.names.map { "'\($0)'" }.joined(separator: " or "))")
        }
        nameIndex = try required(.name)
        latitudeIndex = try required(.latitude)
        longitudeIndex = try required(.longitude)
        keyIndex = columns[.key]
        imageIndex = columns[.image]
        descriptionIndex = columns[.description]
        self.csv = csv
        self.header = first.fields
        self.extras = extras
        let unique = Self.uniqueNames(first.fields)
        self.extraNames = extras.map { unique[$0] }
        // In a semicolon file, the comma is free to be the decimal separator.
        self.decimalComma = csv.delimiter == UInt8(ascii: ";")
    }

    /// Header names made unique, as csvkit does: an empty name becomes `column_N` (its
    /// 1-based position; spreadsheets write trailing delimiters), a repeated name gets
    /// `_2`, `_3`… on its second, third… use (skipping names the header already has), so
    /// that no column's values are lost or mixed with another's.
    static func uniqueNames(_ header: [String]) -> [String] {
        var taken = Set(header.filter { !$0.isEmpty })
        var seen: Set<String> = []
        var names: [String] = []
        for (index, name) in header.enumerated() {
            var base = name
            if name.isEmpty {
                base = "column_\(index + 1)"
                if !taken.contains(base) {
                    taken.insert(base)
                    names.append(base)
                    continue
                }
            } else if !seen.contains(name) {
                seen.insert(name)
                names.append(name)
                continue
            }
            var counter = 2
            while taken.contains("\(base)_\(counter)") { counter += 1 }
            let unique = "\(base)_\(counter)"
            taken.insert(unique)
            names.append(unique)
        }
        return names
    }

    mutating func next() throws(TreasureFileError) -> TreasureRow? {
        let record: CSVRecord?
        do throws(CSVError) {
            record = try csv.next()
        } catch {
            throw TreasureFileError(error)
        }
        guard let record else { return nil }
        return row(record)
    }

    private func row(_ record: CSVRecord) -> TreasureRow {
        var location = Diagnostic.Location(file: csv.displayPath, line: record.line)
        let fields = record.fields
        func invalid(_ problem: TreasureCheck.Problem, column: Int?) -> TreasureRow {
            var place = location
            place.column = column.map { $0 + 1 }
            return .invalid(
                Diagnostic(.error, problem.code, problem.message, at: place, hint: problem.hint))
        }
        guard fields.count == header.count else {
            let problem = TreasureCheck.Problem(
                code: DiagnosticCode.raggedRow,
                message:
                    "row has \(fields.count) field\(fields.count == 1 ? "" : "s"), the header has \(header.count)",
                hint: "a field that contains the delimiter must be quoted")
            return invalid(problem, column: nil)
        }

        var key: String?
        if let keyIndex, !fields[keyIndex].isEmpty {
            key = fields[keyIndex]
            location.key = key
            do throws(TreasureCheck.Problem) {
                try TreasureCheck.key(fields[keyIndex])
            } catch {
                return invalid(error, column: keyIndex)
            }
        }
        let name = fields[nameIndex]
        guard !name.isEmpty else {
            return invalid(
                .init(code: DiagnosticCode.missingName, message: "the name is empty"),
                column: nameIndex)
        }
        let latitude: Double
        let longitude: Double
        do throws(TreasureCheck.Problem) {
            latitude = try TreasureCheck.coordinate(
                fields[latitudeIndex], axis: "latitude", decimalComma: decimalComma)
            try TreasureCheck.latitude(latitude, text: fields[latitudeIndex])
        } catch {
            return invalid(error, column: latitudeIndex)
        }
        do throws(TreasureCheck.Problem) {
            longitude = try TreasureCheck.coordinate(
                fields[longitudeIndex], axis: "longitude", decimalComma: decimalComma)
            try TreasureCheck.longitude(longitude, text: fields[longitudeIndex])
        } catch {
            return invalid(error, column: longitudeIndex)
        }
        let image = imageIndex.flatMap { fields[$0].isEmpty ? nil : fields[$0] }
        let description = descriptionIndex.flatMap { fields[$0].isEmpty ? nil : fields[$0] }
        return .treasure(
            TreasureInput(
                key: key, name: name, latitude: latitude, longitude: longitude, image: image,
                description: description,
                extra: extras.indices.map {
                    ExtraField(name: extraNames[$0], value: fields[extras[$0]])
                },
                location: location))
    }
}
