/// The members of a JSON object found in its text: each name, and where its value's
/// bytes lie, without reading the values. For a large answer whose values are used one by
/// one (a page of a database location), this spares building a tree of all of them.
package enum JSONMembers {
    /// The members of the object `bytes` holds, in order; nil when `bytes` is not an
    /// object or not one this can split (the values are not checked, only their bounds).
    package static func split(_ bytes: [UInt8]) -> [(name: String, value: Range<Int>)]? {
        bytes.withUnsafeBufferPointer { split($0) }
    }

    private static func split(_ bytes: UnsafeBufferPointer<UInt8>) -> [(
        name: String, value: Range<Int>
    )]? {
        var index = skipSpace(bytes, 0)
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { return nil }
        index = skipSpace(bytes, index + 1)
        var members: [(name: String, value: Range<Int>)] = []
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            return skipSpace(bytes, index + 1) == bytes.count ? members : nil
        }
        while true {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\""),
                let nameEnd = stringEnd(bytes, index), let name = name(bytes, index..<nameEnd)
            else { return nil }
            index = skipSpace(bytes, nameEnd)
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
            let start = skipSpace(bytes, index + 1)
            guard let end = valueEnd(bytes, start) else { return nil }
            members.append((name, start..<end))
            index = skipSpace(bytes, end)
            guard index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: "}") {
                return skipSpace(bytes, index + 1) == bytes.count ? members : nil
            }
            guard bytes[index] == UInt8(ascii: ",") else { return nil }
            index = skipSpace(bytes, index + 1)
        }
    }

    private static func skipSpace(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int {
        var index = start
        while index < bytes.count,
            bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D
                || bytes[index] == 0x09
        {
            index += 1
        }
        return index
    }

    /// Where the string that opens at `start` (its quote) ends, after its closing quote.
    private static func stringEnd(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int? {
        var index = start + 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""): return index + 1
            case UInt8(ascii: "\\"): index += 2
            default: index += 1
            }
        }
        return nil
    }

    /// A member's name: as it is when it holds no escape, else read by the parser.
    private static func name(_ bytes: UnsafeBufferPointer<UInt8>, _ quoted: Range<Int>) -> String? {
        let inner = UnsafeBufferPointer(
            rebasing: bytes[quoted.lowerBound + 1..<quoted.upperBound - 1])
        if !inner.contains(UInt8(ascii: "\\")) {
            return String(validating: inner, as: UTF8.self)
        }
        var parser = JSONParser(Array(UnsafeBufferPointer(rebasing: bytes[quoted])))
        guard case .string(let name)? = try? parser.parseValue() else { return nil }
        return name
    }

    /// Where the value that starts at `start` ends: a string or a container by its
    /// brackets (strings inside skipped), anything else at the next delimiter.
    private static func valueEnd(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int? {
        guard start < bytes.count else { return nil }
        switch bytes[start] {
        case UInt8(ascii: "\""):
            return stringEnd(bytes, start)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            var index = start
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    guard let end = stringEnd(bytes, index) else { return nil }
                    index = end
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return index + 1 }
                default: break
                }
                index += 1
            }
            return nil
        case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: ":"):
            return nil
        default:
            var index = start
            while index < bytes.count,
                ![
                    UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x0A, 0x0D,
                    0x09,
                ].contains(bytes[index])
            {
                index += 1
            }
            return index
        }
    }
}
