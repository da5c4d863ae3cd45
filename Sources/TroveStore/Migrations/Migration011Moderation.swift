import TroveSQLite

extension Schema {
    /// Post versions, signed review sheets and withdrawn posts.
    static let moderationVersions = """
        -- The version a decision was made on (the first 12 hex digits of the post's
        -- content_hash when it was decided); NULL for decisions made before versions.
        ALTER TABLE decisions ADD COLUMN version TEXT;

        -- The absolute path of the file the post was last imported from: a later import
        -- of that file that no longer holds the post withdraws it.
        ALTER TABLE posts ADD COLUMN origin TEXT;
        CREATE INDEX posts_origin ON posts (origin) WHERE origin IS NOT NULL;

        -- Every version of a post's reviewed fields, so a refused stale decision can show
        -- what the moderator saw beside what is there now.
        CREATE TABLE post_versions (
            seq         INTEGER PRIMARY KEY,  -- the order versions arrived in
            post_id     TEXT NOT NULL,
            version     TEXT NOT NULL,
            user        TEXT,
            lat         REAL,
            lon         REAL,
            description TEXT,
            date        TEXT,
            photo_ref   TEXT,
            photo_hash  TEXT,
            seen_at     TEXT NOT NULL,   -- when an import first held this version
            UNIQUE (post_id, version)
        );
        INSERT INTO post_versions (post_id, version, user, lat, lon, description, date,
                                   photo_ref, photo_hash, seen_at)
            SELECT id, substr(content_hash, 1, 12), user, lat, lon, description, date,
                   photo_ref, photo_hash, updated_at
            FROM posts;

        -- Each `review sheet` run: a fresh id, the secret its page signs decisions with,
        -- and the moderator it was made for.
        CREATE TABLE review_sheets (
            id        TEXT PRIMARY KEY NOT NULL,
            secret    TEXT NOT NULL,     -- 32 random bytes, hex
            moderator TEXT NOT NULL,
            made_at   TEXT NOT NULL
        ) WITHOUT ROWID;
        -- The posts a sheet showed, with the version and status shown.
        CREATE TABLE review_sheet_posts (
            sheet   TEXT NOT NULL,
            post_id TEXT NOT NULL,
            version TEXT NOT NULL,
            status  TEXT NOT NULL,
            PRIMARY KEY (sheet, post_id)
        ) WITHOUT ROWID;
        """

    /// The posts table's CHECK gains 'withdrawn'. Widening an IN list only admits more
    /// rows, so the stored definition is edited in place, as SQLite documents for
    /// loosening a constraint (`writable_schema`, then a new schema version); the columns,
    /// indexes and triggers other migrations gave the table are kept as they are. Refuses
    /// when the CHECK is not the one migration 002 wrote.
    package static let moderation: @Sendable (Database) throws -> Void = { database in
        try database.execute(moderationVersions)
        let old = "CHECK (status IN ('pending', 'approved', 'rejected', 'flagged'))"
        let new = "CHECK (status IN ('pending', 'approved', 'rejected', 'flagged', 'withdrawn'))"
        let definition =
            try database.query(
                "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'posts'"
            ) { $0.text(0) ?? "" }.first ?? ""
        guard definition.components(separatedBy: old).count == 2 else {
            throw SQLiteError(
                code: 1, message: "the posts table's status CHECK is not the expected one",
                sql: "migration 011")
        }
        let version = try database.scalar("PRAGMA schema_version")?.int64 ?? 0
        try database.execute("PRAGMA writable_schema = ON")
        do {
            try database.execute(
                "UPDATE sqlite_master SET sql = ? WHERE type = 'table' AND name = 'posts'",
                [.text(definition.replacingOccurrences(of: old, with: new))])
            try database.execute("PRAGMA schema_version = \(version + 1)")
        } catch {
            try? database.execute("PRAGMA writable_schema = OFF")
            throw error
        }
        try database.execute("PRAGMA writable_schema = OFF")
    }
}
