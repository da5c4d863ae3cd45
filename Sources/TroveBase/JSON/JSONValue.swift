// MARK: - Values

/// A parsed JSON value that keeps what GeoJSON import needs and Foundation's parser
/// loses: numbers as their text (so `7` stays `"7"` and coordinates read as the exact
/// doubles written) and object members in file order (extras keep their order).
package indirect enum JSONValue: Equatable {
    case null
    case bool(Bool)
    /// The number's text as written, already checked against JSON's grammar.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([JSONMember])

    /// The value of an object's member, the last one when a name repeats (as
    /// JavaScript's `JSON.parse` does).
    package subscript(name: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.name == name }?.value
    }

    /// A string's text, or nil.
    package var stringValue: String? {
        guard case .string(let text) = self else { return nil }
        return text
    }

    /// A boolean's value, or nil.
    package var boolValue: Bool? {
        guard case .bool(let value) = self else { return nil }
        return value
    }

    /// The word for the value's kind, for messages.
    package var kind: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// Compact JSON text; numbers exactly as written.
    package var jsonText: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .number(let text): return text
        case .string(let text): return JSONText.quoted(text)
        case .array(let values): return "[" + values.map(\.jsonText).joined(separator: ",") + "]"
        case .object(let members):
            return "{"
                + members.map { JSONText.quoted($0.name) + ":" + $0.value.jsonText }.joined(
                    separator: ",") + "}"
        }
    }
}

/// One member of a JSON object.
package struct JSONMember: Equatable {
    package var name: String
    package var value: JSONValue

    package init(name: String, value: JSONValue) {
        self.name = name
        self.value = value
    }
}
