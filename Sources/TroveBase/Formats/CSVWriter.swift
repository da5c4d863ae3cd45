/// The one way trove writes CSV (RFC 4180): fields joined by commas, each record ended by
/// CRLF, a field quoted (its quotes doubled) when it holds a comma, semicolon, tab, quote or
/// line break, or begins or ends with a space, so that a spreadsheet, or trove's own reader
/// guessing the delimiter, reads back exactly the text written. Every CSV output uses it:
/// listings, rejects files, `near` and `review list`.
public enum CSVWriter {
    private static let special = Set(",;\t\"\r\n".utf8)

    /// What ends every record.
    public static let lineEnding = "\r\n"

    /// One field, quoted when it needs to be.
    public static func field(_ text: String) -> String {
        // By bytes: as Characters, "\r\n" is one, and a lone "\n" would not match it.
        let needsQuotes =
            text.utf8.contains { Self.special.contains($0) } || text.first == " "
            || text.last == " "
        guard needsQuotes else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// One record with its line ending.
    public static func record(_ fields: [String]) -> String {
        fields.map(field).joined(separator: ",") + lineEnding
    }
}
