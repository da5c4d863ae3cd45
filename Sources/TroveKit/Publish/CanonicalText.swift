import TroveBase

/// The canonical text of a rendered value (`CanonicalValue`) straight from its JSON
/// bytes, with no tree in between, for the values trove renders most: objects whose
/// members come in ascending name order, arrays of at most ten elements (whose indexes
/// sort as their numbers do), numbers, booleans and strings of printable ASCII.
///
/// Anything else (a null, an empty object or array, a priority, a member out of order, an
/// escape, other characters) is left to the tree: `canonical` returns nil, and nothing of
/// what it found counts. A refresh compares every rendered value of a target this way, a
/// million of them for a million treasures.
struct CanonicalText {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0
    private(set) var output: [UInt8] = []

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        output.reserveCapacity(bytes.count + 16)
    }

    /// The canonical text of `json`, or nil when the tree has to make it.
    static func canonical(_ json: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var text = CanonicalText(json)
        guard text.value() else { return nil }
        text.skipSpace()
        return text.index == json.count ? text.output : nil
    }

    private mutating func skipSpace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) {
            index += 1
        }
    }

    private mutating func value() -> Bool {
        skipSpace()
        guard index < bytes.count else { return false }
        switch bytes[index] {
        case UInt8(ascii: "{"): return object()
        case UInt8(ascii: "["): return array()
        case UInt8(ascii: "\""):
            guard let range = string() else { return false }
            appendQuoted(range)
            return true
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
        default: return false
        }
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
            return false
        }
        output.append(contentsOf: bytes[index..<index + count])
        index += count
        return true
    }

    /// A string's contents (without quotes) when every byte is printable ASCII and none
    /// is escaped: written as they are by `JSONText.appendString` too.
    private mutating func string() -> Range<Int>? {
        index += 1
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return start..<index - 1
            }
            guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") else { return nil }
            index += 1
        }
        return nil
    }

    private mutating func appendQuoted(_ range: Range<Int>) {
        output.append(UInt8(ascii: "\""))
        output.append(contentsOf: bytes[range])
        output.append(UInt8(ascii: "\""))
    }

    /// A number as JSON spells it (`JSONNumberGrammar`), as the double it stands for.
    private mutating func number() -> Bool {
        let start = index
        guard let end = try? JSONNumberGrammar.end(in: bytes, from: start) else { return false }
        index = end
        guard index - start <= 32,
            let number = Double(String(decoding: bytes[start..<index], as: UTF8.self))
        else { return false }
        JSONText.appendNumber(number, to: &output)
        return true
    }

    private mutating func object() -> Bool {
        depth += 1
        defer { depth -= 1 }
        guard depth <= 32 else { return false }
        index += 1
        output.append(UInt8(ascii: "{"))
        var previous: Range<Int>?
        while true {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\""),
                let name = string(), !name.isEmpty, bytes[name.lowerBound] != UInt8(ascii: ".")
            else { return false }
            if let previous {
                guard bytes[previous].lexicographicallyPrecedes(bytes[name]) else { return false }
                output.append(UInt8(ascii: ","))
            }
            previous = name
            appendQuoted(name)
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return false }
            index += 1
            output.append(UInt8(ascii: ":"))
            guard value() else { return false }
            skipSpace()
            guard index < bytes.count else { return false }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                output.append(UInt8(ascii: "}"))
                return true
            }
            guard bytes[index] == UInt8(ascii: ",") else { return false }
            index += 1
        }
    }

    private mutating func array() -> Bool {
        depth += 1
        defer { depth -= 1 }
        guard depth <= 32 else { return false }
        index += 1
        output.append(UInt8(ascii: "{"))
        for position in 0..<10 {
            if position > 0 { output.append(UInt8(ascii: ",")) }
            output.append(contentsOf: [
                UInt8(ascii: "\""), UInt8(ascii: "0") + UInt8(position), UInt8(ascii: "\""),
                UInt8(ascii: ":"),
            ])
            guard value() else { return false }
            skipSpace()
            guard index < bytes.count else { return false }
            if bytes[index] == UInt8(ascii: "]") {
                index += 1
                output.append(UInt8(ascii: "}"))
                return true
            }
            guard bytes[index] == UInt8(ascii: ",") else { return false }
            index += 1
        }
        return false
    }
}
