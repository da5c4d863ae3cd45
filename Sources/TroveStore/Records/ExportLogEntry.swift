/// One recorded export: an export written to a file, the base of later `--update`s.
public struct ExportLogEntry: Equatable, Sendable {
    /// What `--update --since` takes.
    public var id: Int64
    public var layout: String
    /// ISO 8601.
    public var at: String
    /// The file written.
    public var out: String
    /// `full` or `update`.
    public var kind: String
    /// The recorded export an update was relative to; nil for the first.
    public var base: Int64?
    public var records: Int
    public var paths: Int
    public var changed: Int
    public var removed: Int
    /// Whether its state is still kept, so `--since` can use it.
    public var isKept: Bool
}
