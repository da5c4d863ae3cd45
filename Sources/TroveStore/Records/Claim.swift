/// One live claim.
public struct Claim: Equatable, Sendable {
    /// The post.
    public var postID: String
    /// Who holds it.
    public var moderator: String
    /// Until when, Unix seconds.
    public var until: Double
    /// Since when, Unix seconds (nil for claims taken before this was recorded).
    public var since: Double? = nil
    /// The page (an open tab) that holds it, when it said.
    public var page: String? = nil
    /// Who released it for its holder (a lead), when it ended that way.
    public var releasedBy: String? = nil
}
