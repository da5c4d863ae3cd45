import Foundation
import TroveBase

// Extra columns: an extra's value as read, or converted to the type the layout asks for.

extension Renderer {
    /// An extra column's value: with the type it was read with (text from CSV, the JSON
    /// type from GeoJSON), or converted to the type the layout asks for. A value that does
    /// not convert is a problem naming the column and the value; empty text is no value.
    mutating func extra(
        _ name: String, as type: ExtraType?, in record: inout ExportRecord
    ) -> Scalar? {
        guard let value = record.extra(name) else { return nil }
        let text: String
        switch value {
        case .null: return nil
        case .string(let string): text = string.trimmingCharacters(in: .whitespaces)
        case .number(let number): text = number
        case .bool(let bool): text = bool ? "true" : "false"
        case .array(let elements):
            if elements.isEmpty { return nil }
            text = value.jsonText
        case .object(let members):
            if members.isEmpty { return nil }
            text = value.jsonText
        }
        func refuse(_ expected: String) -> Scalar? {
            if problem == nil {
                let shown = value.jsonText
                let placeholder = "{extra.\(name):\(type?.rawValue ?? "")}"
                problem =
                    "extra column '\(name)' holds \(Self.shortened(shown)), not \(expected)"
                    + " (\(placeholder))"
            }
            return nil
        }
        switch type {
        case nil:
            switch value {
            case .string(let string): return string.isEmpty ? nil : .string(string)
            case .number(let number):
                guard let double = Double(number), double.isFinite else {
                    return refuse("a number a database can store")
                }
                return .number(double)
            case .bool(let bool): return .bool(bool)
            default: return .json(value)
            }
        case .text?:
            if case .string(let string) = value { return string.isEmpty ? nil : .string(string) }
            return .string(text)
        case .int?:
            if text.isEmpty { return nil }
            if let integer = Int64(text) { return .integer(integer) }
            guard let double = Self.number(text, decimalComma: record.decimalComma),
                double.rounded() == double,
                abs(double) <= 9_007_199_254_740_992
            else { return refuse("a whole number") }
            return .integer(Int64(double))
        case .number?:
            if text.isEmpty { return nil }
            guard let double = Self.number(text, decimalComma: record.decimalComma) else {
                return refuse("a number")
            }
            return .number(double)
        case .bool?:
            if text.isEmpty { return nil }
            if let bool = Self.boolWords[text.lowercased()] { return .bool(bool) }
            return refuse("true or false")
        }
    }

    /// The words for true and for false in the languages designers write spreadsheets in,
    /// each language both ways: a file that writes one of its words may write the other.
    static let boolLanguages: [(language: String, yes: [String], no: [String])] = [
        ("English", ["true", "yes", "1"], ["false", "no", "0"]),
        ("French", ["vrai", "oui"], ["faux", "non"]),
        ("German", ["wahr", "ja"], ["falsch", "nein"]),
        ("Spanish", ["verdadero", "sí", "si"], ["falso", "no"]),
        ("Portuguese", ["verdadeiro", "sim"], ["falso", "não", "nao"]),
        ("Italian", ["vero", "sì", "si"], ["falso", "no"]),
        ("Dutch", ["waar", "ja"], ["onwaar", "nee"]),
        ("Danish", ["sand", "ja"], ["falsk", "nej"]),
        ("Norwegian", ["sann", "ja"], ["usann", "nei"]),
        ("Swedish", ["sant", "ja"], ["falskt", "nej"]),
    ]

    /// `boolLanguages` by word, compared lowercased (Unicode's lowercase, so `NÃO` and
    /// `Não` read as `não`).
    static let boolWords: [String: Bool] = {
        var words: [String: Bool] = [:]
        for language in boolLanguages {
            for word in language.yes { words[word] = true }
            for word in language.no { words[word] = false }
        }
        return words
    }()

    /// A finite number written in decimal (JSON's grammar, a leading `+` allowed), as
    /// spreadsheets and JSON write them; not Swift's `inf`, `nan` or hexadecimal forms.
    /// With `decimalComma` (the record's file was not separated by commas), one comma
    /// and no point is a decimal comma: `12,5`.
    static func number(_ text: String, decimalComma: Bool = false) -> Double? {
        if decimalComma, text.utf8.count(where: { $0 == 0x2C }) == 1, !text.utf8.contains(0x2E) {
            return number(text.replacingOccurrences(of: ",", with: "."))
        }
        guard !text.isEmpty,
            text.utf8.allSatisfy({
                ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E
                    || $0 == 0x65 || $0 == 0x45
            }),
            let double = Double(text), double.isFinite
        else { return nil }
        return double
    }

    /// Appends a JSON value read from a GeoJSON property, as the Realtime Database stores
    /// it: object members sorted, `null` members and empty containers left out. False
    /// (and nothing appended) when nothing is left.
    mutating func appendJSON(_ value: JSONValue, into output: inout RenderBuffer) -> Bool {
        switch value {
        case .null: return false
        case .bool(let bool):
            output.append(bool ? "true" : "false")
            return true
        case .number(let text):
            guard let double = Double(text), double.isFinite else {
                if problem == nil { problem = "number \(Self.shortened(text)) is out of range" }
                return false
            }
            JSONText.appendNumber(double, to: &output)
            return true
        case .string(let text): return appendString(text, into: &output)
        case .array(let elements):
            let start = output.count
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(", ") }
                // A position carries meaning: a missing element is written as null.
                if !appendJSON(element, into: &output) {
                    output.append("null")
                }
            }
            guard !elements.isEmpty else {
                output.removeLast(output.count - start)
                return false
            }
            output.append(UInt8(ascii: "]"))
            return true
        case .object(let members):
            var latest: [String: JSONValue] = [:]
            for member in members { latest[member.name] = member.value }
            let start = output.count
            output.append(UInt8(ascii: "{"))
            var written = false
            for name in latest.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
                let mark = output.count
                if written { output.append(", ") }
                JSONText.appendString(name, to: &output)
                output.append(": ")
                if appendJSON(latest[name]!, into: &output) {
                    written = true
                } else {
                    output.removeLast(output.count - mark)
                }
            }
            guard written else {
                output.removeLast(output.count - start)
                return false
            }
            output.append(UInt8(ascii: "}"))
            return true
        }
    }
}
