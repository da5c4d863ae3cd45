/// A value trove can print as JSON, always the same way: strings escaped as `jsonString`
/// escapes them, doubles as JavaScript prints them (`40`, not `40.0`), nil as `null`.
///
/// Output that programs read is built from these rather than glued from strings, so that
/// no listing prints a number or an escape differently from another.
public protocol JSONWritable {
    /// The value as JSON text.
    var jsonText: String { get }
}

extension String: JSONWritable {
    public var jsonText: String { jsonString(self) }
}

extension Double: JSONWritable {
    public var jsonText: String { jsonNumber(self) }
}

extension Int: JSONWritable {
    public var jsonText: String { String(self) }
}

extension Int64: JSONWritable {
    public var jsonText: String { String(self) }
}

extension Bool: JSONWritable {
    public var jsonText: String { self ? "true" : "false" }
}

extension Optional: JSONWritable where Wrapped: JSONWritable {
    public var jsonText: String { self?.jsonText ?? "null" }
}

extension Array: JSONWritable where Element: JSONWritable {
    /// `[a, b]` on one line.
    public var jsonText: String { "[" + map(\.jsonText).joined(separator: ", ") + "]" }
}

/// A JSON object with its members in the order given, printed on one line as
/// `{"name": value, "other": value}`.
public struct JSONObject: JSONWritable {
    private var members: [(name: String, text: String)] = []

    /// An object with no members yet.
    public init() {}

    /// An object with these members, in this order.
    public init(_ members: KeyValuePairs<String, any JSONWritable>) {
        for (name, value) in members { add(name, value) }
    }

    /// Adds a member; a repeated name is written twice, so callers do not repeat one.
    public mutating func add(_ name: String, _ value: some JSONWritable) {
        members.append((name, value.jsonText))
    }

    /// Adds a member whose value is JSON text another writer already made (a listing
    /// with its own line breaks).
    public mutating func add(_ name: String, json text: String) {
        members.append((name, text))
    }

    /// Adds the members of `other` after these, in their order: one object made of two,
    /// rather than one's text spliced into the other's. A name both hold is written twice,
    /// as with `add`, so the two objects hold different names.
    public mutating func merge(_ other: JSONObject) {
        members += other.members
    }

    /// This object with the members of `other` after its own (see `merge`).
    public func merging(_ other: JSONObject) -> JSONObject {
        var merged = self
        merged.merge(other)
        return merged
    }

    public var jsonText: String {
        "{" + members.map { jsonString($0.name) + ": " + $0.text }.joined(separator: ", ") + "}"
    }

    /// The object with no space after its colons and commas, as stored in the workspace.
    public var compactJSONText: String {
        "{" + members.map { jsonString($0.name) + ":" + $0.text }.joined(separator: ",") + "}"
    }
}

/// Elements already written as JSON text, as one array with no space after its commas,
/// `[a,b]`: the compact form of `JSONObject.compactJSONText`, as stored in the workspace.
public func compactJSONArray(_ elements: some Sequence<String>) -> String {
    "[" + elements.joined(separator: ",") + "]"
}
