import TroveBase

// MARK: - Columns

/// The treasure attributes trove knows, and the column or property names that mean
/// each (compared case-insensitively, the canonical name first).
enum TreasureField: CaseIterable {
    case key, name, latitude, longitude, image, description

    package var names: [String] {
        switch self {
        case .key: ["key", "id"]
        case .name: ["name", "title"]
        case .latitude: FieldNames.latitude
        case .longitude: FieldNames.longitude
        case .image: ["image", "image_path", "imageurl", "photo"]
        case .description: FieldNames.description
        }
    }

    /// The canonical name, for messages.
    package var label: String { names[0] }

    /// For each known field, the index of the column that provides it; every other
    /// column is an extra. A canonical name beats an alias, and an earlier column beats
    /// a later one, so `key` wins over `id` wherever they stand.
    static func match(_ header: [String], fields: [TreasureField] = allCases) -> (
        columns: [TreasureField: Int], extras: [Int]
    ) {
        // Spreadsheet headers often carry stray spaces; the values never get trimmed.
        let folded = header.map { Self.fold($0) }
        var columns: [TreasureField: Int] = [:]
        for field in fields {
            for name in field.names {
                if let index = folded.firstIndex(of: name), !columns.values.contains(index) {
                    columns[field] = index
                    break
                }
            }
        }
        let used = Set(columns.values)
        return (columns, header.indices.filter { !used.contains($0) })
    }

    static func fold(_ name: String) -> String {
        var text = Substring(name)
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text.lowercased()
    }
}

// MARK: - Values

/// Checks shared by the CSV and GeoJSON readers. Each returns the diagnostic code and
/// message of the first problem, so both formats word their findings alike.
enum TreasureCheck {
    struct Problem: Error, Equatable {
        package var code: String
        package var message: String
        var hint: String?
    }

    /// A coordinate written as text: a plain decimal (`40.7128`, `-74.006`, `1e-3`),
    /// with surrounding spaces allowed and, in semicolon files, a decimal comma.
    static func coordinate(_ text: String, axis: String, decimalComma: Bool) throws(Problem)
        -> Double
    {
        var text = text
        // Nearly every value is a plain decimal: read those without building arrays or
        // lowercased copies, and leave the wording of problems to the slow path.
        let quick = text.withUTF8 { plainDecimal($0, decimalComma: decimalComma) }
        if let quick { return quick }
        return try diagnosedCoordinate(text, axis: axis, decimalComma: decimalComma)
    }

    /// The value of a plain decimal without surrounding spaces, or `nil` for anything
    /// else (including values that are not finite).
    static func plainDecimal(_ bytes: UnsafeBufferPointer<UInt8>, decimalComma: Bool) -> Double? {
        let count = bytes.count
        guard count > 0, count <= 32 else { return nil }
        var mantissa: UInt64 = 0
        var digits = 0
        var fractionDigits = 0
        var points = 0
        var negative = false
        for (index, byte) in bytes.enumerated() {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                digits += 1
                if points > 0 { fractionDigits += 1 }
                if digits <= 19 { mantissa = mantissa &* 10 &+ UInt64(byte &- 0x30) }
            case UInt8(ascii: "-"), UInt8(ascii: "+"):
                if index != 0 { return nil }
                negative = byte == UInt8(ascii: "-")
            case UInt8(ascii: "."): points += 1
            case UInt8(ascii: ","):
                if !decimalComma { return nil }
                points += 1
            default: return nil
            }
        }
        guard digits > 0, points <= 1 else { return nil }
        // Both the digits and the power of ten are exact doubles, so one IEEE division
        // rounds correctly, as strtod would (Clinger's fast path).
        if digits <= 19, mantissa <= 1 << 53, fractionDigits < exactPowersOfTen.count {
            let value = Double(mantissa) / exactPowersOfTen[fractionDigits]
            return negative ? -value : value
        }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { copy in
            for (index, byte) in bytes.enumerated() {
                copy[index] = byte == UInt8(ascii: ",") ? UInt8(ascii: ".") : byte
            }
            let value = Double(String(decoding: UnsafeBufferPointer(copy), as: UTF8.self))
            return value.flatMap { $0.isFinite ? $0 : nil }
        }
    }

    /// 10^0 … 10^22, every one exact in a double.
    private static let exactPowersOfTen: [Double] = (0...22).map { exponent in
        (0..<exponent).reduce(1.0) { value, _ in value * 10 }
    }

    /// The careful path of ``coordinate(_:axis:decimalComma:)``: surrounding spaces,
    /// exponents, and a precise word for each kind of bad value.
    static func diagnosedCoordinate(_ text: String, axis: String, decimalComma: Bool)
        throws(Problem) -> Double
    {
        var bytes = Array(text.utf8)
        while let first = bytes.first, first == 0x20 || first == 0x09 { bytes.removeFirst() }
        while let last = bytes.last, last == 0x20 || last == 0x09 { bytes.removeLast() }
        guard !bytes.isEmpty else {
            throw Problem(code: DiagnosticCode.missingPosition, message: "the \(axis) is empty")
        }
        if decimalComma, bytes.filter({ $0 == UInt8(ascii: ",") }).count == 1,
            !bytes.contains(UInt8(ascii: "."))
        {
            bytes = bytes.map { $0 == UInt8(ascii: ",") ? UInt8(ascii: ".") : $0 }
        }
        let folded = String(decoding: bytes, as: UTF8.self).lowercased()
        let unsigned =
            folded.hasPrefix("-") || folded.hasPrefix("+") ? folded.dropFirst() : folded[...]
        if ["nan", "inf", "infinity"].contains(unsigned) {
            throw Problem(
                code: DiagnosticCode.notANumber,
                message: "\(axis) '\(Excerpt.cut(text))' is not a finite number"
            )
        }
        if unsigned.hasPrefix("0x") {
            throw Problem(
                code: DiagnosticCode.notANumber,
                message: "\(axis) '\(Excerpt.cut(text))' is hexadecimal; write a decimal number")
        }
        guard isDecimal(bytes), let value = Double(String(decoding: bytes, as: UTF8.self)) else {
            throw Problem(
                code: DiagnosticCode.notANumber,
                message: "\(axis) '\(Excerpt.cut(text))' is not a number")
        }
        guard value.isFinite else {
            throw Problem(
                code: DiagnosticCode.notANumber,
                message: "\(axis) '\(Excerpt.cut(text))' is not a finite number"
            )
        }
        return value
    }

    /// `[+-]digits[.digits][e[+-]digits]`, with digits on at least one side of the point.
    static func isDecimal(_ bytes: [UInt8]) -> Bool {
        var index = 0
        func digits() -> Int {
            let begin = index
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
            return index - begin
        }
        if index < bytes.count, bytes[index] == 0x2B || bytes[index] == 0x2D { index += 1 }
        var count = digits()
        if index < bytes.count, bytes[index] == 0x2E {
            index += 1
            count += digits()
        }
        guard count > 0 else { return false }
        if index < bytes.count, bytes[index] == 0x65 || bytes[index] == 0x45 {
            index += 1
            if index < bytes.count, bytes[index] == 0x2B || bytes[index] == 0x2D { index += 1 }
            guard digits() > 0 else { return false }
        }
        return index == bytes.count
    }

    /// Latitude in [-90, 90] (`Coordinate`'s rule and words); `text` is the value as
    /// written, for the message.
    package static func latitude(_ value: Double, text: String) throws(Problem) {
        do throws(CoordinateError) {
            try Coordinate.check(latitude: value, text: text)
        } catch {
            throw Problem(code: error.code, message: error.description)
        }
    }

    /// Longitude in [-180, 180] (`Coordinate`'s rule and words).
    package static func longitude(_ value: Double, text: String) throws(Problem) {
        do throws(CoordinateError) {
            try Coordinate.check(longitude: value, text: text)
        } catch {
            throw Problem(code: error.code, message: error.description)
        }
    }

    /// The text with control characters escaped as in C and JSON (`\t`, `\n`, `\r`,
    /// `\u001F`), so that a message stays on one line and shows what a user would type.
    package static func shown(_ text: String) -> String {
        var result = ""
        for scalar in Excerpt.cut(text).unicodeScalars {
            switch scalar.value {
            case 0x09: result += "\\t"
            case 0x0A: result += "\\n"
            case 0x0D: result += "\\r"
            case 0..<0x20, 0x7F:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    static let keyHint =
        "Firebase keys are 1 to 768 bytes without . $ # [ ] / or control characters"

    /// A key Firebase accepts: non-empty, at most 768 bytes of UTF-8, none of
    /// `. $ # [ ] /` and no ASCII control character.
    package static func key(_ key: String) throws(Problem) {
        func illegal(_ why: String) -> Problem {
            Problem(
                code: DiagnosticCode.illegalKey, message: "key '\(shown(key))' \(why)",
                hint: keyHint)
        }
        guard !key.isEmpty else { throw illegal("is empty") }
        guard key.utf8.count <= 768 else {
            throw Problem(
                code: DiagnosticCode.illegalKey,
                message: "key of \(key.utf8.count) bytes is longer than 768 bytes", hint: keyHint)
        }
        for byte in key.utf8 {
            switch byte {
            case UInt8(ascii: "."), UInt8(ascii: "$"), UInt8(ascii: "#"), UInt8(ascii: "["),
                UInt8(ascii: "]"), UInt8(ascii: "/"):
                throw illegal("contains '\(Character(Unicode.Scalar(byte)))'")
            case 0x00...0x1F, 0x7F:
                let hex = String(byte, radix: 16, uppercase: true)
                throw illegal(
                    "contains the control character U+\(hex.count < 2 ? "000" : "00")\(hex)")
            default:
                continue
            }
        }
    }
}
