import Foundation

/// A Firebase Storage bucket name, read from the forms people paste: a bare custom
/// bucket `NAME`, `gs://NAME`, `NAME.appspot.com`, `NAME.firebasestorage.app`, or a
/// Firebase or Cloud console URL.
public enum StorageBucket {
    /// The forms `storage.bucket` accepts, for error messages.
    public static let acceptedForms =
        "NAME.appspot.com, NAME.firebasestorage.app, gs://NAME, a bucket NAME, or the Storage page's URL "
        + "(https://console.firebase.google.com/project/PROJECT/storage/NAME/files)"

    /// The bare bucket name `text` refers to, lower-cased, or nil when `text` is none of
    /// the accepted forms.
    public static func normalize(_ text: String) -> String? {
        var text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        while text.hasSuffix("/") { text.removeLast() }
        let lower = text.lowercased()
        if lower.hasPrefix("gs://") {
            // `gs://NAME` only: a folder inside the bucket is not a bucket.
            let name = String(lower.dropFirst(5))
            return isValidName(name) ? name : nil
        }
        if lower.hasPrefix("https://") || lower.hasPrefix("http://") {
            return fromURL(text)
        }
        // A bare custom bucket, as `gs://NAME` names it; the Firebase default buckets are
        // names of this form too.
        return isValidName(lower) ? lower : nil
    }

    /// Whether `name` is a bucket with no Firebase domain: a custom bucket, or perhaps a
    /// project id given where its default bucket was meant.
    public static func isCustom(_ name: String) -> Bool {
        !name.hasSuffix(".appspot.com") && !name.hasSuffix(".firebasestorage.app")
    }

    /// The bucket in a console or download URL.
    private static func fromURL(_ text: String) -> String? {
        guard let components = URLComponents(string: text), let host = components.host else {
            return nil
        }
        let parts = components.path.split(separator: "/").map {
            String($0).removingPercentEncoding ?? String($0)
        }
        func part(after prefix: [String]) -> String? {
            guard parts.count > prefix.count, Array(parts.prefix(prefix.count)) == prefix
            else { return nil }
            return parts[prefix.count]
        }
        let name: String?
        switch host.lowercased() {
        case "console.firebase.google.com":
            // /project/P/storage/NAME/files, also behind /u/0/.
            let start = parts.firstIndex(of: "project") ?? parts.count
            let rest = Array(parts[start...])
            name = rest.count > 3 && rest[2] == "storage" ? rest[3] : nil
        case "console.cloud.google.com":
            name = part(after: ["storage", "browser"])
        case "firebasestorage.googleapis.com":
            name = part(after: ["v0", "b"])
        case "storage.googleapis.com", "storage.cloud.google.com":
            name = parts.first
        default:
            name = nil
        }
        guard let name = name?.lowercased(), isValidName(name) else { return nil }
        return name
    }

    /// Cloud Storage's naming rules: 3–63 characters of `a-z 0-9 - _`, or up to 222 with
    /// dots between parts of at most 63; starting and ending with a letter or digit; not
    /// an IP address, not starting with `goog`, not holding `google`.
    static func isValidName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (3...(name.contains(".") ? 222 : 63)).contains(bytes.count),
            !name.hasPrefix("goog"), !name.contains("google")
        else { return false }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 4,
            parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { ("0"..."9").contains($0) } })
        {
            return false
        }
        func alphanumeric(_ byte: UInt8) -> Bool {
            (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
        }
        guard bytes.allSatisfy({ alphanumeric($0) || $0 == 0x2D || $0 == 0x5F || $0 == 0x2E }),
            alphanumeric(bytes[0]), alphanumeric(bytes[bytes.count - 1])
        else { return false }
        return parts.allSatisfy { (1...63).contains($0.utf8.count) }
    }
}
