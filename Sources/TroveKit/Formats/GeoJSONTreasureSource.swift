// MARK: - Source

/// Maps GeoJSON features to treasures: a FeatureCollection, a single Feature, or
/// newline-delimited Features.
///
/// RFC 7946 positions are `[longitude, latitude]`. The key is `id` of the feature (a
/// string, or a number as written), else `properties.key`, else `properties.id`.
/// Properties named like CSV columns (`name`/`title`, `image`/`photo`/…, `description`)
/// fill those fields; every other property is an extra, strings as they are, `null` as
/// an empty value (Firebase stores no nulls) and other values as their JSON text.
struct GeoJSONTreasureSource {
    /// A feature to map, with where it came from.
    private struct Entry {
        var value: JSONValue
        /// The JSON path of the feature in the document: `features[7]`, or empty.
        var path: String
        /// The line it starts on, for newline-delimited files.
        var line: Int?
    }

    private let displayPath: String
    private var entries: [Entry]
    private var position = 0

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

        var parser = JSONParser(bytes)
        var values: [(value: JSONValue, line: Int)] = []
        do throws(JSONSyntaxError) {
            while !parser.atEnd() {
                let line = parser.nextLine()
                values.append((try parser.parseValue(), line))
            }
        } catch {
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

    mutating func next() -> TreasureRow? {
        guard position < entries.count else { return nil }
        defer { position += 1 }
        return row(entries[position], index: position)
    }

    // MARK: - Mapping

    private func row(_ entry: Entry, index: Int) -> TreasureRow {
        let feature = entry.value
        var location = Diagnostic.Location(file: displayPath, line: entry.line, feature: index)
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
            extra.append(ExtraField(name: member.name, value: Self.text(member.value) ?? ""))
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
