import TroveSQLite

/// Assigns GeoFire geohashes to every treasure and post whose stored geohash is missing
/// or no longer matches its position at the configured precision.
public enum GeohashAssignment {
    /// Counts of records given a new geohash.
    public struct Result: Equatable, Sendable {
        public var treasures = 0
        public var posts = 0
    }

    /// Runs in one transaction; `precision` (1–22) is stored as `geohash.precision` so
    /// that status, validate and export judge freshness by the same length.
    ///
    /// - Throws: `SQLiteError`, `WorkspaceError`.
    public static func run(on workspace: Workspace, precision: Int? = nil) throws -> Result {
        let database = workspace.database
        try GeohashFunction.register(on: database)
        return try workspace.write {
            if let precision {
                try database.execute(
                    "INSERT INTO settings (key, value) VALUES ('geohash.precision', ?) "
                        + "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    [.text(String(precision))])
            }
            let length = try workspace.geohashPrecision()
            var result = Result()
            result.treasures = try assignTreasures(precision: length, in: database)
            result.posts = try assign(
                table: "posts", index: "posts_geohash", precision: length, in: database)
            return result
        }
    }

    /// Treasures keep their geohashes in a narrow table of their own. When none is at
    /// the wanted precision yet (a new workspace, a new precision), the table is refilled
    /// in key order with its index dropped and rebuilt after: one sort is much cheaper
    /// than a million scattered index updates. Otherwise only stale rows are written.
    /// Deciding that takes one probe of the table, not a count of either table: at a
    /// million rows a count is a full scan.
    private static func assignTreasures(precision: Int, in database: Database) throws -> Int {
        let length = SQLiteValue.integer(Int64(precision))
        let fresh = "trove_geohash(t.lat, t.lon, ?1)"
        let anyCurrent =
            try database.scalar(
                "SELECT EXISTS (SELECT 1 FROM treasure_geohashes WHERE length(geohash) = ?)",
                [length])?.int64 == 1
        guard !anyCurrent else {
            // A NULL geohash (a position out of range) fails NOT NULL and is skipped.
            return try database.execute(
                """
                INSERT OR IGNORE INTO treasure_geohashes (key, geohash)
                SELECT t.key, \(fresh) FROM treasures AS t
                LEFT JOIN treasure_geohashes AS g ON g.key = t.key
                WHERE g.geohash IS NOT \(fresh)
                ON CONFLICT (key) DO UPDATE SET geohash = excluded.geohash
                """, [length])
        }
        let index = "treasure_geohashes_geohash"
        let definition = try database.scalar(
            "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?", [.text(index)])?
            .string
        if definition != nil { try database.execute("DROP INDEX \(index)") }
        try database.execute("DELETE FROM treasure_geohashes")
        let written = try database.execute(
            """
            INSERT OR IGNORE INTO treasure_geohashes (key, geohash)
            SELECT t.key, \(fresh) FROM treasures AS t ORDER BY t.key
            """, [length])
        if let definition { try database.execute(definition) }
        return written
    }

    /// Recomputes one table's geohashes in a single pass and writes only those that
    /// differ. When most rows change, the geohash index is dropped and rebuilt: one sort is
    /// much cheaper than a million scattered index updates.
    private static func assign(
        table: String, index: String, precision: Int, in database: Database
    ) throws -> Int {
        let length = SQLiteValue.integer(Int64(precision))
        let stale = "geohash IS NOT trove_geohash(lat, lon, ?1)"
        let rows = Int(try database.scalar("SELECT count(*) FROM \(table)")?.int64 ?? 0)
        let changing = Int(
            try database.scalar("SELECT count(*) FROM \(table) WHERE \(stale)", [length])?.int64
                ?? 0)
        if changing == 0 { return 0 }
        let rebuild = changing > 10_000 && changing * 4 > rows
        let definition = try database.scalar(
            "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?", [.text(index)])?
            .string
        if rebuild, definition != nil { try database.execute("DROP INDEX \(index)") }
        let changed = try database.execute(
            "UPDATE \(table) SET geohash = trove_geohash(lat, lon, ?1) WHERE \(stale)", [length])
        if rebuild, let definition { try database.execute(definition) }
        return changed
    }
}
