import Foundation
import TroveBase

/// Keeps passwords and e-mail addresses out of the workspace.
enum Privacy {
    /// Whether a field of this name holds a password.
    static func isPasswordField(_ name: String) -> Bool {
        let key = normalizedFieldName(name)
        return key.contains("password")
            || ["pwd", "passwd", "pass", "passcode", "passphrase"]
                .contains(key)
    }

    /// Whether a field of this name holds a person's name rather than an id: never a user
    /// key, never stored.
    static func isDisplayNameField(_ name: String) -> Bool {
        let key = normalizedFieldName(name)
        return displayNameFields.contains(key)
    }

    private static let displayNameFields: Set<String> = [
        "username", "displayname", "userdisplayname", "name", "fullname", "nickname", "nick",
        "screenname", "realname", "firstname", "lastname", "givenname", "familyname", "surname",
        "author", "authorname", "ownername", "creatorname", "publicname", "profilename",
    ]

    /// Whether a field of this name holds an e-mail address.
    static func isEmailField(_ name: String) -> Bool {
        let key = normalizedFieldName(name)
        return key.contains("email") || key == "mail" || key == "mailaddress"
    }

    // Firebase keys cannot hold '.', so exports often spell addresses with ',' instead.
    private static let emailPattern = try? NSRegularExpression(
        pattern: "[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+([.,][A-Za-z0-9-]+)*[.,][A-Za-z]{2,}")

    /// `text` with every e-mail address replaced, and how many there were.
    static func redactEmails(_ text: String) -> (text: String, count: Int) {
        // Byte by byte: Foundation's contains would take a locale-aware search per field.
        guard text.utf8.contains(UInt8(ascii: "@")), let pattern = emailPattern else {
            return (text, 0)
        }
        let range = NSRange(text.startIndex..., in: text)
        let count = pattern.numberOfMatches(in: text, range: range)
        if count == 0 { return (text, 0) }
        let redacted = pattern.stringByReplacingMatches(
            in: text, range: range, withTemplate: "[e-mail removed]")
        return (redacted, count)
    }

    /// A user reference that is an e-mail address becomes a stable pseudonym, so the
    /// user's history still links up without the address being stored.
    static func pseudonymizeUser(_ user: String) -> (user: String, wasEmail: Bool) {
        guard user.utf8.contains(UInt8(ascii: "@")) else { return (user, false) }
        let digest = SHA256.hex(Array(user.lowercased().utf8))
        return ("user-" + digest.prefix(12), true)
    }
}

/// `Location_Description` → `locationdescription`.
func normalizedFieldName(_ name: String) -> String {
    // Nearly every name is ASCII: lowered byte by byte, without Unicode case mapping (the
    // same result, for a fraction of the cost on every field of every record).
    if name.utf8.allSatisfy({ $0 < 0x80 }) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(name.utf8.count)
        for byte in name.utf8
        where byte != UInt8(ascii: "_") && byte != UInt8(ascii: "-")
            && byte != UInt8(ascii: " ")
        {
            bytes.append((UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
    return String(name.lowercased().filter { $0 != "_" && $0 != "-" && $0 != " " })
}
