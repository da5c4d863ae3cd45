import Foundation

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
    /// `true` or `false` (also `yes`/`no`, `1`/`0`, `vrai`/`faux`, `wahr`/`falsch`,
    /// `sí`/`no`, `ja`/`nein`, `oui`/`non`, any case).
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
    package init?(_ text: String, records: Layout.Records) {
        let simple: [String: Field]
        switch records {
        case .treasures:
            simple = [
                "key": .key, "name": .name, "description": .description, "lat": .lat,
                "lon": .lon, "geohash": .geohash,
                // A GeoJSON position's third coordinate, kept as the extra `alt`.
                "alt": .extra("alt", .number),
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
    package init(_ text: String, records: Layout.Records, layout: String, path: String)
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
