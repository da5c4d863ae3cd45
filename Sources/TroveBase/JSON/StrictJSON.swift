// The JSON documents people write for the export (layouts, the rules file beside them)
// are read into the one `JSONValue`, more strictly than a record's JSON: a repeated
// member name is refused (which one would win is unclear), every number must read as a
// finite double (a Realtime Database number is one), and nothing may follow the value.

extension JSONValue {
    /// Parses one JSON text (RFC 8259) under the rules above; a UTF-8 byte order mark is
    /// tolerated, as editors on Windows write one.
    ///
    /// - Throws: `ExportJSONError` with the line and column of the problem.
    package init(parsingStrictly bytes: some Collection<UInt8>) throws(ExportJSONError) {
        var bytes = Array(bytes)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        var parser = JSONParser(bytes)
        do {
            self = try parser.parseValue()
        } catch {
            throw ExportJSONError(line: error.line, column: error.column, message: error.message)
        }
        if !parser.atEnd() {
            let line = parser.nextLine()
            throw ExportJSONError(line: line, column: 0, message: "unexpected data after the value")
        }
        try checkStrictly()
    }

    /// Refuses repeated member names and numbers out of a double's range, depth first in
    /// document order.
    private func checkStrictly() throws(ExportJSONError) {
        switch self {
        case .null, .bool, .string: return
        case .number(let text):
            guard let number = Double(text), number.isFinite else {
                throw ExportJSONError(line: 0, column: 0, message: "number \(text) is out of range")
            }
        case .array(let elements):
            for element in elements { try element.checkStrictly() }
        case .object(let members):
            var names = Set<String>()
            for member in members {
                guard names.insert(member.name).inserted else {
                    throw ExportJSONError(
                        line: 0, column: 0, message: "the key '\(member.name)' appears twice")
                }
                try member.value.checkStrictly()
            }
        }
    }
}

/// Why a layout or rules file is not JSON the export reads.
package struct ExportJSONError: Error, CustomStringConvertible, Sendable {
    /// 1-based line and column of the problem (0 when it concerns a whole value).
    package let line: Int
    package let column: Int
    /// What was expected or found there.
    package let message: String

    /// The problem in words that read well after `error: `.
    package var description: String {
        line > 0
            ? "invalid JSON at line \(line), column \(column): \(message)"
            : "invalid JSON: \(message)"
    }
}
