import Foundation
import TroveBase

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

    package init(_ json: JSONValue, records: Layout.Records, layout: String, path: String)
        throws(LayoutError)
    {
        switch json {
        case .null: self = .absent
        case .bool(let value): self = .literal(Array((value ? "true" : "false").utf8))
        case .number(let text):
            // Strict reading checked that it reads as a finite double.
            var bytes: [UInt8] = []
            JSONText.appendNumber(Double(text) ?? 0, to: &bytes)
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
            for (key, value) in members.map({ ($0.name, $0.value) }).sorted(by: {
                $0.0.utf8.lexicographicallyPrecedes($1.0.utf8)
            }) {
                if key != ".priority" && key != ".value",
                    let reason = FirebaseKey.problem(key)
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
            let keys = members.map(\.name).filter { $0 != ".priority" && $0 != ".value" }
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
    package let text: String
    let segments: [TextTemplate]
    package let value: ValueTemplate

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

    package init(path: String, value json: JSONValue, records: Layout.Records, layout: String)
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
                let reason = FirebaseKey.problem(literal)
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
