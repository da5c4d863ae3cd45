import TroveSQLite
import TroveStore

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

    /// Local treasure images other than `''`, and posts' photos other than `''`: what
    /// needs a Storage bucket for its download URL (see `MissingBucket`).
    public var bucketTreasureImages = 0
    public var bucketPostPhotos = 0

    /// Reads the counts from `workspace`'s counters, and the stale ones from the records
    /// changed since `geohash`, `images` or a status last took them in: no scan, unless a
    /// write since may have changed every record. What a count found is recorded when the
    /// workspace can be written without waiting, so that the next status is quick.
    ///
    /// - Throws: `SQLiteError`.
    public init(workspace: Workspace) throws {
        let counts = try StatusCounters.read(in: workspace.database)
        treasures = counts.treasures
        for (status, count) in counts.posts where count != 0 || posts[status] != nil {
            posts[status] = count
        }
        photos = counts.postPhotos
        photosToPublish = counts.postPhotosApproved
        bucketTreasureImages = counts.treasureImages - counts.treasureImagesEmpty
        bucketPostPhotos = counts.postPhotos - counts.postPhotosEmpty
        geohashStale = try StaleRecords.geohash.countRecording(in: workspace)
        imagesStale = try StaleRecords.images.countRecording(in: workspace)
        imagesCurrent = counts.treasureImages + photosToPublish - imagesStale
        try readExports(workspace.database)
    }

    /// Counts everything by scanning the workspace: what the counters must agree with
    /// (`trove check` compares the two).
    ///
    /// - Throws: `SQLiteError`.
    public init(recounting workspace: Workspace) throws {
        let database = workspace.database
        treasures = Int(try database.scalar("SELECT count(*) FROM treasures")?.int64 ?? 0)
        for (status, count) in try database.query(
            "SELECT status, count(*) FROM posts GROUP BY status", [],
            { ($0.text(0) ?? "", Int($0.int64(1) ?? 0)) })
        {
            posts[status] = count
        }
        geohashStale = try StaleRecords.geohash.recount(in: workspace)
        imagesStale = try StaleRecords.images.recount(in: workspace)
        let images =
            try database.scalar(
                """
                SELECT (SELECT count(*) FROM treasures WHERE image IS NOT NULL
                          AND image NOT LIKE 'http://%' AND image NOT LIKE 'https://%')
                     + (SELECT count(*) FROM posts WHERE photo IS NOT NULL AND status = 'approved')
                """)?.int64 ?? 0
        imagesCurrent = Int(images) - imagesStale
        (photosToPublish, photos) =
            try database.query(
                """
                SELECT count(*) FILTER (WHERE status = 'approved'), count(*) FROM posts
                WHERE photo IS NOT NULL
                """, []
            ) { row in (Int(row.int64(0) ?? 0), Int(row.int64(1) ?? 0)) }.first ?? (0, 0)
        let bucket = try MissingBucket.counts(in: workspace, approvedPostsOnly: false)
        (bucketTreasureImages, bucketPostPhotos) = (bucket.treasures, bucket.posts)
        try readExports(database)
    }

    private mutating func readExports(_ database: Database) throws {
        let exports = ExportStore(database)
        lastExport = try exports.lastExportTime()
        lastRecordedExport = try exports.lastWrittenExport().map {
            RecordedExport(layout: $0.layout, out: $0.out)
        }
    }

    /// The counts that differ from `other`'s, by name, for a message.
    public func differences(from other: WorkspaceStatus) -> [(name: String, mine: Int, other: Int)]
    {
        var counts: [(String, Int, Int)] = [
            ("treasures", treasures, other.treasures),
            ("images current", imagesCurrent, other.imagesCurrent),
            ("images stale", imagesStale, other.imagesStale),
            ("geohashes stale", geohashStale, other.geohashStale),
            ("photos to publish", photosToPublish, other.photosToPublish),
            ("photos", photos, other.photos),
            ("treasure images needing a bucket", bucketTreasureImages, other.bucketTreasureImages),
            ("post photos needing a bucket", bucketPostPhotos, other.bucketPostPhotos),
        ]
        for status in Set(posts.keys).union(other.posts.keys).sorted() {
            counts.append(
                ("\(status) posts", posts[status, default: 0], other.posts[status, default: 0]))
        }
        return counts.filter { $0.1 != $0.2 }.map { (name: $0.0, mine: $0.1, other: $0.2) }
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
