/// What a publish plan holds, in counts.
public struct PublishPlanSummary: Equatable, Sendable {
    /// Database paths the target holds once the plan is applied.
    public var paths = 0
    /// Paths the plan sets (new or changed).
    public var changed = 0
    /// Paths the plan sets to null.
    public var removed = 0
    /// Database requests the update is split into.
    public var requests = 0
    /// Storage objects the target holds once the plan is applied.
    public var objects = 0
    /// Objects uploaded: new, or whose bytes the bucket does not hold yet.
    public var uploads = 0
    /// Objects that keep their bytes and get a new download token (held beside the old
    /// one until the database names the new one).
    public var retokens = 0
    /// Objects deleted: nothing the target's tree references any more.
    public var deletes = 0

    /// What the live database held that differs from the tree, when planned against it.
    public var drift: PublishDrift?
    /// Whether only the records changed since the target's last publish were rendered.
    public var renderedChangesOnly = false

    public init() {}

    /// Whether applying it changes nothing.
    public var isEmpty: Bool { changed + removed + uploads + retokens + deletes == 0 }
}

/// What differs between a target's live database and the tree the workspace would
/// publish, found by `publish --against`.
public struct PublishDrift: Equatable, Sendable {
    /// Paths the database holds with another value (edited in the console, or changes
    /// not yet published).
    public var differ: [String] = []
    /// Paths of the tree the database lacks (a lost update, or never published).
    public var missing: [String] = []
    /// Of `missing` and `differ`, those trove recorded as published.
    public var publishedButChanged = 0
    /// Paths of the layout's shapes that the tree does not have (a database seeded by
    /// someone else, or removals not yet published); the publish sets them to null.
    public var extra: [String] = []

    public init() {}

    /// Whether the database holds exactly the tree.
    public var isEmpty: Bool { differ.isEmpty && missing.isEmpty && extra.isEmpty }
}
