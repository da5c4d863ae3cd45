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
            let length = SQLiteValue.integer(Int64(try workspace.geohashPrecision()))
            var result = Result()
            result.treasures = try database.execute(
                """
                UPDATE treasures SET geohash = trove_geohash(lat, lon, ?1)
                WHERE geohash IS NOT trove_geohash(lat, lon, ?1)
                """, [length])
            result.posts = try database.execute(
                """
                UPDATE posts SET geohash = trove_geohash(lat, lon, ?1)
                WHERE lat IS NOT NULL AND lon IS NOT NULL
                  AND geohash IS NOT trove_geohash(lat, lon, ?1)
                """, [length])
            return result
        }
    }
}
