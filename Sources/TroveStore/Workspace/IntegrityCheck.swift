import TroveSQLite

/// SQLite's integrity check plus references between trove's tables: what `trove check`
/// finds in the workspace's own structure.
public struct IntegrityCheck {
    /// One problem found; empty means healthy.
    public var problems: [String] = []
    /// Whether tables, indexes or triggers are missing, so that nothing else was checked.
    public private(set) var isIncomplete = false

    /// Checks `workspace`.
    ///
    /// - Throws: `SQLiteError` when the checks cannot run at all.
    public init(workspace: Workspace) throws {
        let database = workspace.database
        let missing = try Self.missingSchemaObjects(database)
        problems += missing.map { "missing \($0.type) \($0.name): the workspace is incomplete" }
        if !missing.isEmpty {
            isIncomplete = true
            // The reference checks below read those tables; what is missing is the finding.
            let integrity = try database.query("PRAGMA integrity_check", []) { $0.text(0) ?? "" }
            if integrity != ["ok"] { problems += integrity.map { "integrity: \($0)" } }
            return
        }
        let integrity = try database.query("PRAGMA integrity_check", []) { $0.text(0) ?? "" }
        if integrity != ["ok"] {
            problems += integrity.map { "integrity: \($0)" }
        }
        let foreignKeys = try database.query("PRAGMA foreign_key_check", []) {
            "table \($0.text(0) ?? "?") row \($0.int64(1) ?? 0) refers to a missing \($0.text(2) ?? "?")"
        }
        problems += foreignKeys
        let danglingRenditions = try database.query(
            """
            SELECT owner_kind, owner_key, name FROM renditions r
            WHERE (owner_kind = 'treasure' AND NOT EXISTS (SELECT 1 FROM treasures WHERE key = r.owner_key))
               OR (owner_kind = 'post' AND NOT EXISTS (SELECT 1 FROM posts WHERE id = r.owner_key))
            """, []
        ) { "rendition \($0.text(2) ?? "") of missing \($0.text(0) ?? "") \($0.text(1) ?? "")" }
        problems += danglingRenditions
        let badStatus = try database.query(
            """
            SELECT id, status FROM posts p
            WHERE status <> 'pending' AND NOT EXISTS (SELECT 1 FROM decisions WHERE post_id = p.id)
            """, []
        ) { "post \($0.text(0) ?? "") is \($0.text(1) ?? "") without a decision in the log" }
        problems += badStatus
    }

    public var isHealthy: Bool { problems.isEmpty }

    /// The tables, indexes and triggers the migrations make that `database` lacks, found
    /// by migrating an empty in-memory database the same way.
    static func missingSchemaObjects(_ database: Database) throws -> [(type: String, name: String)]
    {
        let reference = try Database(path: ":memory:")
        try Schema.migrator.migrate(reference)
        // Tables first: a missing table is the cause of its indexes and triggers missing.
        let sql =
            "SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"
            + " ORDER BY type <> 'table', type, name"
        let present = Set(try database.query(sql) { "\($0.text(0) ?? "") \($0.text(1) ?? "")" })
        return try reference.query(sql) { (type: $0.text(0) ?? "", name: $0.text(1) ?? "") }
            .filter { !present.contains("\($0.type) \($0.name)") }
    }
}
