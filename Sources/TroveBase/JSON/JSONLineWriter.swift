/// Writes a JSON array or object an element at a time, each element on a line of its own:
/// the one way trove lays out a listing it streams, so no listing glues its own brackets,
/// commas and line breaks.
///
/// The caller writes `opening`, then `next()` before each element and the element itself,
/// then `closing`:
///
///     [                      [
///       {"key": "a"},          ]        (breaksWhenEmpty)
///       {"key": "b"}         []         (otherwise)
///     ]
///
/// Only the separators are the writer's; elements are written by whoever makes them, so a
/// long listing streams in chunks without being held whole.
public struct JSONLineWriter: Sendable {
    /// Which brackets enclose the elements.
    public enum Kind: Sendable {
        case array
        case object
    }

    private let kind: Kind
    private let indent: [UInt8]
    private let closingIndent: [UInt8]
    private let breaksWhenEmpty: Bool
    /// Elements follow each other on one line, `[a, b]`, instead of a line each.
    private var inline = false
    /// The elements begun so far.
    public private(set) var count = 0

    /// A writer of one array or object.
    ///
    /// - Parameter indent: what each element's line starts with.
    /// - Parameter closingIndent: what the closing bracket's line starts with.
    /// - Parameter breaksWhenEmpty: an empty listing still puts its closing bracket on a
    ///   line of its own, rather than right after the opening one.
    public init(
        _ kind: Kind = .array, indent: String = "  ", closingIndent: String = "",
        breaksWhenEmpty: Bool = false
    ) {
        self.kind = kind
        self.indent = Array(indent.utf8)
        self.closingIndent = Array(closingIndent.utf8)
        self.breaksWhenEmpty = breaksWhenEmpty
    }

    /// A writer of one array or object on a single line, `[a, b]` or `{"a": 1, "b": 2}`,
    /// as the one-line summaries of `--format json` print it.
    public static func inline(_ kind: Kind = .array) -> JSONLineWriter {
        var writer = JSONLineWriter(kind, indent: "")
        writer.inline = true
        return writer
    }

    /// The opening bracket.
    public var opening: String { kind == .array ? "[" : "{" }

    /// What goes before the next element: a comma from the second element on, a line break
    /// and the indent.
    public mutating func next() -> String {
        var text: [UInt8] = []
        appendNext(to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// What closes the listing: the closing bracket, on a line of its own unless the
    /// listing is empty (and does not break when empty).
    public var closing: String {
        var text: [UInt8] = []
        appendClosing(to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// `next()`, appended to bytes (for writers that build their lines as bytes).
    package mutating func appendNext(to output: inout some JSONOutput) {
        defer { count += 1 }
        if inline {
            if count > 0 {
                output.write(byte: UInt8(ascii: ","))
                output.write(byte: UInt8(ascii: " "))
            }
            return
        }
        if count > 0 { output.write(byte: UInt8(ascii: ",")) }
        output.write(byte: 0x0A)
        output.write(indent)
    }

    /// `closing`, appended to bytes.
    package func appendClosing(to output: inout some JSONOutput) {
        if !inline && (count > 0 || breaksWhenEmpty) {
            output.write(byte: 0x0A)
            output.write(closingIndent)
        }
        output.write(byte: UInt8(ascii: kind == .array ? "]" : "}"))
    }

    /// A whole listing of elements already made, each element's JSON text on a line.
    public static func text(
        _ elements: some Sequence<String>, _ kind: Kind = .array, indent: String = "  ",
        closingIndent: String = "", breaksWhenEmpty: Bool = false
    ) -> String {
        var writer = JSONLineWriter(
            kind, indent: indent, closingIndent: closingIndent, breaksWhenEmpty: breaksWhenEmpty)
        var text = writer.opening
        for element in elements { text += writer.next() + element }
        return text + writer.closing
    }
}
