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
        let precision = try workspace.geohashPrecision()
        let ranges = circle.geohashRanges(storedPrecision: precision)
        let found: [NearbyRecord]
        switch kind {
        case .treasures: found = try treasures(in: workspace, circle: circle, ranges: ranges)
        case .posts: found = try posts(in: workspace, circle: circle, ranges: ranges)
        }
        return found.sorted { ($0.distance, $0.key) < ($1.distance, $1.key) }
    }

    /// Treasures keep their geohashes in a narrow table, so the ranges are scanned on its
    /// covering index alone. A candidate whose geohash cell lies wholly outside the circle
    /// is dropped there; only the rest are looked up in the wide treasures table, which
    /// is what a query spends its time on.
    private static func treasures(
        in workspace: Workspace, circle: GeoCircle, ranges: [GeohashRange]
    ) throws -> [NearbyRecord] {
        let candidates = try workspace.database.prepare(
            "SELECT key, geohash FROM treasure_geohashes WHERE geohash >= ? AND geohash < ?")
        let details = try workspace.database.prepare(
            "SELECT name, lat, lon FROM treasures WHERE key = ?")
        var matches = Matches(circle: circle)
        for range in ranges {
            try candidates.bind([.text(range.start), .text(range.end)])
            while let row = try candidates.next() {
                let cell = row.withUTF8(1) { Geohash.cellCentre(utf8: $0) } ?? nil
                if let cell,
                    circle.distance(toLatitude: cell.latitude, longitude: cell.longitude)
                        > circle.radius + cell.reach + 0.001
                {
                    continue
                }
                guard let key = row.text(0) else { continue }
                try details.bind([.text(key)])
                guard let detail = try details.next(), let latitude = detail.double(1),
                    let longitude = detail.double(2)
                else { continue }
                matches.add(
                    key: key, name: detail.text(0) ?? "", latitude: latitude,
                    longitude: longitude)
            }
        }
        return matches.found
    }

    private static func posts(
        in workspace: Workspace, circle: GeoCircle, ranges: [GeohashRange]
    ) throws -> [NearbyRecord] {
        let statement = try workspace.database.prepare(
            """
            SELECT id, coalesce(description, ''), lat, lon FROM posts
            WHERE geohash >= ? AND geohash < ?
            """)
        var matches = Matches(circle: circle)
        for range in ranges {
            try statement.bind([.text(range.start), .text(range.end)])
            while let row = try statement.next() {
                guard let key = row.text(0), let latitude = row.double(2),
                    let longitude = row.double(3)
                else { continue }
                matches.add(
                    key: key, name: row.text(1) ?? "", latitude: latitude, longitude: longitude)
            }
        }
        return matches.found
    }

    /// The records a circle query keeps: inside the circle by exact distance, each once
    /// although neighbouring ranges may both hold it.
    private struct Matches {
        let circle: GeoCircle
        private var seen: Set<String> = []
        private(set) var found: [NearbyRecord] = []

        init(circle: GeoCircle) {
            self.circle = circle
        }

        mutating func add(key: String, name: String, latitude: Double, longitude: Double) {
            let distance = circle.distance(toLatitude: latitude, longitude: longitude)
            guard distance <= circle.radius, seen.insert(key).inserted else { return }
            found.append(
                NearbyRecord(
                    key: key, name: name, latitude: latitude, longitude: longitude,
                    distance: distance))
        }
    }

    /// Every treasure's key and position, distance 0, in key order: what a brute-force
    /// scan checks a circle query against.
    ///
    /// - Throws: `SQLiteError`.
    public static func allTreasurePositions(_ workspace: Workspace) throws -> [NearbyRecord] {
        try workspace.database.query("SELECT key, name, lat, lon FROM treasures ORDER BY key", []) {
            row in
            NearbyRecord(
                key: row.text(0) ?? "", name: row.text(1) ?? "", latitude: row.double(2) ?? 0,
                longitude: row.double(3) ?? 0, distance: 0)
        }
    }
}
