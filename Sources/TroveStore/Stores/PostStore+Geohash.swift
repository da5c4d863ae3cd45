import TroveBase
import TroveSQLite

// Posts' geohashes: the circle queries of `near --posts` and `geohash`'s refill.

extension PostStore {
    /// The posts whose geohash lies in one of `ranges`: id, description (for a name) and
    /// position.
    ///
    /// - Throws: `SQLiteError`, or what `body` throws.
    package func forEach(
        inGeohashRanges ranges: [GeohashRange],
        _ body: (_ id: String, _ description: String, _ latitude: Double, _ longitude: Double)
            throws -> Void
    ) throws {
        let statement = try database.prepare(
            """
            SELECT id, coalesce(description, '') AS description, lat, lon FROM posts
            WHERE geohash >= ? AND geohash < ?
            """)
        let id = try statement.index(of: PostColumn.id)
        let description = try statement.index(of: PostColumn.description)
        let latitude = try statement.index(of: PostColumn.lat)
        let longitude = try statement.index(of: PostColumn.lon)
        for range in ranges {
            try statement.bind([.text(range.start), .text(range.end)])
            while let row = try statement.next() {
                guard let key = row.text(id), let lat = row.double(latitude),
                    let lon = row.double(longitude)
                else { continue }
                try body(key, row.text(description) ?? "", lat, lon)
            }
        }
    }

    /// How many posts there are, and how many have a geohash other than their position's
    /// at `precision`. Needs `GeohashFunction` registered.
    ///
    /// - Throws: `SQLiteError`.
    package func geohashCounts(precision: Int) throws -> (posts: Int, stale: Int) {
        let posts = Int(try database.scalar("SELECT count(*) FROM posts")?.int64 ?? 0)
        let stale = Int(
            try database.scalar(
                "SELECT count(*) FROM posts WHERE \(Self.stalePost)",
                [.integer(Int64(precision))])?.int64 ?? 0)
        return (posts, stale)
    }

    /// Gives every post whose geohash is not its position's at `precision` its position's.
    /// With `markingEach`, each is marked changed (SQLite holds every RETURNING row until
    /// the last, so for many the caller marks them all at once instead).
    ///
    /// - Returns: how many were written.
    /// - Throws: `SQLiteError`.
    package func assignStaleGeohashes(precision: Int, markingEach: Bool) throws -> Int {
        let length = SQLiteValue.integer(Int64(precision))
        let update =
            "UPDATE posts SET geohash = trove_geohash(lat, lon, ?1) WHERE \(Self.stalePost)"
        guard markingEach else { return try database.execute(update, [length]) }
        let statement = try database.prepare(update + " RETURNING id")
        try statement.bind([length])
        let id = try statement.index(of: PostColumn.id)
        var changed = 0
        while let row = try statement.next() {
            changed += 1
            workspace.markChanged(.post, row.text(id) ?? "")
        }
        return changed
    }

    private static let stalePost = "geohash IS NOT trove_geohash(lat, lon, ?1)"
}
