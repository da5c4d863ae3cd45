// MARK: - Encodings

/// The text encodings trove reads input files in.
///
/// UTF-8 is the default and is validated; the others exist because spreadsheets on
/// Windows save CSV as cp1252, and are transcoded to UTF-8 while reading.
public enum TextEncoding: String, Sendable, CaseIterable {
    case utf8 = "utf-8"
    /// Windows-1252 (the WHATWG mapping: bytes it leaves undefined become C1 controls).
    case cp1252
    /// ISO 8859-1: every byte is the Unicode scalar of the same value.
    case latin1

    /// The encoding for a command-line name such as `utf8`, `UTF-8`, `cp1252`,
    /// `windows-1252`, `latin1` or `iso-8859-1`.
    public init?(name: String) {
        switch name.lowercased() {
        case "utf8", "utf-8": self = .utf8
        case "cp1252", "windows-1252", "win1252": self = .cp1252
        case "latin1", "latin-1", "iso-8859-1", "iso8859-1": self = .latin1
        default: return nil
        }
    }

    /// The text of some bytes, or `nil` when they are not valid UTF-8 (only UTF-8 can
    /// fail: every byte means something in the other two).
    package func decode(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        switch self {
        case .utf8:
            guard UTF8Validation.firstInvalidOffset(in: bytes) == nil else { return nil }
            return String(unsafeUninitializedCapacity: bytes.count) { target in
                _ = target.initialize(from: bytes)
                return bytes.count
            }
        case .cp1252, .latin1:
            if UTF8Validation.isASCII(bytes) {
                return String(decoding: bytes, as: UTF8.self)
            }
            var text = String()
            text.reserveCapacity(bytes.count * 2)
            for byte in bytes {
                let scalar: UInt32
                if self == .cp1252, byte >= 0x80, byte <= 0x9F {
                    scalar = UInt32(Self.cp1252High[Int(byte - 0x80)])
                } else {
                    scalar = UInt32(byte)
                }
                // Every table entry is a valid scalar; the fallback is never taken.
                text.unicodeScalars.append(Unicode.Scalar(scalar) ?? "\u{FFFD}")
            }
            return text
        }
    }

    /// cp1252's 0x80–0x9F. The five bytes cp1252 leaves undefined (0x81, 0x8D, 0x8F,
    /// 0x90, 0x9D) map to the C1 control of the same value, as browsers do.
    static let cp1252High: [UInt16] = [
        0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
        0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,
        0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
        0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
    ]
}

// MARK: - UTF-8 validation

/// A UTF-8 validator that says where the first bad byte is, so errors can name the line.
package enum UTF8Validation {
    /// Whether every byte is ASCII, eight bytes at a time.
    package static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        var index = 0
        let count = bytes.count
        while index + 8 <= count {
            let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            if word & 0x8080_8080_8080_8080 != 0 { return false }
            index += 8
        }
        while index < count {
            if base[index] >= 0x80 { return false }
            index += 1
        }
        return true
    }

    /// The offset of the first byte that does not belong to well-formed UTF-8 (no
    /// overlong forms, no surrogates, nothing above U+10FFFF), or `nil`.
    package static func firstInvalidOffset(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        if isASCII(bytes) { return nil }
        let count = bytes.count
        var index = 0
        func continuation(_ offset: Int, _ range: ClosedRange<UInt8> = 0x80...0xBF) -> Bool {
            offset < count && range.contains(bytes[offset])
        }
        while index < count {
            let lead = bytes[index]
            switch lead {
            case 0x00...0x7F:
                index += 1
            case 0xC2...0xDF:
                guard continuation(index + 1) else { return index }
                index += 2
            case 0xE0...0xEF:
                let second: ClosedRange<UInt8> =
                    lead == 0xE0 ? 0xA0...0xBF : lead == 0xED ? 0x80...0x9F : 0x80...0xBF
                guard continuation(index + 1, second), continuation(index + 2) else {
                    return index
                }
                index += 3
            case 0xF0...0xF4:
                let second: ClosedRange<UInt8> =
                    lead == 0xF0 ? 0x90...0xBF : lead == 0xF4 ? 0x80...0x8F : 0x80...0xBF
                guard continuation(index + 1, second), continuation(index + 2),
                    continuation(index + 3)
                else { return index }
                index += 4
            default:
                return index
            }
        }
        return nil
    }
}
