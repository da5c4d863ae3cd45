import TroveSQLite

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

/// The recorded exports of a workspace.
public enum ExportLog {
    /// Every recorded export, oldest first; of one layout when `layout` is given.
    ///
    /// - Throws: `SQLiteError`.
    public static func entries(in workspace: Workspace, layout: String? = nil) throws
        -> [ExportLogEntry]
    {
        try workspace.database.query(
            """
            SELECT l.id, l.layout, l.at, l.out, l.kind, l.base, l.records, l.paths, l.changed,
                   l.removed,
                   l.paths = 0 OR EXISTS (SELECT 1 FROM export_state AS s
                       WHERE s.layout = l.layout AND s.generation = l.generation)
            FROM export_log AS l WHERE ?1 IS NULL OR l.layout = ?1 ORDER BY l.id
            """, [layout.map { .text($0) }]
        ) { row in
            ExportLogEntry(
                id: row.int64(0) ?? 0, layout: row.text(1) ?? "", at: row.text(2) ?? "",
                out: row.text(3) ?? "", kind: row.text(4) ?? "", base: row.int64(5),
                records: Int(row.int64(6) ?? 0), paths: Int(row.int64(7) ?? 0),
                changed: Int(row.int64(8) ?? 0), removed: Int(row.int64(9) ?? 0),
                isKept: (row.int64(10) ?? 0) != 0)
        }
    }
}
