import Foundation
import TroveBase

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

/// How many exported images would have no download URL because no storage location is
/// configured.
public struct MissingBucket: Equatable, Sendable {
    /// Treasures with a local image, and posts with a photo (approved ones for export).
    public var treasures: Int
    public var posts: Int

    /// The message, e.g. `storage.bucket is not set: 31 treasure images have no download
    /// URL`.
    public var message: String {
        var counts: [String] = []
        if treasures > 0 {
            counts.append("\(treasures) treasure image\(treasures == 1 ? "" : "s")")
        }
        if posts > 0 { counts.append("\(posts) post photo\(posts == 1 ? "" : "s")") }
        let total = treasures + posts
        return "storage.bucket is not set: \(counts.joined(separator: " and ")) "
            + "\(total == 1 ? "has" : "have") no download URL"
    }

    /// What to run.
    public static let hint = "run 'trove config set storage.bucket gs://NAME'"

    /// The count for `workspace`, or nil when a bucket or URL template is set or no
    /// local image needs one.
    ///
    /// - Parameter approvedPostsOnly: count only the posts an export publishes.
    /// - Throws: `SQLiteError`.
    public static func find(in workspace: Workspace, approvedPostsOnly: Bool = false) throws
        -> MissingBucket?
    {
        guard try !isSet(in: workspace) else { return nil }
        let counts = try counts(in: workspace, approvedPostsOnly: approvedPostsOnly)
        return find(treasures: counts.treasures, posts: counts.posts)
    }

    /// The same from counts already known (`WorkspaceStatus` keeps them), or nil when a
    /// bucket or URL template is set or no local image needs one.
    ///
    /// - Throws: `SQLiteError`.
    public static func find(in workspace: Workspace, treasures: Int, posts: Int) throws
        -> MissingBucket?
    {
        guard try !isSet(in: workspace) else { return nil }
        return find(treasures: treasures, posts: posts)
    }

    private static func find(treasures: Int, posts: Int) -> MissingBucket? {
        guard treasures + posts > 0 else { return nil }
        return MissingBucket(treasures: treasures, posts: posts)
    }

    private static func isSet(in workspace: Workspace) throws -> Bool {
        try workspace.setting(Setting.storageBucket.key) != nil
            || workspace.setting(Setting.storageURLTemplate.key) != nil
    }

    /// Local treasure images and post photos, by scanning.
    static func counts(in workspace: Workspace, approvedPostsOnly: Bool) throws -> (
        treasures: Int, posts: Int
    ) {
        try RenditionStore(workspace).localImageCounts(approvedPostsOnly: approvedPostsOnly)
    }
}

extension MissingBucket {
    /// How many treasures have a remote (`http(s)://`) image, which gets no renditions.
    ///
    /// - Throws: `SQLiteError`.
    public static func remoteTreasureImages(in workspace: Workspace) throws -> Int {
        try RenditionStore(workspace).remoteTreasureImageCount()
    }
}
