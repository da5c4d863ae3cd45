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
    /// - Throws: `ExportJSONError` with the byte offset of the problem.
    public init(parsing bytes: some Collection<UInt8>) throws(ExportJSONError) {
        var parser = ExportJSONParser(bytes: Array(bytes))
        self = try parser.parseDocument()
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
    /// Byte offset of the problem.
    public let offset: Int
    /// What was expected or found there.
    public let message: String

    /// The problem in words that read well after `error: `.
    public var description: String { "invalid JSON at byte \(offset): \(message)" }
}

// MARK: - Parsing

struct ExportJSONParser {
    let bytes: [UInt8]
    var index = 0
    var depth = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func parseDocument() throws(ExportJSONError) -> ExportJSON {
        // A UTF-8 byte order mark is tolerated, as editors on Windows write one.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        let value = try parseValue()
        skipWhitespace()
        if index < bytes.count { throw error("unexpected data after the value") }
        return value
    }

    private func error(_ message: String) -> ExportJSONError {
        ExportJSONError(offset: index, message: message)
    }

    private mutating func skipWhitespace() {
        while index < bytes.count,
            bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D
                || bytes[index] == 0x09
        {
            index += 1
        }
    }

    private mutating func parseValue() throws(ExportJSONError) -> ExportJSON {
        skipWhitespace()
        guard index < bytes.count else { throw error("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try parseWord("true", .bool(true))
        case UInt8(ascii: "f"): return try parseWord("false", .bool(false))
        case UInt8(ascii: "n"): return try parseWord("null", .null)
        default: return try parseNumber()
        }
    }

    private mutating func parseWord(_ word: String, _ value: ExportJSON)
        throws(ExportJSONError) -> ExportJSON
    {
        let expected = Array(word.utf8)
        guard bytes.count - index >= expected.count,
            Array(bytes[index..<index + expected.count]) == expected
        else { throw error("unexpected character") }
        index += expected.count
        return value
    }

    private mutating func enter() throws(ExportJSONError) {
        depth += 1
        // Deep nesting would exhaust the stack; no layout needs anywhere near this.
        if depth > 512 { throw error("nested too deeply") }
    }

    private mutating func parseObject() throws(ExportJSONError) -> ExportJSON {
        try enter()
        defer { depth -= 1 }
        index += 1
        var members: [String: ExportJSON] = [:]
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw error("expected a string key")
            }
            let keyOffset = index
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw error("expected ':'")
            }
            index += 1
            let value = try parseValue()
            if members.updateValue(value, forKey: key) != nil {
                throw ExportJSONError(offset: keyOffset, message: "duplicate key \"\(key)\"")
            }
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            throw error("expected ',' or '}'")
        }
    }

    private mutating func parseArray() throws(ExportJSONError) -> ExportJSON {
        try enter()
        defer { depth -= 1 }
        index += 1
        var elements: [ExportJSON] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            elements.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            throw error("expected ',' or ']'")
        }
    }

    private mutating func parseString() throws(ExportJSONError) -> String {
        index += 1
        var scalars: [UInt8] = []
        while true {
            guard index < bytes.count else { throw error("unterminated string") }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                break
            }
            if byte < 0x20 { throw error("control character in a string") }
            if byte != UInt8(ascii: "\\") {
                scalars.append(byte)
                index += 1
                continue
            }
            index += 1
            guard index < bytes.count else { throw error("unterminated string") }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""): scalars.append(0x22)
            case UInt8(ascii: "\\"): scalars.append(0x5C)
            case UInt8(ascii: "/"): scalars.append(0x2F)
            case UInt8(ascii: "b"): scalars.append(0x08)
            case UInt8(ascii: "f"): scalars.append(0x0C)
            case UInt8(ascii: "n"): scalars.append(0x0A)
            case UInt8(ascii: "r"): scalars.append(0x0D)
            case UInt8(ascii: "t"): scalars.append(0x09)
            case UInt8(ascii: "u"):
                var code = try parseHex4()
                if (0xD800..<0xDC00).contains(code) {
                    // A high surrogate must be followed by an escaped low one.
                    guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                        bytes[index + 1] == UInt8(ascii: "u")
                    else { throw error("unpaired surrogate") }
                    index += 2
                    let low = try parseHex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw error("unpaired surrogate") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00..<0xE000).contains(code) {
                    throw error("unpaired surrogate")
                }
                guard let scalar = Unicode.Scalar(code) else { throw error("invalid escape") }
                scalars.append(contentsOf: Array(String(Character(scalar)).utf8))
            default: throw error("invalid escape")
            }
        }
        guard let text = String(validating: scalars, as: UTF8.self) else {
            throw error("string is not valid UTF-8")
        }
        return text
    }

    private mutating func parseHex4() throws(ExportJSONError) -> UInt32 {
        guard bytes.count - index >= 4 else { throw error("invalid \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("invalid \\u escape")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    private mutating func parseNumber() throws(ExportJSONError) -> ExportJSON {
        let start = index
        func digits(_ parser: inout ExportJSONParser) -> Int {
            let from = parser.index
            while parser.index < parser.bytes.count,
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(parser.bytes[parser.index])
            {
                parser.index += 1
            }
            return parser.index - from
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        let integerStart = index
        let integerDigits = digits(&self)
        if integerDigits == 0 { throw error("unexpected character") }
        if integerDigits > 1 && bytes[integerStart] == UInt8(ascii: "0") {
            throw error("leading zero in a number")
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            if digits(&self) == 0 { throw error("expected a digit after '.'") }
        }
        if index < bytes.count,
            bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")
        {
            index += 1
            if index < bytes.count,
                bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")
            {
                index += 1
            }
            if digits(&self) == 0 { throw error("expected a digit in the exponent") }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw ExportJSONError(offset: start, message: "number out of range")
        }
        return .number(value)
    }
}

// MARK: - Writing

/// How trove prints JSON scalars, shared by every export file.
enum JSONText {
    /// Appends `text` as a JSON string literal, escaping what `jsonString` escapes.
    static func appendString(_ text: String, to output: inout [UInt8]) {
        var text = text
        text.withUTF8 { appendString(bytes: $0, to: &output) }
    }

    /// Appends UTF-8 `bytes` as a JSON string literal.
    static func appendString(bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        // Most text needs no escaping: copy it in one go.
        if !bytes.contains(where: {
            $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x7F || $0 == 0xE2
        }) {
            output.append(contentsOf: bytes)
            output.append(UInt8(ascii: "\""))
            return
        }
        var index = 0
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            switch byte {
            case 0x22:
                output.append(0x5C)
                output.append(0x22)
            case 0x5C:
                output.append(0x5C)
                output.append(0x5C)
            case 0x0A:
                output.append(0x5C)
                output.append(UInt8(ascii: "n"))
            case 0x0D:
                output.append(0x5C)
                output.append(UInt8(ascii: "r"))
            case 0x09:
                output.append(0x5C)
                output.append(UInt8(ascii: "t"))
            case 0..<0x20, 0x7F:
                appendUnicodeEscape(UInt32(byte), to: &output)
            case 0xE2
            where index + 2 < count && bytes[index + 1] == 0x80
                && (bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9):
                // U+2028 and U+2029 end lines in JavaScript, so they are escaped.
                appendUnicodeEscape(bytes[index + 2] == 0xA8 ? 0x2028 : 0x2029, to: &output)
                index += 2
            default:
                output.append(byte)
            }
            index += 1
        }
        output.append(UInt8(ascii: "\""))
    }

    private static func appendUnicodeEscape(_ value: UInt32, to output: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        output.append(contentsOf: [0x5C, UInt8(ascii: "u")])
        for shift in stride(from: 12, through: 0, by: -4) {
            output.append(hex[Int((value >> UInt32(shift)) & 0xF)])
        }
    }

    /// Appends `value` the way JavaScript's `Number.prototype.toString` prints it: the
    /// shortest digits that read back as the same double, integral values without `.0`,
    /// and exponent notation only below 1e-6 or from 1e21. `-0` keeps its sign so that the
    /// bits read back unchanged.
    static func appendNumber(_ value: Double, to output: inout [UInt8]) {
        if value == 0 {
            output.append(contentsOf: value.sign == .minus ? Array("-0".utf8) : [0x30])
            return
        }
        if value.magnitude < 9.0e15, value == value.rounded(.towardZero) {
            appendInteger(Int64(value), to: &output)
            return
        }
        // Swift's description holds the shortest round-trip digits. In plain decimal
        // notation (no exponent, not integral) it is already what JavaScript prints.
        var text = value.description
        let plain = text.withUTF8 { bytes -> Bool in
            if bytes.contains(UInt8(ascii: "e")) { return false }
            output.append(contentsOf: bytes)
            return true
        }
        if plain { return }
        let description = Array(text.utf8)
        var digits: [UInt8] = []
        var pointPosition = 0
        var exponent = 0
        var seenPoint = false
        var index = 0
        var negative = false
        if description.first == UInt8(ascii: "-") {
            negative = true
            index = 1
        }
        while index < description.count {
            let byte = description[index]
            if byte == UInt8(ascii: ".") {
                seenPoint = true
            } else if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
                let exponentText = String(decoding: description[(index + 1)...], as: UTF8.self)
                exponent =
                    Int(
                        exponentText.hasPrefix("+")
                            ? String(exponentText.dropFirst()) : exponentText) ?? 0
                break
            } else {
                digits.append(byte)
                if !seenPoint { pointPosition += 1 }
            }
            index += 1
        }
        // value = 0.DIGITS × 10^n
        var n = pointPosition + exponent
        while let first = digits.first, first == UInt8(ascii: "0"), digits.count > 1 {
            digits.removeFirst()
            n -= 1
        }
        while let last = digits.last, last == UInt8(ascii: "0"), digits.count > 1 {
            digits.removeLast()
        }
        let k = digits.count
        if negative { output.append(UInt8(ascii: "-")) }
        if k <= n && n <= 21 {
            output.append(contentsOf: digits)
            output.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: n - k))
        } else if 0 < n && n <= 21 {
            output.append(contentsOf: digits[0..<n])
            output.append(UInt8(ascii: "."))
            output.append(contentsOf: digits[n...])
        } else if -6 < n && n <= 0 {
            output.append(contentsOf: Array("0.".utf8))
            output.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: -n))
            output.append(contentsOf: digits)
        } else {
            output.append(digits[0])
            if k > 1 {
                output.append(UInt8(ascii: "."))
                output.append(contentsOf: digits[1...])
            }
            output.append(UInt8(ascii: "e"))
            output.append(UInt8(ascii: n - 1 < 0 ? "-" : "+"))
            appendInteger(Int64((n - 1).magnitude), to: &output)
        }
    }

    /// Appends a whole number in decimal.
    static func appendInteger(_ value: Int64, to output: inout [UInt8]) {
        if value < 0 { output.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes hold any Int64
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[23 - count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            output.append(contentsOf: buffer[(24 - count)...])
        }
    }

    /// `value` as JSON number text.
    static func number(_ value: Double) -> String {
        var bytes: [UInt8] = []
        appendNumber(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
