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
        return try workspace.write {
            if let precision {
                try database.execute(
                    "INSERT INTO settings (key, value) VALUES ('geohash.precision', ?) "
                        + "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    [.text(String(precision))])
            }
            let length = try workspace.geohashPrecision()
            var result = Result()
            result.treasures = try assign(
                table: "treasures", key: "key", index: "treasures_geohash", precision: length,
                in: database)
            result.posts = try assign(
                table: "posts", key: "id", index: "posts_geohash", precision: length,
                in: database)
            return result
        }
    }

    /// Recomputes one table's geohashes in Swift and writes only those that differ, in
    /// key order. When most rows change, the geohash index is dropped and rebuilt: one
    /// sort is much cheaper than a million scattered index updates.
    private static func assign(
        table: String, key: String, index: String, precision: Int, in database: Database
    ) throws -> Int {
        var changes: [(key: String, geohash: String)] = []
        var rows = 0
        let scan = try database.prepare(
            """
            SELECT \(key), lat, lon, geohash FROM \(table)
            WHERE lat IS NOT NULL AND lon IS NOT NULL ORDER BY \(key)
            """)
        while let row = try scan.next() {
            rows += 1
            guard let latitude = row.double(1), let longitude = row.double(2),
                (-90...90).contains(latitude), (-180...180).contains(longitude)
            else { continue }
            let geohash = Geohash.encode(
                latitude: latitude, longitude: longitude, precision: precision)
            if row.text(3) != geohash, let key = row.text(0) {
                changes.append((key, geohash))
            }
        }
        if changes.isEmpty { return 0 }
        let rebuild = changes.count > 10_000 && changes.count * 4 > rows
        let definition = try database.scalar(
            "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?", [.text(index)])?
            .string
        if rebuild, definition != nil { try database.execute("DROP INDEX \(index)") }
        let update = try database.prepare("UPDATE \(table) SET geohash = ? WHERE \(key) = ?")
        for change in changes {
            try update.bind(text: change.geohash, at: 1)
            try update.bind(text: change.key, at: 2)
            try update.step()
        }
        if rebuild, let definition { try database.execute(definition) }
        return changes.count
    }
}
