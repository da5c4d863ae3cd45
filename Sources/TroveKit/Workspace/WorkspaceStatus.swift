import TroveSQLite

/// The counts `trove status` shows, and the next command worth running.
public struct WorkspaceStatus: Equatable, Sendable {
    public var treasures = 0
    public var posts: [String: Int] = ["pending": 0, "approved": 0, "rejected": 0, "flagged": 0]
    public var imagesCurrent = 0
    public var imagesStale = 0
    public var geohashStale = 0
    public var lastExport: String?
    /// The layout (built-in name or file path) and output file of the last export written
    /// with `--out`, for the `export --update` to run next.
    public var lastRecordedExport: RecordedExport?
    /// Approved posts with a photo: the photos a publish puts in the bucket.
    public var photosToPublish = 0
    /// Posts of any status with a photo.
    public var photos = 0

    /// A layout and the file its last export was written to.
    public struct RecordedExport: Equatable, Sendable {
        public var layout: String
        public var out: String
    }

    /// Reads the counts from `workspace`.
    ///
    /// - Throws: `SQLiteError`.
    public init(workspace: Workspace) throws {
        let database = workspace.database
        let precision = try workspace.geohashPrecision()
        try GeohashFunction.register(on: database)
        treasures = Int(try database.scalar("SELECT count(*) FROM treasures")?.int64 ?? 0)
        for (status, count) in try database.query(
            "SELECT status, count(*) FROM posts GROUP BY status", [],
            { ($0.text(0) ?? "", Int($0.int64(1) ?? 0)) })
        {
            posts[status] = count
        }
        let length = SQLiteValue.integer(Int64(precision))
        geohashStale =
            Int(
                try database.scalar(
                    """
                    SELECT count(*) FROM treasures AS t
                    LEFT JOIN treasure_geohashes AS g ON g.key = t.key
                    WHERE g.geohash IS NOT trove_geohash(t.lat, t.lon, ?)
                    """, [length])?.int64 ?? 0)
            + Int(
                try database.scalar(
                    """
                    SELECT count(*) FROM posts
                    WHERE lat IS NOT NULL AND lon IS NOT NULL
                      AND geohash IS NOT trove_geohash(lat, lon, ?)
                    """, [length])?.int64 ?? 0)
        let images = try ImageInventory(workspace: workspace)
        imagesCurrent = images.current
        imagesStale = images.stale
        lastExport = try database.scalar("SELECT max(at) FROM exports")?.string
        lastRecordedExport = try database.query(
            "SELECT layout, out FROM exports WHERE out IS NOT NULL ORDER BY at DESC LIMIT 1", []
        ) { row in RecordedExport(layout: row.text(0) ?? "", out: row.text(1) ?? "") }.first
        (photosToPublish, photos) =
            try database.query(
                """
                SELECT count(*) FILTER (WHERE status = 'approved'), count(*) FROM posts
                WHERE photo IS NOT NULL
                """, []
            ) { row in (Int(row.int64(0) ?? 0), Int(row.int64(1) ?? 0)) }.first ?? (0, 0)
    }

    /// What to run next, like `git status` suggests.
    public var nextStep: String? {
        if treasures == 0 && posts.values.reduce(0, +) == 0 {
            return "trove import treasures FILE"
        }
        if geohashStale > 0 { return "trove geohash" }
        if imagesStale > 0 { return "trove images" }
        if posts["pending", default: 0] > 0 { return "trove review" }
        if lastExport == nil { return "trove export --layout flatirongo --out build/firebase.json" }
        return nil
    }
}

/// Images referenced by treasures and posts, split by whether their renditions are made.
struct ImageInventory {
    var current = 0
    var stale = 0

    init(workspace: Workspace) throws {
        let database = workspace.database
        // An image is current when a rendition was made from its present source path.
        let sql = """
            SELECT count(*), count(r.owner_key) FROM (
                SELECT 'treasure' AS kind, key, image AS source FROM treasures
                WHERE image IS NOT NULL AND image NOT LIKE 'http://%' AND image NOT LIKE 'https://%'
                UNION ALL
                SELECT 'post', id, photo FROM posts WHERE photo IS NOT NULL AND status = 'approved'
            ) AS i
            LEFT JOIN (SELECT DISTINCT owner_kind, owner_key, source FROM renditions) AS r
              ON r.owner_kind = i.kind AND r.owner_key = i.key AND r.source = i.source
            """
        let statement = try database.prepare(sql)
        if let row = try statement.next() {
            let total = Int(row.int64(0) ?? 0)
            current = Int(row.int64(1) ?? 0)
            stale = total - current
        }
    }
}
