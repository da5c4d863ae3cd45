/// A parsed JSON value, as layouts and extra columns are read.
///
/// Numbers are kept as doubles (a Realtime Database number is a double); object member
/// order is not kept, because everything trove writes has its keys sorted.
public enum ExportJSON: Equatable, Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// Any number, as the double it reads as.
    case number(Double)
    /// A string.
    case string(String)
    /// An array, in order.
    case array([ExportJSON])
    /// An object; member order is not kept.
    case object([String: ExportJSON])

    /// Parses one JSON text (RFC 8259), refusing duplicate keys and trailing data.
    ///
    /// - Throws: `ExportJSONError` with the line and column of the problem.
    public init(parsing bytes: some Collection<UInt8>) throws(ExportJSONError) {
        var bytes = Array(bytes)
        // A UTF-8 byte order mark is tolerated, as editors on Windows write one.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        var parser = JSONParser(bytes)
        let value: JSONValue
        do {
            value = try parser.parseValue()
        } catch {
            throw ExportJSONError(line: error.line, column: error.column, message: error.message)
        }
        if !parser.atEnd() {
            let line = parser.nextLine()
            throw ExportJSONError(line: line, column: 0, message: "unexpected data after the value")
        }
        self = try ExportJSON(value)
    }

    /// Converts a parsed value: numbers to the doubles they read as, objects to
    /// dictionaries (a repeated member name is refused: which one would win is unclear).
    private init(_ value: JSONValue) throws(ExportJSONError) {
        switch value {
        case .null: self = .null
        case .bool(let bool): self = .bool(bool)
        case .string(let string): self = .string(string)
        case .number(let text):
            guard let number = Double(text), number.isFinite else {
                throw ExportJSONError(line: 0, column: 0, message: "number \(text) is out of range")
            }
            self = .number(number)
        case .array(let elements):
            var converted: [ExportJSON] = []
            converted.reserveCapacity(elements.count)
            for element in elements { converted.append(try ExportJSON(element)) }
            self = .array(converted)
        case .object(let members):
            var converted: [String: ExportJSON] = [:]
            for member in members {
                guard converted[member.name] == nil else {
                    throw ExportJSONError(
                        line: 0, column: 0, message: "the key '\(member.name)' appears twice")
                }
                converted[member.name] = try ExportJSON(member.value)
            }
            self = .object(converted)
        }
    }

    /// Parses one JSON text given as a string.
    ///
    /// - Throws: `ExportJSONError`.
    public init(parsing text: String) throws(ExportJSONError) {
        try self.init(parsing: Array(text.utf8))
    }

    /// The members of an object, or nil.
    public var objectValue: [String: ExportJSON]? {
        if case .object(let members) = self { return members }
        return nil
    }
}

/// Why a JSON text could not be parsed.
public struct ExportJSONError: Error, CustomStringConvertible, Sendable {
    /// 1-based line and column of the problem (0 when it concerns a whole value).
    public let line: Int
    public let column: Int
    /// What was expected or found there.
    public let message: String

    /// The problem in words that read well after `error: `.
    public var description: String {
        line > 0
            ? "invalid JSON at line \(line), column \(column): \(message)"
            : "invalid JSON: \(message)"
    }
}
