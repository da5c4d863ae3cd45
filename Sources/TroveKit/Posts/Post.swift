/// The states a post moves through.
public enum PostStatus: String, CaseIterable, Sendable {
    case pending, approved, rejected, flagged
    /// No longer in the app's export it was imported from: its user deleted it. It takes
    /// no decision, and leaves this state only by coming back in a later import.
    case withdrawn
}

/// A post's version: the first 12 hex digits of the hash of everything a moderator
/// judges (user, position, text, date, photo reference and photo bytes). Decisions name
/// the version they were made on; a decision on a version that is no longer current is
/// refused.
public enum PostVersion {
    /// The version of a stored content hash.
    public static func of(contentHash: String) -> String {
        String(contentHash.prefix(length))
    }

    /// Hex digits in a version.
    public static let length = 12

    /// Whether `text` has a version's shape (12 lower-case hex digits).
    public static func isVersion(_ text: Substring) -> Bool {
        text.utf8.count == length
            && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// The SQL expression of a post's version.
    static let sql = "substr(content_hash, 1, 12)"
}

/// One entry of the audit trail.
public struct Decision: Equatable, Sendable {
    /// The post decided.
    public var postID: String
    /// When, ISO 8601 UTC.
    public var at: String
    /// Who decided (`trove` for automatic reopenings at import).
    public var moderator: String
    /// The status before.
    public var from: PostStatus
    /// The status after.
    public var to: PostStatus
    /// The rejection reason, for rejections.
    public var reason: String?
    /// The moderator's note.
    public var note: String?
    /// Who recorded it with `review apply`, when that was not the moderator who decided.
    public var appliedBy: String? = nil
    /// The review sheet the decision came from.
    public var sheet: String? = nil
    /// When the moderator decided in the sheet, ISO 8601 UTC.
    public var decidedAt: String? = nil
    /// The post's version the decision was made on (nil in older trails).
    public var version: String? = nil
}
