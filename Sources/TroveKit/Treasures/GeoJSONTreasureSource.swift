// MARK: - Source

/// Maps GeoJSON features to treasures: a FeatureCollection, a single Feature, or
/// newline-delimited Features.
///
/// RFC 7946 positions are `[longitude, latitude]`. The key is `id` of the feature (a
/// string, or a number as written), else `properties.key`, else `properties.id`.
/// Properties named like CSV columns (`name`/`title`, `image`/`photo`/…, `description`)
/// fill those fields; every other property is an extra that keeps its JSON type (strings,
/// numbers as written, booleans, arrays, objects), except `null`, which is no value
/// (Firebase stores no nulls).
struct GeoJSONTreasureSource {
    /// A feature to map, with where it came from.
    private struct Entry {
        var value: JSONValue
        /// The JSON path of the feature in the document: `features[7]`, or empty.
        var path: String
        /// The line it starts on, for newline-delimited files.
        var line: Int?
        /// A record of a newline-delimited file or text sequence that is not JSON: the
        /// parser's message and column, and the record's text; `value` is null.
        var broken: (message: String, column: Int, text: String)?
    }

    private let displayPath: String
    private var entries: [Entry] = []
    private var position = 0
    /// The property names of the features read so far, in order of first use.
    private(set) var propertyNames: [String] = []
    private var seenNames: Set<String> = []

    /// Parses the whole document.
    /// - Throws: ``TreasureFileError`` for text that is not JSON (or not UTF-8), or
    ///   JSON that is not a FeatureCollection, a Feature or a series of Features.
    init(bytes: [UInt8], displayPath: String, encoding: TextEncoding) throws(TreasureFileError) {
        self.displayPath = displayPath
        var bytes = bytes
        if encoding == .utf8 {
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
            let bad = bytes.withUnsafeBufferPointer { UTF8Validation.firstInvalidOffset(in: $0) }
            if let bad {
                let line = bytes[..<bad].count { $0 == 0x0A } + 1
                let csvError = CSVError(.invalidEncoding, file: displayPath, line: line)
                throw TreasureFileError(csvError)
            }
        } else {
            let text = bytes.withUnsafeBufferPointer { encoding.decode($0) } ?? ""
            bytes = Array(text.utf8)
        }

        // An RFC 8142 text sequence: every record starts with RS (0x1E).
        let isSequence = bytes.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D }) == 0x1E
        func records() throws(TreasureFileError) -> [Entry] {
            let entries = Self.records(bytes, separator: isSequence ? 0x1E : 0x0A)
            guard !entries.isEmpty else {
                throw TreasureFileError(
                    code: DiagnosticCode.brokenJSON, message: "the file holds no JSON",
                    location: .init(file: displayPath))
            }
            return entries
        }
        if isSequence {
            entries = try records()
            return
        }
        var parser = JSONParser(bytes)
        var values: [(value: JSONValue, line: Int)] = []
        do throws(JSONSyntaxError) {
            while !parser.atEnd() {
                let line = parser.nextLine()
                values.append((try parser.parseValue(), line))
            }
        } catch {
            // Newline-delimited GeoJSON with a broken line: read line by line.
            if Self.isLineDelimited(bytes) {
                entries = try records()
                return
            }
            throw TreasureFileError(
                code: DiagnosticCode.brokenJSON, message: "broken JSON: \(error.message)",
                location: .init(file: displayPath, line: error.line, column: error.column))
        }
        func structure(_ message: String, line: Int? = nil) -> TreasureFileError {
            TreasureFileError(
                code: DiagnosticCode.brokenJSON, message: message,
                location: .init(file: displayPath, line: line),
                hint: "expected a GeoJSON FeatureCollection, a Feature, or one Feature per line")
        }
        guard let first = values.first else { throw structure("the file holds no JSON") }

        if values.count > 1 {
            // Newline-delimited: every record is one feature.
            entries = values.map { Entry(value: $0.value, path: "", line: $0.line) }
            return
        }
        switch first.value["type"] {
        case .string("FeatureCollection"):
            guard case .array(let features)? = first.value["features"] else {
                throw structure("the FeatureCollection has no 'features' array")
            }
            entries = features.enumerated().map { Entry(value: $1, path: "features[\($0)]") }
        case .string("Feature"):
            entries = [Entry(value: first.value, path: "")]
        case .string(let other):
            throw structure("the document is a \(other), not a FeatureCollection or a Feature")
        default:
            throw structure("the document is \(first.value.kind) without a GeoJSON 'type'")
        }
    }

    /// Whether a file that is not one JSON document is newline-delimited GeoJSON: it has
    /// more than one non-blank line and some line is a whole Feature on its own. Such a
    /// file is read line by line, so that one broken line is one invalid row (skipped with
    /// `--skip-invalid`) instead of the end of the file. A pretty-printed document that
    /// parses is never one.
    private static func isLineDelimited(_ bytes: [UInt8]) -> Bool {
        var lines = 0
        var feature = false
        for line in bytes.split(separator: 0x0A) {
            guard line.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else {
                continue
            }
            lines += 1
            if !feature {
                var parser = JSONParser(Array(line))
                if let value = try? parser.parseValue(), parser.atEnd(),
                    value["type"] == .string("Feature")
                {
                    feature = true
                }
            }
            if lines > 1 && feature { return true }
        }
        return false
    }

    /// The records of a newline-delimited file (`separator` LF) or an RFC 8142 sequence
    /// (RS), each parsed on its own; a record that is not JSON is kept as broken, with its
    /// line, for the reader to report.
    private static func records(_ bytes: [UInt8], separator: UInt8) -> [Entry] {
        var entries: [Entry] = []
        var line = 1
        var start = 0
        while start <= bytes.count {
            let end = bytes[start...].firstIndex(of: separator) ?? bytes.count
            let record = Array(bytes[start..<end])
            let leadingBreaks = record.prefix {
                $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D
            }
            .count { $0 == 0x0A }
            if record.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }) {
                var parser = JSONParser(record)
                do throws(JSONSyntaxError) {
                    let value = try parser.parseValue()
                    if !parser.atEnd() {
                        let at = parser.nextLine()
                        entries.append(
                            Entry(
                                value: .null, path: "", line: line + at - 1,
                                broken: (
                                    "unexpected data after the value", 1,
                                    String(decoding: record, as: UTF8.self)
                                )))
                    } else {
                        entries.append(Entry(value: value, path: "", line: line + leadingBreaks))
                    }
                } catch {
                    entries.append(
                        Entry(
                            value: .null, path: "", line: line + error.line - 1,
                            broken: (
                                error.message, error.column,
                                String(decoding: record, as: UTF8.self)
                            )))
                }
            }
            line += record.count { $0 == 0x0A } + (separator == 0x0A ? 1 : 0)
            start = end + 1
        }
        return entries
    }

    /// Feature `index` as JSON text (a broken record as written), for the rejects file.
    func featureText(_ index: Int) -> String? {
        guard entries.indices.contains(index) else { return nil }
        let entry = entries[index]
        if let broken = entry.broken {
            return broken.text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return entry.value.jsonText
    }

    mutating func next() -> TreasureRow? {
        guard position < entries.count else { return nil }
        defer { position += 1 }
        let entry = entries[position]
        if case .object(let members)? = entry.value["properties"] {
            for member in members where seenNames.insert(member.name).inserted {
                propertyNames.append(member.name)
            }
        }
        return row(entry, index: position)
    }

    // MARK: - Mapping

    private func row(_ entry: Entry, index: Int) -> TreasureRow {
        let feature = entry.value
        var location = Diagnostic.Location(file: displayPath, line: entry.line, feature: index)
        if let broken = entry.broken {
            location.column = broken.column
            return .invalid(
                Diagnostic(
                    .error, DiagnosticCode.brokenJSON, "broken JSON: \(broken.message)",
                    at: location, hint: "each line must hold one whole GeoJSON Feature"))
        }
        func path(_ suffix: String) -> String {
            entry.path.isEmpty ? suffix : "\(entry.path).\(suffix)"
        }
        func invalid(_ code: String, _ message: String, at jsonPath: String, hint: String? = nil)
            -> TreasureRow
        {
            var place = location
            place.jsonPath = jsonPath
            return .invalid(Diagnostic(.error, code, message, at: place, hint: hint))
        }

        guard case .object = feature, feature["type"] == .string("Feature") else {
            let found = feature["type"].map { $0.jsonText } ?? feature.kind
            return invalid(
                DiagnosticCode.brokenJSON, "feature \(index) is not a GeoJSON Feature (\(found))",
                at: entry.path.isEmpty ? "type" : entry.path)
        }
        var properties: [JSONMember] = []
        switch feature["properties"] {
        case .object(let members)?: properties = members
        case .null?, nil: break
        case let other?:
            return invalid(
                DiagnosticCode.brokenJSON, "properties is \(other.kind), not an object",
                at: path("properties"))
        }
        let (columns, _) = TreasureField.match(
            properties.map(\.name), fields: [.key, .name, .image, .description])

        // Key: the feature's id wins over the properties.
        var key: String?
        var keyPath = path("id")
        var keyColumn: Int?
        if let id = feature["id"], id != .null {
            switch id {
            case .string, .number: key = Self.text(id)
            default:
                return invalid(
                    DiagnosticCode.illegalKey,
                    "the feature's id is \(id.kind), not a string or number",
                    at: keyPath)
            }
        } else if let column = columns[.key], properties[column].value != .null {
            key = Self.text(properties[column].value)
            keyPath = path("properties.\(properties[column].name)")
            keyColumn = column
        }
        if let key {
            location.key = key
            do throws(TreasureCheck.Problem) {
                try TreasureCheck.key(key)
            } catch {
                return invalid(error.code, error.message, at: keyPath, hint: error.hint)
            }
        }
        guard let nameColumn = columns[.name], let name = Self.text(properties[nameColumn].value),
            !name.isEmpty
        else {
            let name = columns[.name].map { properties[$0].name } ?? "name"
            return invalid(
                DiagnosticCode.missingName, "the feature has no name",
                at: path("properties.\(name)"))
        }

        // Position.
        guard let geometry = feature["geometry"], geometry != .null else {
            return invalid(
                DiagnosticCode.missingPosition, "the feature has no geometry",
                at: path("geometry"))
        }
        guard case .string(let type)? = geometry["type"] else {
            return invalid(
                DiagnosticCode.brokenJSON, "the geometry has no type", at: path("geometry.type"))
        }
        guard type == "Point" else {
            return invalid(
                DiagnosticCode.notAPoint, "the geometry is a \(type), not a Point",
                at: path("geometry.type"),
                hint: "treasures are points; reduce other shapes to one position")
        }
        guard case .array(let coordinates)? = geometry["coordinates"], coordinates.count >= 2
        else {
            return invalid(
                DiagnosticCode.missingPosition,
                "the Point needs coordinates [longitude, latitude]",
                at: path("geometry.coordinates"))
        }
        var position: [Double] = []
        for (axis, name) in [(0, "longitude"), (1, "latitude")] {
            let at = path("geometry.coordinates[\(axis)]")
            guard case .number(let text) = coordinates[axis] else {
                return invalid(
                    DiagnosticCode.notANumber,
                    "\(name) is \(coordinates[axis].kind), not a number", at: at)
            }
            guard let value = Double(text), value.isFinite else {
                return invalid(
                    DiagnosticCode.notANumber, "\(name) \(text) is not a finite number", at: at)
            }
            do throws(TreasureCheck.Problem) {
                if axis == 0 {
                    try TreasureCheck.longitude(value, text: text)
                } else {
                    try TreasureCheck.latitude(value, text: text)
                }
            } catch {
                return invalid(error.code, error.message, at: at)
            }
            position.append(value)
        }

        let used = [keyColumn, columns[.name], columns[.image], columns[.description]]
        func optionalText(_ field: TreasureField) -> String? {
            columns[field].flatMap { Self.text(properties[$0].value) }.flatMap {
                $0.isEmpty ? nil : $0
            }
        }
        // An `id` property that did not become the key is data like any other.
        var extra: [ExtraField] = []
        for column in properties.indices where !used.contains(column) {
            let member = properties[column]
            switch member.value {
            // `null` is no value: nothing is stored, so an export writes nothing.
            case .null: continue
            case .string(let text): extra.append(ExtraField(name: member.name, value: text))
            default: extra.append(ExtraField(name: member.name, json: member.value.jsonText))
            }
        }
        return .treasure(
            TreasureInput(
                key: key, name: name, latitude: position[1], longitude: position[0],
                image: optionalText(.image), description: optionalText(.description),
                extra: extra, location: location))
    }

    /// A value as text: strings as they are, `null` as nothing, the rest as JSON text.
    static func text(_ value: JSONValue) -> String? {
        switch value {
        case .null: nil
        case .string(let text): text
        default: value.jsonText
        }
    }
}
