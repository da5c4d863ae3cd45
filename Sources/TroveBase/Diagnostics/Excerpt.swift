/// A value from a file cut to a length a message can hold: the first `limit` characters,
/// then how long the whole is in bytes, so a 200 MB field prints a line, not 200 MB.
public enum Excerpt {
    /// Characters of a value a message shows.
    public static let limit = 100

    public static func cut(_ text: String, limit: Int = limit) -> String {
        guard text.utf8.count > limit else { return text }
        var shown = ""
        for (index, scalar) in text.unicodeScalars.enumerated() {
            if index == limit { break }
            shown.unicodeScalars.append(scalar)
        }
        if shown.unicodeScalars.count == text.unicodeScalars.count { return text }
        return shown + "… (\(text.utf8.count) bytes)"
    }
}
