import Foundation

/// An export layout: which records it iterates and the database paths each one writes.
///
/// Read from JSON of the form
/// `{"records": "treasures", "paths": {"treasureLocations/{key}": {"g": "{geohash}"}}}`.
/// Everything that can be checked without data is checked when the layout is read, so
/// that a broken layout fails before any record is looked at.
public struct Layout: Sendable {
    /// What a layout iterates.
    public enum Records: String, Sendable {
        /// Every treasure.
        case treasures
        /// Approved posts only, always.
        case posts
    }

    /// A short name for messages and for the export state: the built-in name, or the path.
    public let name: String
    /// What the layout iterates.
    public let records: Records
    /// The path templates, sorted by their text so that runs are repeatable.
    let paths: [PathTemplate]

    /// Rendition names the layout refers to (`image.full.url` → `full`), sorted.
    let renditionNames: [String]
    /// Whether some placeholder reads an extra column.
    let usesExtra: Bool

    /// Reads a layout from JSON text.
    ///
    /// - Parameter name: how messages and the export state refer to this layout.
    /// - Throws: `LayoutError`.
    public init(name: String, json: some Collection<UInt8>) throws(LayoutError) {
        self.name = name
        let document: ExportJSON
        do {
            document = try ExportJSON(parsing: json)
        } catch {
            throw LayoutError(layout: name, problem: .unreadable(error.description))
        }
        guard let members = document.objectValue else {
            throw LayoutError(layout: name, problem: .shape("a layout is a JSON object"))
        }
        for key in members.keys where key != "records" && key != "paths" {
            throw LayoutError(
                layout: name, problem: .shape("unknown member \"\(key)\" (expected records, paths)")
            )
        }
        guard case .string(let recordsText) = members["records"] ?? .null,
            let records = Records(rawValue: recordsText)
        else {
            throw LayoutError(
                layout: name, problem: .shape("\"records\" must be \"treasures\" or \"posts\""))
        }
        self.records = records
        guard let pathMembers = members["paths"]?.objectValue, !pathMembers.isEmpty else {
            throw LayoutError(
                layout: name, problem: .shape("\"paths\" must be an object with at least one path"))
        }
        var compiled: [PathTemplate] = []
        var fields: [Field] = []
        for (pathText, valueJSON) in pathMembers.sorted(by: {
            $0.key.utf8.lexicographicallyPrecedes($1.key.utf8)
        }) {
            let template = try PathTemplate(
                path: pathText, value: valueJSON, records: records, layout: name)
            compiled.append(template)
            fields += template.fields
        }
        paths = compiled
        renditionNames = Set(fields.compactMap(\.renditionName)).sorted()
        usesExtra = fields.contains { if case .extra = $0 { return true } else { return false } }
    }

    /// Reads a layout file.
    ///
    /// - Throws: `InputError` when the file cannot be read, `LayoutError` when it is not
    ///   a valid layout.
    public init(contentsOf url: URL, name: String? = nil) throws {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw InputError(url.path, "cannot read the layout file")
        }
        try self.init(name: name ?? url.path, json: Array(data))
    }

    /// The database paths written as GeoFire indexes (their value has `g` and `l`), as
    /// templates such as `treasureLocations/{key}`.
    public var geoFireNodes: [String] {
        paths.filter(\.isGeoFireNode).map(\.text)
    }

    /// The placeholders a record kind offers, for messages.
    public static func placeholderNames(for records: Records) -> [String] {
        switch records {
        case .treasures:
            return [
                "key", "name", "description", "lat", "lon", "geohash",
                "extra.COLUMN[:text|int|number|bool]",
                "image.RENDITION.url|path|width|height",
            ]
        case .posts:
            return [
                "key", "user", "lat", "lon", "geohash", "description", "date",
                "photo.RENDITION.url|path|width|height",
            ]
        }
    }
}

/// Why a layout cannot be used; the CLI maps it to exit status 2.
public struct LayoutError: Error, CustomStringConvertible, Sendable {
    /// What is wrong.
    public enum Problem: Sendable, Equatable {
        /// The file is not JSON.
        case unreadable(String)
        /// The JSON is not shaped like a layout.
        case shape(String)
        /// A `{placeholder}` the records do not offer.
        case unknownPlaceholder(String, path: String, known: [String])
        /// A literal key the Realtime Database would refuse.
        case illegalKey(String, path: String, reason: String)
        /// A path and value nested deeper than the Realtime Database allows.
        case tooDeep(path: String, depth: Int)
    }

    /// The layout's name or path.
    public let layout: String
    /// What is wrong with it.
    public let problem: Problem

    /// The problem in words that read well after `error: `.
    public var description: String {
        switch problem {
        case .unreadable(let message):
            return "layout \(layout) is not valid JSON: \(message)"
        case .shape(let message):
            return "layout \(layout): \(message)"
        case .unknownPlaceholder(let placeholder, let path, let known):
            return "layout \(layout): unknown placeholder '{\(placeholder)}' in \"\(path)\""
                + " (known: \(known.joined(separator: ", ")))"
        case .illegalKey(let key, let path, let reason):
            return "layout \(layout): key \"\(key)\" in \"\(path)\" \(reason)"
        case .tooDeep(let path, let depth):
            return "layout \(layout): \"\(path)\" nests \(depth) levels deep; "
                + "the Realtime Database allows 31"
        }
    }
}

// MARK: - Placeholders

/// The JSON type a layout asks an extra column to be written as, `{extra.points:int}`.
/// Without one, an extra is written with the type it was read with: text from CSV, the
/// JSON type from GeoJSON.
enum ExtraType: String, Sendable, CaseIterable {
    /// A string (a GeoJSON number as its text).
    case text
    /// A whole number, written as a JSON number.
    case int
    /// Any number, written as a JSON number.
    case number
    /// `true` or `false` (also `yes`/`no`, `1`/`0`, any case).
    case bool
}

/// One value a placeholder reads from a record.
enum Field: Equatable, Sendable {
    case key, name, user, description, date, lat, lon, geohash
    /// An extra column, by its name in the file, and the type asked for.
    case extra(String, ExtraType?)
    case rendition(name: String, part: RenditionPart)

    enum RenditionPart: String, Sendable {
        case url, path, width, height
    }

    var renditionName: String? {
        if case .rendition(let name, _) = self { return name }
        return nil
    }

    /// The record column a path segment made of this field alone can be ordered by in
    /// SQL, so that paths come out of SQLite already in database order.
    var orderColumn: String? {
        switch self {
        case .key: return "key"
        case .name: return "name"
        case .user: return "user"
        case .description: return "description"
        case .date: return "date"
        case .geohash: return "geohash"
        default: return nil
        }
    }

    /// Parses a placeholder name for `records`; nil when unknown.
    init?(_ text: String, records: Layout.Records) {
        let simple: [String: Field]
        switch records {
        case .treasures:
            simple = [
                "key": .key, "name": .name, "description": .description, "lat": .lat,
                "lon": .lon, "geohash": .geohash,
            ]
        case .posts:
            simple = [
                "key": .key, "user": .user, "description": .description, "date": .date,
                "lat": .lat, "lon": .lon, "geohash": .geohash,
            ]
        }
        if let field = simple[text] {
            self = field
            return
        }
        if records == .treasures, text.hasPrefix("extra."), text.count > 6 {
            var name = text.dropFirst(6)
            var type: ExtraType?
            // A known type after the last colon is the type; any other colon is part of
            // the column's name.
            if let colon = name.lastIndex(of: ":"),
                let known = ExtraType(rawValue: String(name[name.index(after: colon)...])),
                colon > name.startIndex
            {
                type = known
                name = name[..<colon]
            }
            self = .extra(String(name), type)
            return
        }
        let imagePrefix = records == .treasures ? "image." : "photo."
        guard text.hasPrefix(imagePrefix) else { return nil }
        let rest = text.dropFirst(imagePrefix.count)
        guard let dot = rest.lastIndex(of: ".") else { return nil }
        let name = String(rest[..<dot])
        guard !name.isEmpty,
            let part = RenditionPart(rawValue: String(rest[rest.index(after: dot)...]))
        else { return nil }
        self = .rendition(name: name, part: part)
    }
}

/// A piece of text with `{placeholder}`s.
enum TextTemplate: Sendable {
    /// Text without placeholders.
    case literal(String)
    /// Exactly one placeholder and nothing else: replaced by the typed value.
    case whole(Field)
    /// Placeholders inside longer text: interpolated into a string.
    case interpolated([Part])

    enum Part: Sendable {
        case text(String)
        case field(Field)
    }

    var fields: [Field] {
        switch self {
        case .literal: return []
        case .whole(let field): return [field]
        case .interpolated(let parts):
            return parts.compactMap {
                if case .field(let field) = $0 { return field } else { return nil }
            }
        }
    }

    /// Splits `text` at `{name}` placeholders, where a name is letters, digits, `.`, `_`
    /// and `-`; other braces are literal text. An extra column's name after `{extra.` is
    /// anything up to the closing brace (`{extra.State Name}`, `{extra.Café}`,
    /// `{extra.a/b}`), as spreadsheets name columns.
    init(_ text: String, records: Layout.Records, layout: String, path: String)
        throws(LayoutError)
    {
        var parts: [Part] = []
        var literal = ""
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character == "{", let close = text[index...].firstIndex(of: "}") {
                let name = String(text[text.index(after: index)..<close])
                let isExtra = records == .treasures && name.hasPrefix("extra.") && name.count > 6
                if isExtra || (!name.isEmpty && name.allSatisfy(Self.isNameCharacter)) {
                    guard let field = Field(name, records: records) else {
                        throw LayoutError(
                            layout: layout,
                            problem: .unknownPlaceholder(
                                name, path: path, known: Layout.placeholderNames(for: records)))
                    }
                    if !literal.isEmpty { parts.append(.text(literal)) }
                    literal = ""
                    parts.append(.field(field))
                    index = text.index(after: close)
                    continue
                }
            }
            literal.append(character)
            index = text.index(after: index)
        }
        if !literal.isEmpty { parts.append(.text(literal)) }
        if parts.isEmpty {
            self = .literal("")
        } else if parts.count == 1, case .field(let field) = parts[0] {
            self = .whole(field)
        } else if parts.count == 1, case .text(let text) = parts[0] {
            self = .literal(text)
        } else {
            self = .interpolated(parts)
        }
    }

    private static func isNameCharacter(_ character: Character) -> Bool {
        character.isASCII
            && (character.isLetter || character.isNumber || character == "." || character == "_"
                || character == "-")
    }
}

// MARK: - Templates

/// A value template: JSON with placeholders, compiled once per layout.
indirect enum ValueTemplate: Sendable {
    /// A scalar written the same for every record, as JSON text.
    case literal([UInt8])
    case text(TextTemplate)
    /// Members sorted by the UTF-8 bytes of their keys; keys pre-escaped as JSON.
    case object([(key: [UInt8], value: ValueTemplate)])
    case array([ValueTemplate])
    /// `null`, `{}` or `[]` in the layout: Firebase stores none of them.
    case absent

    var fields: [Field] {
        switch self {
        case .literal, .absent: return []
        case .text(let text): return text.fields
        case .object(let members): return members.flatMap(\.value.fields)
        case .array(let elements): return elements.flatMap(\.fields)
        }
    }

    /// Levels below this value (a scalar adds none, an object or array one per level).
    var depth: Int {
        switch self {
        case .literal, .absent, .text: return 0
        case .object(let members): return 1 + (members.map(\.value.depth).max() ?? 0)
        case .array(let elements): return 1 + (elements.map(\.depth).max() ?? 0)
        }
    }

    init(_ json: ExportJSON, records: Layout.Records, layout: String, path: String)
        throws(LayoutError)
    {
        switch json {
        case .null: self = .absent
        case .bool(let value): self = .literal(Array((value ? "true" : "false").utf8))
        case .number(let value):
            var bytes: [UInt8] = []
            JSONText.appendNumber(value, to: &bytes)
            self = .literal(bytes)
        case .string(let text):
            let template = try TextTemplate(text, records: records, layout: layout, path: path)
            if case .literal(let literal) = template {
                var bytes: [UInt8] = []
                JSONText.appendString(literal, to: &bytes)
                self = .literal(bytes)
            } else {
                self = .text(template)
            }
        case .array(let elements):
            if elements.isEmpty {
                self = .absent
                return
            }
            var compiled: [ValueTemplate] = []
            for element in elements {
                compiled.append(
                    try ValueTemplate(element, records: records, layout: layout, path: path))
            }
            self = .array(compiled)
        case .object(let members):
            if members.isEmpty {
                self = .absent
                return
            }
            var compiled: [(key: [UInt8], value: ValueTemplate)] = []
            for (key, value) in members.sorted(by: {
                $0.key.utf8.lexicographicallyPrecedes($1.key.utf8)
            }) {
                if key != ".priority" && key != ".value",
                    let reason = FirebaseLimits.keyProblem(key)
                {
                    throw LayoutError(
                        layout: layout, problem: .illegalKey(key, path: path, reason: reason))
                }
                var keyBytes: [UInt8] = []
                JSONText.appendString(key, to: &keyBytes)
                compiled.append(
                    (
                        keyBytes,
                        try ValueTemplate(value, records: records, layout: layout, path: path)
                    ))
            }
            let keys = members.keys.filter { $0 != ".priority" && $0 != ".value" }
            if FirebaseLimits.looksLikeArray(keys) {
                throw LayoutError(
                    layout: layout,
                    problem: .illegalKey(
                        keys.sorted().joined(separator: ", "), path: path,
                        reason: "are all array indices, so Firebase would store an array"))
            }
            self = .object(compiled)
        }
    }
}

/// One `paths` member: a database path template and the value written there per record.
struct PathTemplate: Sendable {
    /// The path as written in the layout.
    let text: String
    let segments: [TextTemplate]
    let value: ValueTemplate

    var fields: [Field] { segments.flatMap(\.fields) + value.fields }

    /// The SQL columns that put this template's paths in database order, or nil when a
    /// segment depends on something SQL cannot order the same way (its paths are then
    /// sorted in memory).
    var orderColumns: [String]? {
        var columns: [String] = []
        for segment in segments {
            switch segment {
            case .literal: continue
            case .whole(let field):
                guard let column = field.orderColumn else { return nil }
                columns.append(column)
            case .interpolated: return nil
            }
        }
        return columns
    }

    /// Whether the value is a GeoFire location (`g` and `l`).
    var isGeoFireNode: Bool {
        guard case .object(let members) = value else { return false }
        let keys = Set(members.map { String(decoding: $0.key, as: UTF8.self) })
        return keys.contains("\"g\"") && keys.contains("\"l\"")
    }

    init(path: String, value json: ExportJSON, records: Layout.Records, layout: String)
        throws(LayoutError)
    {
        text = path
        var trimmed = Substring(path)
        while trimmed.hasPrefix("/") { trimmed = trimmed.dropFirst() }
        while trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard !trimmed.isEmpty else {
            throw LayoutError(
                layout: layout, problem: .shape("the root path \"\(path)\" cannot be written"))
        }
        var compiled: [TextTemplate] = []
        for segment in Self.segments(of: trimmed) {
            let template = try TextTemplate(
                String(segment), records: records, layout: layout, path: path)
            if case .literal(let literal) = template,
                let reason = FirebaseLimits.keyProblem(literal)
            {
                throw LayoutError(
                    layout: layout, problem: .illegalKey(literal, path: path, reason: reason))
            }
            compiled.append(template)
        }
        segments = compiled
        value = try ValueTemplate(json, records: records, layout: layout, path: path)
        let depth = segments.count + value.depth
        if depth >= FirebaseLimits.maximumDepth {
            throw LayoutError(layout: layout, problem: .tooDeep(path: path, depth: depth))
        }
    }

    /// The path split at `/`, except inside a `{...}` placeholder (an extra column may
    /// be named `a/b`).
    static func segments(of path: Substring) -> [Substring] {
        var result: [Substring] = []
        var start = path.startIndex
        var index = path.startIndex
        while index < path.endIndex {
            if path[index] == "{", let close = path[index...].firstIndex(of: "}"),
                path[index..<close].contains("/")
            {
                index = path.index(after: close)
                continue
            }
            if path[index] == "/" {
                result.append(path[start..<index])
                start = path.index(after: index)
            }
            index = path.index(after: index)
        }
        result.append(path[start...])
        return result
    }
}
