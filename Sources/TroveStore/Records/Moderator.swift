/// One moderator as `list` shows it.
public struct Moderator: Equatable, Sendable {
    /// The moderator's name.
    public var name: String
    /// When they were added (or their link renewed).
    public var addedAt: String
    /// Browsers signed in.
    public var sessions: Int
}
