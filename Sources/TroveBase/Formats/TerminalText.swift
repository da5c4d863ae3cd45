/// Text from users and files made harmless for a terminal, the one rule every line of
/// messages and output goes through (`Invocation.note`, `warn`, `print` and `write`, and
/// every error `TroveCLI.run` prints): messages and text output always, data of every
/// other format when it goes to a terminal.
///
/// Control characters (C0 but line feed and tab, DEL, C1: ESC starts the sequences that
/// recolour, retitle, clear the screen or write the clipboard) and the bidirectional
/// controls that reorder what a line shows (U+202A–202E, U+2066–2069, U+200E, U+200F,
/// U+061C) are shown escaped, `\x1B` or `\u202E`, so a reader sees that they are there. A
/// carriage return just before a line feed (CSV's CRLF) only ends the line, and stays.
/// Data for a pipe or a file is not touched: JSON escapes these characters itself, and CSV
/// keeps every character.
package enum TerminalText {
    package static func safe(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 16)
        var scalars = text.unicodeScalars.makeIterator()
        var next = scalars.next()
        while let scalar = next {
            next = scalars.next()
            if scalar == "\r" && next == "\n" {
                result.unicodeScalars.append(scalar)
            } else if needsEscape(scalar) {
                let value = scalar.value
                let hex = String(value, radix: 16, uppercase: true)
                result +=
                    value < 0x100
                    ? "\\x" + (hex.count < 2 ? "0" + hex : hex)
                    : "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        switch value {
        case 0x0A, 0x09: return false
        case 0x00..<0x20, 0x7F...0x9F: return true
        case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: return true
        default: return false
        }
    }
}
