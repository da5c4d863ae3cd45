import TroveSQLite

extension Schema {
    /// The Storage objects each recorded export referenced, kept beside its paths as a
    /// state of the layout (blocks shared in `state_blocks`), where they were kept per
    /// output file: the next plan compares with what the export it follows referenced,
    /// whatever file either was written to, and can list only what changed. The plan last
    /// recorded for each layout's last output carries over. Frozen: it decodes first paths
    /// with `frozenFirstPath`.
    static let exportObjects: @Sendable (Database) throws -> Void = { database in
        try database.execute(
            """
            -- Objects (path, token) in path order, as the Storage plan encodes them.
            CREATE TABLE export_objects (
                layout     TEXT NOT NULL,
                generation INTEGER NOT NULL,
                seq        INTEGER NOT NULL,
                first      BLOB NOT NULL,
                block      INTEGER NOT NULL,
                PRIMARY KEY (layout, generation, seq)
            ) WITHOUT ROWID;
            -- How many objects that export referenced.
            ALTER TABLE export_log ADD COLUMN objects INTEGER;
            """)
        // Each layout's last recorded export takes the plan last recorded for its file.
        let latest = try database.query(
            """
            SELECT l.layout, max(l.generation), e.out FROM export_log AS l
            JOIN exports AS e ON e.layout = l.layout GROUP BY l.layout
            """
        ) { ($0.text(0) ?? "", $0.int64(1) ?? 0, $0.text(2) ?? "") }
        let blocks = try database.prepare(
            "SELECT seq, data FROM storage_plan_blocks WHERE output = ? ORDER BY seq")
        let insertBlock = try database.prepare("INSERT INTO state_blocks (entries) VALUES (?)")
        let insertIndex = try database.prepare(
            "INSERT INTO export_objects (layout, generation, seq, first, block) VALUES (?, ?, ?, ?, ?)"
        )
        for (layout, generation, output) in latest {
            try blocks.bind([.text(output)])
            while let row = try blocks.next() {
                let data = row.blob(1) ?? []
                try insertBlock.run([.blob(data)])
                try insertIndex.run([
                    .text(layout), .integer(generation), row[0], .blob(frozenFirstPath(data)),
                    .integer(database.lastInsertRowID),
                ])
            }
            blocks.reset()
        }
        try database.execute("DROP TABLE storage_plan_blocks")
    }
}
