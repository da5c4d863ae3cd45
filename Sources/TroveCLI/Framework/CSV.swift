/// A field quoted for CSV (RFC 4180) when it needs to be.
func csvField(_ text: String) -> String {
    guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" })
    else { return text }
    return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
