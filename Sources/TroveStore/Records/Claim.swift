/// One live claim.
public struct Claim: Equatable, Sendable {
    /// The post.
    public var postID: String
    /// Who holds it.
    public var moderator: String
    /// Until when, Unix seconds.
    public var until: Double
}
