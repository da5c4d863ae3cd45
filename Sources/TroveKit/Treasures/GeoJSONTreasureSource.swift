import Foundation
import TroveBase
import TroveStore

// MARK: - Source

/// Maps GeoJSON features to treasures: a FeatureCollection, a single Feature, or
/// newline-delimited Features, read a feature at a time (`JSONStream`), so memory stays
/// flat whatever the file's size.
///
/// RFC 7946 positions are `[longitude, latitude]`. The key is `id` of the feature (a
/// string, or a number as written), else `properties.key`, else `properties.id`.
/// Properties named like CSV columns (`name`/`title`, `image`/`photo`/…, `description`)
/// fill those fields; every other property is an extra that keeps its JSON type (strings,
/// numbers as written, booleans, arrays, objects), except `null`, which is no value
/// (Firebase stores no nulls). A third coordinate (altitude) is the extra `alt`. A `crs`
/// member of the document (GeoJSON 2008) is read: CRS84 and EPSG:4326 are longitude,
/// latitude; EPSG:3857 (Web Mercator) is converted; anything else is refused.
struct GeoJSONTreasureSource {
    /// A feature to map, with where it came from.
    package struct Entry {
        package var value: JSONValue
        /// The JSON path of the feature in the document: `features[7]`, or empty.
        package var path: String
        /// The line it starts on, for newline-delimited files.
        package var line: Int?
        /// A record of a newline-delimited file or text sequence that is not JSON: the
        /// parser's message and column, and the record's text; `value` is null.
        var broken: (message: String, column: Int, text: String)?
    }

    /// How the file's values are laid out.
    private enum Mode {
        /// The first value not yet looked at.
        case start
        /// Inside the top-level object, between members.
        case members
        /// Inside its `features` array; `first` until one was read.
        case features(first: Bool)
        /// One value after another (concatenated or pretty-printed Features).
        case values
        /// One record per line; broken lines are invalid rows.
        case lines
        /// RFC 8142: records that start with RS.
        case sequence
        case finished

        var isSequence: Bool {
            if case .sequence = self { return true }
            return false
        }
    }

    /// The coordinate system of the positions.
    enum Projection: Equatable {
        case lonLat
        /// EPSG:3857, metres: converted with the inverse spherical Mercator.
        case webMercator
    }

    private let displayPath: String
    private let encoding: TextEncoding
    private let stream: JSONStream
    private var mode = Mode.start
    private var index = 0
    /// The top-level object's members other than `features`, as read so far.
    private var members: [JSONMember] = []
    private var sawFeatures = false
    private var membersBeforeFeatures = 0
    /// A first value held back until it is known whether more follow.
    private var pending: [Entry] = []
    /// The property names of the features read so far, in order of first use.
    private(set) var propertyNames: [String] = []
    private var seenNames: Set<String> = []
    private(set) var projection = Projection.lonLat
    /// Read positions as `[latitude, longitude]` (`--swap-coordinates`).
    var swapCoordinates = false
    /// What to say once about the file (see `warnings`).
    private var notes = GeoJSONNotes()

    /// Reads a whole document already in memory.
    /// - Throws: ``TreasureFileError`` for text that is not JSON (or not UTF-8), or
    ///   JSON that is not a FeatureCollection, a Feature or a series of Features.
    package init(bytes: [UInt8], displayPath: String, encoding: TextEncoding)
        throws(TreasureFileError)
    {
        try self.init(
            stream: JSONStream(bytes: bytes), displayPath: displayPath, encoding: encoding)
    }

    /// Reads from a stream; the first values are looked at now, so a document that is not
    /// GeoJSON at all is refused before any row.
    /// - Throws: ``TreasureFileError`` as ``init(bytes:displayPath:encoding:)``.
    package init(stream: JSONStream, displayPath: String, encoding: TextEncoding)
        throws(TreasureFileError)
    {
        self.stream = stream
        self.displayPath = displayPath
        self.encoding = encoding
        stream.limit = RecordLimit.bytes
        try begin()
    }

    // MARK: - Reading

    private func structure(_ message: String, line: Int? = nil) -> TreasureFileError {
        TreasureFileError(
            code: DiagnosticCode.brokenJSON, message: message,
            location: .init(file: displayPath, line: line),
            hint: "expected a GeoJSON FeatureCollection, a Feature, or one Feature per line")
    }

    private func syntax(_ error: JSONSyntaxError, line: Int, column: Int) -> TreasureFileError {
        TreasureFileError(
            code: DiagnosticCode.brokenJSON, message: "broken JSON: \(error.message)",
            location: .init(
                file: displayPath, line: line + error.line - 1,
                column: error.line == 1 ? column + error.column - 1 : error.column))
    }

    /// The bytes as UTF-8 (validated, or transcoded from the encoding asked for).
    private func text(_ bytes: [UInt8], line: Int) throws(TreasureFileError) -> [UInt8] {
        if encoding == .utf8 {
            let bad = bytes.withUnsafeBufferPointer { UTF8Validation.firstInvalidOffset(in: $0) }
            if let bad {
                let at = line + bytes[..<bad].count { $0 == 0x0A }
                throw TreasureFileError(CSVError(.invalidEncoding, file: displayPath, line: at))
            }
            return bytes
        }
        let decoded = bytes.withUnsafeBufferPointer { encoding.decode($0) } ?? ""
        return Array(decoded.utf8)
    }

    /// Refuses a value or line the stream cut at `RecordLimit`, naming where it starts.
    private func checkLimit(line: Int) throws(TreasureFileError) {
        guard stream.overLimit else { return }
        throw TreasureFileError(
            code: DiagnosticCode.brokenJSON,
            message: "the value that starts here is longer than \(RecordLimit.words), the most "
                + "trove reads as one feature",
            location: .init(file: displayPath, line: line),
            hint: "a treasure is a point: is this the right file?")
    }

    /// Parses one whole value taken from the stream; a syntax error is the file's.
    private func parse(_ taken: (bytes: [UInt8], line: Int, column: Int))
        throws(TreasureFileError) -> JSONValue
    {
        try checkLimit(line: taken.line)
        let bytes = try text(taken.bytes, line: taken.line)
        var parser = JSONParser(bytes)
        do throws(JSONSyntaxError) {
            let value = try parser.parseValue()
            if !parser.atEnd() {
                throw JSONSyntaxError(
                    message: "unexpected data after the value", line: 1, column: 1)
            }
            return value
        } catch {
            throw syntax(error, line: taken.line, column: taken.column)
        }
    }

    private func readFailure() -> TreasureFileError {
        TreasureFileError(
            code: nil, message: "cannot read the file: \(String(cString: strerror(errno)))",
            location: .init(file: displayPath))
    }

    /// Decides how the file is laid out from its first bytes.
    private mutating func begin() throws(TreasureFileError) {
        if encoding == .utf8, stream.peek() == 0xEF, stream.peek(1) == 0xBB, stream.peek(2) == 0xBF
        {
            stream.advance(3)
        }
        guard let first = stream.skipWhitespace() else {
            if stream.failed { throw readFailure() }
            throw TreasureFileError(
                code: DiagnosticCode.brokenJSON, message: "the file holds no JSON",
                location: .init(file: displayPath))
        }
        if first == 0x1E {
            mode = .sequence
            return
        }
        if looksLineDelimited() {
            mode = .lines
            return
        }
        if first == UInt8(ascii: "{") {
            stream.advance(1)
            mode = .members
            try readMembers()
            return
        }
        // Not an object: a value of another kind, or several values.
        let taken = stream.takeValue()
        let value = try parse(taken)
        if stream.skipWhitespace() != nil {
            pending = [Entry(value: value, path: "", line: taken.line)]
            mode = .values
            return
        }
        throw structure("the document is \(value.kind) without a GeoJSON 'type'")
    }

    /// Whether the file holds one Feature per line: its first line (up to 4 MB) is a
    /// whole Feature and another line follows, or the first line is broken and the second
    /// a whole Feature. Such a file is read line by line, so that one broken line is one
    /// invalid row (skipped with `--skip-invalid`) instead of the end of the file. A
    /// pretty-printed document never is one.
    private func looksLineDelimited() -> Bool {
        let limit = 4 << 20
        func feature(_ bytes: [UInt8]) -> Bool? {
            var parser = JSONParser(bytes)
            guard let value = try? parser.parseValue(), parser.atEnd() else { return nil }
            return value["type"] == .string("Feature")
        }
        func nonBlank(_ line: [UInt8]) -> Bool {
            line.contains { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }
        }
        guard let first = stream.peekLine(from: 0, limit: limit) else { return false }
        var next = first.next
        var second: [UInt8]?
        var blank = 0
        while blank < 1000, let line = stream.peekLine(from: next, limit: limit),
            line.next > next
        {
            blank += 1
            if nonBlank(line.bytes) {
                second = line.bytes
                break
            }
            next = line.next
        }
        guard let second else { return false }
        switch feature(first.bytes) {
        case true?: return true
        case false?: return false
        case nil:
            let opening = String(decoding: first.bytes.prefix(200), as: UTF8.self)
            return !opening.contains("FeatureCollection") && feature(second) == true
        }
    }

    /// Reads the top-level object's members up to its `features` array or its end.
    private mutating func readMembers() throws(TreasureFileError) {
        while true {
            guard let byte = stream.skipWhitespace() else {
                throw syntax(
                    JSONSyntaxError(
                        message: "the text ends inside the document", line: 1, column: 1),
                    line: stream.line, column: stream.column)
            }
            if byte == UInt8(ascii: "}") {
                stream.advance(1)
                try finishDocument()
                return
            }
            if !members.isEmpty || sawFeatures {
                guard byte == UInt8(ascii: ",") else {
                    throw syntax(
                        JSONSyntaxError(
                            message: "expected ',' or '}' after a member", line: 1, column: 1),
                        line: stream.line, column: stream.column)
                }
                stream.advance(1)
                stream.skipWhitespace()
            }
            let nameTaken = stream.takeValue()
            guard case .string(let name) = try parse(nameTaken) else {
                throw syntax(
                    JSONSyntaxError(
                        message: "expected a member name in quotes", line: 1, column: 1),
                    line: nameTaken.line, column: nameTaken.column)
            }
            guard stream.skipWhitespace() == UInt8(ascii: ":") else {
                throw syntax(
                    JSONSyntaxError(
                        message: "expected ':' after the member name", line: 1, column: 1),
                    line: stream.line, column: stream.column)
            }
            stream.advance(1)
            if name == "features", !sawFeatures, stream.skipWhitespace() == UInt8(ascii: "[") {
                stream.advance(1)
                sawFeatures = true
                membersBeforeFeatures = members.count
                try readCRS()
                mode = .features(first: true)
                return
            }
            members.append(JSONMember(name: name, value: try parse(stream.takeValue())))
        }
    }

    /// The document's `crs`, from the members read so far.
    private mutating func readCRS() throws(TreasureFileError) {
        guard let crs = members.last(where: { $0.name == "crs" })?.value, crs != .null else {
            return
        }
        var name = ""
        if case .string(let text)? = crs["properties"]?["name"] {
            name = text
        } else if case .string(let text)? = crs["properties"]?["href"] {
            name = text
        } else {
            name = crs.jsonText
        }
        let folded = name.uppercased()
        let code = folded.split(whereSeparator: { ":/".contains($0) }).last.map(String.init) ?? ""
        if folded.hasSuffix("CRS84") || folded.hasSuffix("CRS:84") || code == "4326" {
            projection = .lonLat
        } else if ["3857", "900913", "3785", "102100", "102113"].contains(code) {
            projection = .webMercator
            notes.converted = name
        } else {
            throw TreasureFileError(
                code: DiagnosticCode.brokenJSON,
                message: "the crs '\(TreasureCheck.shown(name))' is not one trove reads",
                location: .init(file: displayPath),
                hint: "reproject to WGS 84, e.g. ogr2ogr -t_srs EPSG:4326 out.geojson "
                    + "\(displayPath); CRS84, EPSG:4326 and EPSG:3857 are read")
        }
    }

    /// At the end of the top-level object: a FeatureCollection is done; any other object
    /// is one Feature, or the first of several values.
    private mutating func finishDocument() throws(TreasureFileError) {
        let more = stream.skipWhitespace() != nil
        if sawFeatures {
            let after = members[membersBeforeFeatures...]
            if let crs = after.last(where: { $0.name == "crs" })?.value, crs != .null {
                let before = projection
                try readCRS()
                if projection != before {
                    throw TreasureFileError(
                        code: DiagnosticCode.brokenJSON,
                        message: "the crs comes after the features it is about",
                        location: .init(file: displayPath),
                        hint: "put the crs member before features")
                }
            }
            if more {
                throw syntax(
                    JSONSyntaxError(
                        message: "unexpected data after the document", line: 1, column: 1),
                    line: stream.line, column: stream.column)
            }
            mode = .finished
            return
        }
        let value = JSONValue.object(members)
        if more {
            pending = [Entry(value: value, path: "", line: 1)]
            mode = .values
            return
        }
        switch value["type"] {
        case .string("Feature"):
            pending = [Entry(value: value, path: "")]
            mode = .finished
        case .string("FeatureCollection"):
            throw structure("the FeatureCollection has no 'features' array")
        case .string(let other):
            throw structure("the document is a \(other), not a FeatureCollection or a Feature")
        default:
            throw structure("the document is \(value.kind) without a GeoJSON 'type'")
        }
    }

    /// The next feature, or nil at the end.
    mutating func nextEntry() throws(TreasureFileError) -> Entry? {
        while true {
            if !pending.isEmpty { return pending.removeFirst() }
            if stream.failed { throw readFailure() }
            switch mode {
            case .start, .finished:
                return nil
            case .members:
                try readMembers()
            case .features(let first):
                guard let byte = stream.skipWhitespace() else {
                    throw syntax(
                        JSONSyntaxError(
                            message: "the text ends inside the features array", line: 1, column: 1),
                        line: stream.line, column: stream.column)
                }
                if byte == UInt8(ascii: "]") {
                    stream.advance(1)
                    mode = .members
                    continue
                }
                if !first {
                    guard byte == UInt8(ascii: ",") else {
                        throw syntax(
                            JSONSyntaxError(
                                message: "expected ',' or ']' after a feature", line: 1, column: 1),
                            line: stream.line, column: stream.column)
                    }
                    stream.advance(1)
                }
                mode = .features(first: false)
                let value = try parse(stream.takeValue())
                return Entry(value: value, path: "features[\(index)]")
            case .values:
                guard stream.skipWhitespace() != nil else {
                    mode = .finished
                    return nil
                }
                let taken = stream.takeValue()
                return Entry(value: try parse(taken), path: "", line: taken.line)
            case .lines, .sequence:
                let separator: UInt8 = mode.isSequence ? 0x1E : 0x0A
                if mode.isSequence, stream.skipWhitespace() == 0x1E { stream.advance(1) }
                let startLine = stream.line
                guard stream.peek() != nil else {
                    mode = .finished
                    return nil
                }
                let raw = stream.take(through: separator)
                try checkLimit(line: startLine)
                if let entry = try record(raw, line: startLine) { return entry }
            }
        }
    }

    /// One record of a newline-delimited file or text sequence, parsed on its own; a
    /// record that is not JSON is kept as broken, with its line, for the reader to report;
    /// nil for a blank one.
    private func record(_ raw: [UInt8], line: Int) throws(TreasureFileError) -> Entry? {
        guard raw.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D })
        else { return nil }
        let leadingBreaks = raw.prefix { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
            .count { $0 == 0x0A }
        let bytes = try text(raw, line: line)
        var parser = JSONParser(bytes)
        do throws(JSONSyntaxError) {
            let value = try parser.parseValue()
            if !parser.atEnd() {
                let at = parser.nextLine()
                return Entry(
                    value: .null, path: "", line: line + at - 1,
                    broken: (
                        "unexpected data after the value", 1, String(decoding: bytes, as: UTF8.self)
                    ))
            }
            return Entry(value: value, path: "", line: line + leadingBreaks)
        } catch {
            return Entry(
                value: .null, path: "", line: line + error.line - 1,
                broken: (error.message, error.column, String(decoding: bytes, as: UTF8.self)))
        }
    }

    /// Feature `index`'s JSON text (a broken record as written), for the rejects file:
    /// the features are read again up to it.
    static func featureTexts(
        _ wanted: Set<Int>, stream: JSONStream, displayPath: String, encoding: TextEncoding
    ) -> [Int: String] {
        guard
            var source = try? GeoJSONTreasureSource(
                stream: stream, displayPath: displayPath, encoding: encoding)
        else { return [:] }
        var texts: [Int: String] = [:]
        var index = 0
        while texts.count < wanted.count, let entry = try? source.nextEntry() {
            if wanted.contains(index) {
                texts[index] =
                    entry.broken.map { $0.text.trimmingCharacters(in: .whitespacesAndNewlines) }
                    ?? entry.value.jsonText
            }
            index += 1
        }
        return texts
    }

    /// The next treasure row, or nil at the end.
    /// - Throws: ``TreasureFileError`` when the rest of the file is not JSON.
    package mutating func next() throws(TreasureFileError) -> TreasureRow? {
        guard let entry = try nextEntry() else { return nil }
        defer { index += 1 }
        if case .object(let members)? = entry.value["properties"] {
            for member in members where seenNames.insert(member.name).inserted {
                propertyNames.append(member.name)
            }
        }
        let row = row(entry, index: index)
        if case .treasure(let input) = row, input.extra.first?.name == "alt",
            seenNames.insert("alt").inserted
        {
            propertyNames.append("alt")
        }
        return row
    }

    /// What to say once about the file, after its last feature.
    var warnings: [Diagnostic] { notes.warnings(file: displayPath, features: index) }

    // MARK: - Mapping

    /// A feature as a treasure, or the first thing that keeps it from being one.
    private mutating func row(_ entry: Entry, index: Int) -> TreasureRow {
        var feature = Feature(
            entry: entry,
            location: Diagnostic.Location(file: displayPath, line: entry.line, feature: index))
        if let broken = entry.broken {
            feature.location.column = broken.column
            return .invalid(
                Diagnostic(
                    .error, DiagnosticCode.brokenJSON, "broken JSON: \(broken.message)",
                    at: feature.location, hint: "each line must hold one whole GeoJSON Feature"))
        }
        do throws(Feature.Refusal) {
            let properties = try feature.properties(index: index)
            let (columns, _) = TreasureField.match(
                properties.map(\.name), fields: [.key, .name, .image, .description])
            let keyColumn = try feature.key(properties: properties, columns: columns)
            let name = try feature.name(properties: properties, columns: columns)
            noteValuesNotText(feature, properties: properties, columns: columns)
            let (coordinates, latitude, longitude) = try position(of: feature)
            func optionalText(_ field: TreasureField) -> String? {
                columns[field].flatMap { Self.text(properties[$0].value) }.flatMap {
                    $0.isEmpty ? nil : $0
                }
            }
            let used = [keyColumn, columns[.name], columns[.image], columns[.description]]
            return .treasure(
                TreasureInput(
                    key: feature.location.key, name: name, latitude: latitude,
                    longitude: longitude, image: optionalText(.image),
                    description: optionalText(.description),
                    extra: Self.extras(
                        properties: properties, used: used, coordinates: coordinates),
                    location: feature.location))
        } catch {
            return .invalid(error.diagnostic)
        }
    }

    /// Name and description values that are not text are noted once for the file.
    private mutating func noteValuesNotText(
        _ feature: Feature, properties: [JSONMember], columns: [TreasureField: Int]
    ) {
        for field in [TreasureField.name, .description] {
            guard let column = columns[field] else { continue }
            switch properties[column].value {
            case .string, .null: continue
            case let other:
                var location = feature.location
                location.key = nil
                location.jsonPath = feature.path("properties.\(properties[column].name)")
                notes.notText(
                    field: field.label, property: properties[column].name, kind: other.kind,
                    at: location)
            }
        }
    }

    /// The feature's Point as latitude and longitude, checked, with its coordinates (a third
    /// one is the altitude).
    private mutating func position(of feature: Feature) throws(Feature.Refusal) -> (
        coordinates: [JSONValue], latitude: Double, longitude: Double
    ) {
        guard let geometry = feature.entry.value["geometry"], geometry != .null else {
            throw feature.refusal(
                DiagnosticCode.missingPosition, "the feature has no geometry", at: "geometry")
        }
        guard case .string(let type)? = geometry["type"] else {
            throw feature.refusal(
                DiagnosticCode.brokenJSON, "the geometry has no type", at: "geometry.type")
        }
        guard type == "Point" else {
            throw feature.refusal(
                DiagnosticCode.notAPoint, "the geometry is a \(type), not a Point",
                at: "geometry.type",
                hint: "treasures are points; reduce other shapes to one position")
        }
        guard case .array(let coordinates)? = geometry["coordinates"], coordinates.count >= 2
        else {
            throw feature.refusal(
                DiagnosticCode.missingPosition,
                "the Point needs coordinates [longitude, latitude]", at: "geometry.coordinates")
        }
        var values: [(value: Double, text: String)] = []
        for axis in 0..<2 {
            let name = (axis == 0) != swapCoordinates ? "longitude" : "latitude"
            let at = "geometry.coordinates[\(axis)]"
            guard case .number(let text) = coordinates[axis] else {
                throw feature.refusal(
                    DiagnosticCode.notANumber,
                    "\(name) is \(coordinates[axis].kind), not a number", at: at)
            }
            guard let value = Double(text), value.isFinite else {
                throw feature.refusal(
                    DiagnosticCode.notANumber, "\(name) \(text) is not a finite number", at: at)
            }
            values.append((value, text))
        }
        if swapCoordinates { values.swapAt(0, 1) }
        var longitude = values[0]
        var latitude = values[1]
        if projection == .webMercator {
            let (lat, lon) = Self.inverseWebMercator(x: longitude.value, y: latitude.value)
            longitude = (lon, "\(lon) (x \(longitude.text))")
            latitude = (lat, "\(lat) (y \(latitude.text))")
        }
        let swappedWouldDo = Coordinate.isValid(
            latitude: longitude.value, longitude: latitude.value)
        let asGiven = Coordinate.isValid(latitude: latitude.value, longitude: longitude.value)
        notes.position(validAsGiven: asGiven, validSwapped: swappedWouldDo)
        for (axis, coordinate) in [(0, longitude), (1, latitude)] {
            let written = swapCoordinates ? 1 - axis : axis
            do throws(TreasureCheck.Problem) {
                if axis == 0 {
                    try TreasureCheck.longitude(coordinate.value, text: coordinate.text)
                } else {
                    try TreasureCheck.latitude(coordinate.value, text: coordinate.text)
                }
            } catch {
                var hint: String?
                if projection == .lonLat && !asGiven && swappedWouldDo && !swapCoordinates {
                    hint =
                        "the position is valid as [latitude, longitude]: if the file is written "
                        + "so, pass --swap-coordinates"
                } else if projection == .lonLat, abs(coordinate.value) > 1000 {
                    hint =
                        "this looks like a projected coordinate (metres); GeoJSON positions are "
                        + "degrees: give the file a crs member, or reproject it to EPSG:4326"
                }
                throw feature.refusal(
                    error.code, error.message, at: "geometry.coordinates[\(written)]", hint: hint)
            }
        }
        return (coordinates, latitude.value, longitude.value)
    }

    /// The properties not used for a field, as extra fields: text as it is, other values
    /// as JSON; a third coordinate is the altitude, `{alt}` in layouts.
    private static func extras(
        properties: [JSONMember], used: [Int?], coordinates: [JSONValue]
    ) -> [ExtraField] {
        // An `id` property that did not become the key is data like any other.
        var extra: [ExtraField] = []
        if coordinates.count >= 3, case .number(let altitude) = coordinates[2],
            !properties.contains(where: { $0.name == "alt" })
        {
            extra.append(ExtraField(name: "alt", json: altitude))
        }
        for column in properties.indices where !used.contains(column) {
            let member = properties[column]
            switch member.value {
            // `null` is no value: nothing is stored, so an export writes nothing.
            case .null: continue
            case .string(let text): extra.append(ExtraField(name: member.name, value: text))
            default: extra.append(ExtraField(name: member.name, json: member.value.jsonText))
            }
        }
        return extra
    }

    /// Latitude and longitude of a Web Mercator (EPSG:3857) position in metres.
    static func inverseWebMercator(x: Double, y: Double) -> (latitude: Double, longitude: Double) {
        let radius = 6_378_137.0
        let longitude = x / radius * 180 / .pi
        let latitude = (2 * atan(exp(y / radius)) - .pi / 2) * 180 / .pi
        // Rounded to 1e-9 degrees (0.1 mm), so the conversion adds no noise digits.
        func rounded(_ value: Double) -> Double { (value * 1e9).rounded() / 1e9 }
        return (rounded(latitude), rounded(longitude))
    }

    /// A value as text: strings as they are, `null` as nothing, the rest as JSON text.
    package static func text(_ value: JSONValue) -> String? {
        switch value {
        case .null: nil
        case .string(let text): text
        default: value.jsonText
        }
    }
}

/// What the GeoJSON reader notices about a whole file, to say once.
struct GeoJSONNotes {
    /// The crs the positions were converted from.
    var converted: String?
    private var notText: (count: Int, first: Diagnostic.Location, what: String)?
    private var positions = 0
    private var onlySwapped = 0

    mutating func notText(
        field: String, property: String, kind: String, at location: Diagnostic.Location
    ) {
        if let current = notText {
            notText?.count = current.count + 1
        } else {
            notText = (1, location, "the \(field) '\(property)' is \(kind), not text")
        }
    }

    package mutating func position(validAsGiven: Bool, validSwapped: Bool) {
        positions += 1
        if !validAsGiven && validSwapped { onlySwapped += 1 }
    }

    func warnings(file: String, features: Int) -> [Diagnostic] {
        var warnings: [Diagnostic] = []
        if let converted {
            warnings.append(
                Diagnostic(
                    .warning, DiagnosticCode.convertedCoordinates,
                    "positions converted from '\(TreasureCheck.shown(converted))' (Web "
                        + "Mercator, metres) to longitude and latitude",
                    at: .init(file: file)))
        }
        if let notText {
            let others = notText.count - 1
            warnings.append(
                Diagnostic(
                    .warning, DiagnosticCode.notText,
                    notText.what + "; it is stored as its JSON text"
                        + (others > 0
                            ? " (and in \(others) more feature\(others == 1 ? "" : "s"))" : ""),
                    at: notText.first, hint: "write it as a string"))
        }
        if positions > 0, onlySwapped == positions {
            warnings.append(
                Diagnostic(
                    .warning, DiagnosticCode.swappedCoordinates,
                    "every position of the file is valid only as [latitude, longitude]: the "
                        + "file is written lat,lon",
                    at: .init(file: file), hint: "import it with --swap-coordinates"))
        }
        return warnings
    }
}
