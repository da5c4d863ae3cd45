/// One moderator as `list` shows it.
public struct Moderator: Equatable, Sendable {
    /// The moderator's name.
    public var name: String
    /// When they were added (or their link renewed).
    public var addedAt: String
    /// Browsers signed in.
    public var sessions: Int
    /// Unix seconds until which their link may sign in.
    public var linkUntil: Double = 0
    /// When their link signed in (it signs in once), or nil.
    public var linkUsedAt: String?
}

/// A moderator's sign-in link as the workspace keeps it.
public struct SignInLink: Equatable, Sendable {
    /// Whose link it is.
    public var moderator: String
    /// Unix seconds until which it may sign in.
    public var until: Double
    /// When it signed in (it signs in once), or nil.
    public var usedAt: String?
}
