import TroveSQLite

/// A record found by a circle query, with its distance from the centre.
public struct NearbyRecord: Equatable, Sendable {
    public var key: String
    public var name: String
    public var latitude: Double
    public var longitude: Double
    public var distance: Double
}

/// GeoFire's circle query over the workspace: geohash range scans on the index, then an
/// exact great-circle filter, nearest first.
public enum NearbySearch {
    /// What to search.
    public enum Kind: Sendable {
        case treasures
        case posts
    }

    /// Records of `kind` inside `circle`, nearest first (ties by key).
    ///
    /// Only records with a stored geohash can be found, as in GeoFire; `trove geohash`
    /// assigns them.
    /// - Throws: `SQLiteError`.
    public static func search(_ workspace: Workspace, kind: Kind, circle: GeoCircle) throws
        -> [NearbyRecord]
    {
        let sql: String
        switch kind {
        case .treasures:
            sql = """
                SELECT t.key, t.name, t.lat, t.lon
                FROM treasure_geohashes AS g JOIN treasures AS t ON t.key = g.key
                WHERE g.geohash >= ? AND g.geohash < ?
                """
        case .posts:
            sql = """
                SELECT id, coalesce(description, ''), lat, lon FROM posts
                WHERE geohash >= ? AND geohash < ?
                """
        }
        let statement = try workspace.database.prepare(sql)
        let precision = try workspace.geohashPrecision()
        var seen: Set<String> = []
        var found: [NearbyRecord] = []
        for range in circle.geohashRanges(storedPrecision: precision) {
            try statement.bind([.text(range.start), .text(range.end)])
            while let row = try statement.next() {
                guard let key = row.text(0), let latitude = row.double(2),
                    let longitude = row.double(3)
                else { continue }
                let distance = circle.distance(toLatitude: latitude, longitude: longitude)
                if distance <= circle.radius && seen.insert(key).inserted {
                    found.append(
                        NearbyRecord(
                            key: key, name: row.text(1) ?? "", latitude: latitude,
                            longitude: longitude, distance: distance))
                }
            }
        }
        return found.sorted { ($0.distance, $0.key) < ($1.distance, $1.key) }
    }
}
