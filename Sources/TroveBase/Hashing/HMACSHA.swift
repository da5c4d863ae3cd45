/// HMAC-SHA256 (RFC 2104, FIPS 198-1) over the house's `SHA256`: review sheets sign their
/// decision files with it.
package enum HMACSHA256 {
    /// The 32-byte authentication code of `message` under `key`.
    package static func code(key: [UInt8], message: [UInt8]) -> [UInt8] {
        // Keys longer than a block are hashed first; shorter ones are padded with zeros.
        var block = key.count > 64 ? SHA256.digest(key) : key
        block += [UInt8](repeating: 0, count: 64 - block.count)
        var inner = SHA256()
        inner.update(block.map { $0 ^ 0x36 })
        inner.update(message)
        var outer = SHA256()
        outer.update(block.map { $0 ^ 0x5c })
        outer.update(inner.finish())
        return outer.finish()
    }

    /// The code as lower-case hex.
    package static func hex(key: [UInt8], message: [UInt8]) -> String {
        hexText(code(key: key, message: message))
    }

    /// Bytes as lower-case hex.
    package static func hexText(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Hex text as bytes, nil unless it is an even number of hex digits.
    package static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case 48...57: return digit - 48
            case 97...102: return digit - 87
            case 65...70: return digit - 55
            default: return nil
            }
        }
        var result: [UInt8] = []
        result.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else {
                return nil
            }
            result.append(high << 4 | low)
            index += 2
        }
        return result
    }

    /// Compares two codes in time that does not depend on where they first differ.
    package static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
