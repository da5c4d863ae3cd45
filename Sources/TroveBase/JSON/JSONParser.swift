/// Text that is not JSON, with the 1-based line and column of the offending byte.
package struct JSONSyntaxError: Error, Equatable {
    package var message: String
    package var line: Int
    package var column: Int

    package init(message: String, line: Int, column: Int) {
        self.message = message
        self.line = line
        self.column = column
    }
}

// MARK: - Parser

/// A strict RFC 8259 parser over UTF-8 bytes that reads one or more whitespace-separated
/// values (a document, or newline-delimited records).
package struct JSONParser {
    private let bytes: [UInt8]
    private var index = 0
    /// Deep enough for any GeoJSON, shallow enough that hostile input cannot exhaust
    /// the stack.
    private let maximumDepth = 512

    package init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Whether only white space is left.
    package mutating func atEnd() -> Bool {
        skipWhitespace()
        return index == bytes.count
    }

    /// The 1-based line of the next value. Counts on from the last call, so reading
    /// newline-delimited records line by line stays linear.
    package mutating func nextLine() -> Int {
        skipWhitespace()
        while countedOffset < index {
            if bytes[countedOffset] == 0x0A { countedLine += 1 }
            countedOffset += 1
        }
        return countedLine
    }
    private var countedOffset = 0
    private var countedLine = 1

    /// Reads the next value.
    package mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
        skipWhitespace()
        return try value(depth: 0)
    }

    // MARK: Grammar

    private mutating func value(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard depth < maximumDepth else { throw error("nested more than \(maximumDepth) deep") }
        guard index < bytes.count else { throw error("the text ends where a value should be") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw error("unexpected \(describe(bytes[index]))")
        }
    }

    private mutating func object(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        index += 1
        var members: [JSONMember] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw error("expected a member name in quotes")
            }
            let name = try string()
            skipWhitespace()
            try expect(UInt8(ascii: ":"), "expected ':' after the member name")
            skipWhitespace()
            members.append(JSONMember(name: name, value: try value(depth: depth + 1)))
            skipWhitespace()
            guard index < bytes.count else { throw error("the object is not closed with '}'") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            } else {
                throw error("expected ',' or '}' in the object, found \(describe(bytes[index]))")
            }
        }
    }

    private mutating func array(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        index += 1
        var values: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(values)
        }
        while true {
            skipWhitespace()
            values.append(try value(depth: depth + 1))
            skipWhitespace()
            guard index < bytes.count else { throw error("the array is not closed with ']'") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(values)
            } else {
                throw error("expected ',' or ']' in the array, found \(describe(bytes[index]))")
            }
        }
    }

    private mutating func string() throws(JSONSyntaxError) -> String {
        let opening = index
        index += 1
        var text: [UInt8] = []
        while true {
            guard index < bytes.count else {
                index = opening
                throw error("the string that starts here is not closed")
            }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                // The input was validated as UTF-8, and escapes add only whole scalars.
                return String(decoding: text, as: UTF8.self)
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw error("the string is not closed") }
                let escaped = bytes[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "\""): text.append(0x22)
                case UInt8(ascii: "\\"): text.append(0x5C)
                case UInt8(ascii: "/"): text.append(0x2F)
                case UInt8(ascii: "b"): text.append(0x08)
                case UInt8(ascii: "f"): text.append(0x0C)
                case UInt8(ascii: "n"): text.append(0x0A)
                case UInt8(ascii: "r"): text.append(0x0D)
                case UInt8(ascii: "t"): text.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hexQuad()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard index + 1 < bytes.count, bytes[index] == 0x5C,
                            bytes[index + 1] == UInt8(ascii: "u")
                        else { throw error("a \\u escape holds half a surrogate pair") }
                        index += 2
                        let low = try hexQuad()
                        guard (0xDC00...0xDFFF).contains(low) else {
                            throw error("a \\u escape holds half a surrogate pair")
                        }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let value = Unicode.Scalar(scalar) else {
                        throw error("a \\u escape holds half a surrogate pair")
                    }
                    text.append(contentsOf: Array(String(Character(value)).utf8))
                default:
                    index -= 1
                    throw error("unknown escape \\\(describe(escaped))")
                }
            case 0x00...0x1F:
                throw error("a control character inside a string must be escaped")
            default:
                text.append(byte)
                index += 1
            }
        }
    }

    private mutating func hexQuad() throws(JSONSyntaxError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("a \\u escape needs four hex digits") }
        var value: UInt32 = 0
        for byte in bytes[index..<index + 4] {
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - 0x30)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - 0x61 + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - 0x41 + 10)
            default: throw error("a \\u escape needs four hex digits")
            }
            value = value << 4 | digit
        }
        index += 4
        return value
    }

    private mutating func number() throws(JSONSyntaxError) -> JSONValue {
        let start = index
        let scanned = bytes.withUnsafeBufferPointer {
            buffer -> Result<Int, JSONNumberGrammar.Failure> in
            do throws(JSONNumberGrammar.Failure) {
                return .success(try JSONNumberGrammar.end(in: buffer, from: start))
            } catch {
                return .failure(error)
            }
        }
        switch scanned {
        case .success(let end): index = end
        case .failure(let failure):
            index = failure.index
            throw error(failure.message)
        }
        return .number(String(decoding: bytes[start..<index], as: UTF8.self))
    }

    private mutating func literal(_ word: String, _ value: JSONValue) throws(JSONSyntaxError)
        -> JSONValue
    {
        let expected = Array(word.utf8)
        guard index + expected.count <= bytes.count,
            Array(bytes[index..<index + expected.count]) == expected
        else { throw error("unexpected \(describe(bytes[index]))") }
        index += expected.count
        return value
    }

    // MARK: Helpers

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func expect(_ byte: UInt8, _ message: String) throws(JSONSyntaxError) {
        guard index < bytes.count, bytes[index] == byte else { throw error(message) }
        index += 1
    }

    private func describe(_ byte: UInt8) -> String {
        (0x21...0x7E).contains(byte)
            ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
    }

    private func position(of offset: Int) -> (line: Int, column: Int) {
        var line = 1
        var lineStart = 0
        for position in 0..<min(offset, bytes.count) where bytes[position] == 0x0A {
            line += 1
            lineStart = position + 1
        }
        return (line, offset - lineStart + 1)
    }

    private func error(_ message: String) -> JSONSyntaxError {
        let (line, column) = position(of: index)
        return JSONSyntaxError(message: message, line: line, column: column)
    }
}
