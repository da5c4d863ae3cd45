/// Where JSON text is written: a byte array, or a faster buffer for long listings.
package protocol JSONOutput {
    mutating func write(_ bytes: UnsafeBufferPointer<UInt8>)
    mutating func write(byte: UInt8)
}

extension [UInt8]: JSONOutput {
    package mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) { append(contentsOf: bytes) }
    package mutating func write(byte: UInt8) { append(byte) }
}

extension JSONOutput {
    package mutating func write(_ bytes: [UInt8]) { bytes.withUnsafeBufferPointer { write($0) } }
}

/// How trove prints JSON scalars, shared by every export file.
package enum JSONText {
    /// Appends `text` as a JSON string literal, escaping what `jsonString` escapes.
    /// `text` as a JSON string, quotes included: the one escaper, as `appendString`.
    package static func quoted(_ text: String) -> String {
        var bytes: [UInt8] = []
        appendString(text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    package static func appendString(_ text: String, to output: inout some JSONOutput) {
        var text = text
        text.withUTF8 { appendString(bytes: $0, to: &output) }
    }

    /// Per byte, whether it may start an escape: controls, `"`, `\\`, DEL, and the first
    /// bytes of the characters escaped beyond JSON's own (see `escapedScalar`): 0xC2 (C1
    /// controls), 0xD8 (U+061C) and 0xE2 (U+2028, U+2029 and the bidi controls).
    private static let mayEscape: [Bool] = (0..<256).map {
        $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x7F || $0 == 0xC2 || $0 == 0xD8
            || $0 == 0xE2
    }

    /// The character that the UTF-8 at `index` encodes when it is one written as a `\u`
    /// escape although JSON allows it raw, and its length: U+2028 and U+2029, which end
    /// lines in JavaScript; the C1 controls (U+0080–009F), which terminals obey as ESC
    /// sequences; and the bidirectional controls (U+202A–202E, U+2066–2069, U+200E,
    /// U+200F, U+061C), which reorder what a line shows. The text is the same JSON either
    /// way, and JSON output can go to a terminal as it is (`TerminalText` has nothing left
    /// to escape in it).
    @inline(__always)
    private static func escapedScalar(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int)
        -> (value: UInt32, length: Int)?
    {
        let count = bytes.count
        switch bytes[index] {
        case 0xC2:
            guard index + 1 < count, (0x80...0x9F).contains(bytes[index + 1]) else { return nil }
            return (UInt32(bytes[index + 1]), 2)
        case 0xD8:
            guard index + 1 < count, bytes[index + 1] == 0x9C else { return nil }
            return (0x061C, 2)
        case 0xE2:
            guard index + 2 < count else { return nil }
            let second = bytes[index + 1]
            let third = bytes[index + 2]
            let value = 0x2000 | (UInt32(second & 0x3F) << 6) | UInt32(third & 0x3F)
            switch (second, third) {
            case (0x80, 0x8E), (0x80, 0x8F), (0x80, 0xA8...0xAE), (0x81, 0xA6...0xA9):
                return (value, 3)
            default: return nil
            }
        default: return nil
        }
    }

    /// Whether any of the eight bytes of `word` may start an escape, or is not ASCII: a
    /// control, `"`, `\\`, DEL or a byte from 0x80. True can be a false alarm for the
    /// bytes above the first match (the byte loop decides); false is never wrong.
    @inline(__always)
    private static func mayNeedEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        /// Some byte of `v` is below `n` (n <= 128).
        func below(_ v: UInt64, _ n: UInt64) -> Bool { (v &- ones &* n) & ~v & highs != 0 }
        return word & highs != 0 || below(word, 0x20) || below(word ^ (ones &* 0x22), 1)
            || below(word ^ (ones &* 0x5C), 1) || below(word ^ (ones &* 0x7F), 1)
    }

    /// Appends UTF-8 `bytes` as a JSON string literal.
    package static func appendString(
        bytes: UnsafeBufferPointer<UInt8>, to output: inout some JSONOutput
    ) {
        output.write(byte: UInt8(ascii: "\""))
        // Runs of bytes that need no escaping (nearly all text) are copied whole; the first
        // byte that may need one is looked for eight at a time.
        var clean = 0
        let count = bytes.count
        if let base = bytes.baseAddress, count >= 8 {
            let raw = UnsafeRawPointer(base)
            while clean + 8 <= count
                && !mayNeedEscape(raw.loadUnaligned(fromByteOffset: clean, as: UInt64.self))
            {
                clean += 8
            }
            // The last few bytes, in the word that ends the text (overlapping the clean
            // ones before): most text needs no byte loop at all.
            if clean < count && clean + 8 > count
                && !mayNeedEscape(raw.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self))
            {
                clean = count
            }
        }
        if clean == count {
            output.write(bytes)
            output.write(byte: UInt8(ascii: "\""))
            return
        }
        mayEscape.withUnsafeBufferPointer { mayEscape in
            var runStart = 0
            var index = clean
            while index < count {
                let byte = bytes[index]
                guard mayEscape[Int(byte)] else {
                    index += 1
                    continue
                }
                var escaped: (value: UInt32, length: Int)?
                if byte >= 0x80 {
                    // Other characters starting with these bytes are written as they are.
                    escaped = escapedScalar(bytes, at: index)
                    if escaped == nil {
                        index += 1
                        continue
                    }
                }
                output.write(UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                if let escaped {
                    appendUnicodeEscape(escaped.value, to: &output)
                    index += escaped.length
                    runStart = index
                    continue
                }
                switch byte {
                case 0x22, 0x5C:
                    output.write(byte: 0x5C)
                    output.write(byte: byte)
                case 0x0A:
                    output.write(byte: 0x5C)
                    output.write(byte: UInt8(ascii: "n"))
                case 0x0D:
                    output.write(byte: 0x5C)
                    output.write(byte: UInt8(ascii: "r"))
                case 0x09:
                    output.write(byte: 0x5C)
                    output.write(byte: UInt8(ascii: "t"))
                default:
                    appendUnicodeEscape(UInt32(byte), to: &output)
                }
                index += 1
                runStart = index
            }
            output.write(UnsafeBufferPointer(rebasing: bytes[runStart..<count]))
        }
        output.write(byte: UInt8(ascii: "\""))
    }

    private static func appendUnicodeEscape(_ value: UInt32, to output: inout some JSONOutput) {
        let hex = Array("0123456789abcdef".utf8)
        output.write(byte: 0x5C)
        output.write(byte: UInt8(ascii: "u"))
        for shift in stride(from: 12, through: 0, by: -4) {
            output.write(byte: hex[Int((value >> UInt32(shift)) & 0xF)])
        }
    }

    /// Appends `value` the way JavaScript's `Number.prototype.toString` prints it: the
    /// shortest digits that read back as the same double, integral values without `.0`,
    /// and exponent notation only below 1e-6 or from 1e21. `-0` keeps its sign so that the
    /// bits read back unchanged.
    package static func appendNumber(_ value: Double, to output: inout some JSONOutput) {
        if value == 0 {
            if value.sign == .minus { output.write(byte: UInt8(ascii: "-")) }
            output.write(byte: UInt8(ascii: "0"))
            return
        }
        if value.magnitude < 9.0e15, value == value.rounded(.towardZero) {
            appendInteger(Int64(value), to: &output)
            return
        }
        if appendShortDecimal(value, to: &output) { return }
        var text: [UInt8] = []
        appendShortestDigits(value, to: &text)
        output.write(text)
    }

    /// `appendNumber` for what is neither integral nor a short decimal.
    private static func appendShortestDigits(_ value: Double, to output: inout [UInt8]) {
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

    /// Appends `value` when it is exactly what a decimal with at most six places reads
    /// back as (coordinates usually are), without the general shortest-digits search;
    /// false (nothing appended) otherwise.
    ///
    /// Dividing the exact integer N by 10^6 is correctly rounded, so `N / 1e6 == value`
    /// means the text of N/10^6 reads back as `value`. Below 1e9 two different six-place
    /// decimals are over a thousand units in the last place apart, so no other text of at
    /// most six places reads back the same, and dropping trailing zeros gives the shortest.
    private static func appendShortDecimal(_ value: Double, to output: inout some JSONOutput)
        -> Bool
    {
        let magnitude = value.magnitude
        guard magnitude < 1e9, magnitude >= 1e-6 else { return false }
        let scaled = (magnitude * 1e6).rounded()
        let units = Int64(scaled)
        var fraction = units % 1_000_000
        guard fraction != 0, Double(units) / 1e6 == magnitude else { return false }
        if value < 0 { output.write(byte: UInt8(ascii: "-")) }
        appendInteger(units / 1_000_000, to: &output)
        var places = 6
        while fraction % 10 == 0 {
            fraction /= 10
            places -= 1
        }
        output.write(byte: UInt8(ascii: "."))
        var divisor: Int64 = 1
        for _ in 1..<places { divisor *= 10 }
        while divisor > 0 {
            output.write(byte: UInt8(ascii: "0") + UInt8(fraction / divisor % 10))
            divisor /= 10
        }
        return true
    }

    /// Appends a whole number in decimal.
    package static func appendInteger(_ value: Int64, to output: inout some JSONOutput) {
        if value < 0 { output.write(byte: UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes hold any Int64
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[23 - count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            let bytes = UnsafeRawBufferPointer(rebasing: buffer[(24 - count)...])
            output.write(bytes.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// `value` as JSON number text.
    package static func number(_ value: Double) -> String {
        var bytes: [UInt8] = []
        appendNumber(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// `text` as a JSON string literal (U+2028 and U+2029 escaped too, for JavaScript).
public func jsonString(_ text: String) -> String {
    var bytes: [UInt8] = []
    JSONText.appendString(text, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
}

/// A double as the shortest JSON number text that reads back as the same value, as
/// JavaScript prints it (`41` rather than `41.0`).
public func jsonNumber(_ value: Double) -> String {
    JSONText.number(value)
}
