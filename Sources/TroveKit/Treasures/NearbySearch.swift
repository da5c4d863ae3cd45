import TroveBase
import TroveStore

/// A record found by a circle query, with its distance from the centre: a treasure or a
/// post, so not a `Treasure`.
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
        var matches = Matches(circle: circle)
        try TreasureStore(workspace).forEachTreasure(
            inGeohashRanges: ranges,
            keeping: { geohash in
                guard let cell = Geohash.cellCentre(utf8: geohash) else { return true }
                return circle.distance(toLatitude: cell.latitude, longitude: cell.longitude)
                    <= circle.radius + cell.reach + 0.001
            }
        ) { treasure in
            matches.add(
                key: treasure.key, name: treasure.name, latitude: treasure.latitude,
                longitude: treasure.longitude)
        }
        return matches.found
    }

    private static func posts(
        in workspace: Workspace, circle: GeoCircle, ranges: [GeohashRange]
    ) throws -> [NearbyRecord] {
        var matches = Matches(circle: circle)
        try PostStore(workspace).forEach(inGeohashRanges: ranges) {
            id, description, latitude, longitude in
            matches.add(key: id, name: description, latitude: latitude, longitude: longitude)
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
        try TreasureStore(workspace).positionsInKeyOrder().map {
            NearbyRecord(
                key: $0.key, name: $0.name, latitude: $0.latitude, longitude: $0.longitude,
                distance: 0)
        }
    }
}
