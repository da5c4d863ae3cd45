import TroveBase
import TroveStore

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
        try GeohashFunction.register(on: workspace.database)
        let store = TreasureStore(workspace)
        return try workspace.write {
            if let precision { try store.setGeohashPrecision(precision) }
            let length = try workspace.geohashPrecision()
            var result = Result()
            let refilled: Bool
            (result.treasures, refilled) = try assignTreasures(precision: length, in: store)
            result.posts = try assignPosts(precision: length, in: store, PostStore(workspace))
            // Every post's geohash is its position's now (or NULL, as is trove_geohash of a
            // position out of range), and so is every treasure's after a refill.
            try StaleRecords.geohash.record(
                fresh: refilled ? [.treasure, .post] : [.post], in: workspace)
            return result
        }
    }

    /// Treasures keep their geohashes in a narrow table of their own. When none is at
    /// the wanted precision yet (a new workspace, a new precision), the table is refilled
    /// in key order with its index dropped and rebuilt after: one sort is much cheaper
    /// than a million scattered index updates. Otherwise only stale rows are written.
    /// Deciding that takes one probe of the table, not a count of either table: at a
    /// million rows a count is a full scan.
    /// Returns how many were written, and whether the table was refilled.
    private static func assignTreasures(precision: Int, in store: TreasureStore) throws -> (
        Int, Bool
    ) {
        guard !(try store.hasGeohash(ofLength: precision)) else {
            return (try store.assignStaleGeohashes(precision: precision), false)
        }
        let index = "treasure_geohashes_geohash"
        let definition = try store.indexDefinition(index)
        if definition != nil { try store.dropIndex(index) }
        // Every treasure changes: one mark says so, and the triggers stay quiet.
        try ChangeLog.markEverything(.treasure, in: store.database)
        try store.removeAllGeohashes()
        let written = try refill(precision: precision, in: store)
        if written > 0 { store.markAllChanged(.treasure) }
        if let definition { try store.rebuildIndex(definition) }
        return (written, true)
    }

    /// Fills the empty table in key order. Another connection reads the positions and
    /// computes the geohashes on a thread of its own while this one writes, so the scan
    /// of the wide treasures table costs the writer no time. It sees the treasures as they
    /// were when this transaction began, which holds the write lock and changes none.
    private static func refill(precision: Int, in store: TreasureStore) throws -> Int {
        let channel = BoundedChannel<KeyedGeohashes>(capacity: 8)
        let path = store.database.path
        let worker = Worker { () throws -> Void in
            defer { channel.close() }
            // Opened here, before this transaction can commit: this thread closes the
            // channel only after its last row, and the writer waits for that.
            let reader = try TreasureStore.reader(path: path)
            var batch = KeyedGeohashes()
            try reader.forEachPositionInKeyOrder { key, latitude, longitude in
                // As trove_geohash: no geohash, and no row, for a position out of range.
                guard let latitude, let longitude,
                    Coordinate.isValid(latitude: latitude, longitude: longitude)
                else { return true }
                batch.bytes.append(contentsOf: key)
                batch.ends.append(batch.bytes.count)
                let geohash = Geohash.encode(
                    latitude: latitude, longitude: longitude, precision: precision)
                batch.bytes.append(contentsOf: geohash.utf8)
                batch.ends.append(batch.bytes.count)
                if batch.count == KeyedGeohashes.capacity {
                    guard channel.send(batch) else { return false }
                    batch = KeyedGeohashes()
                }
                return true
            }
            if batch.count > 0 { _ = channel.send(batch) }
        }
        defer {
            channel.cancel()
            try? worker.wait()
        }
        var written = 0
        while let batch = try channel.next() {
            try store.insertGeohashes(bytes: batch.bytes, ends: batch.ends)
            written += batch.count
        }
        try worker.wait()
        return written
    }

    /// Recomputes the posts' geohashes in a single pass and writes only those that differ.
    /// When most rows change, the geohash index is dropped and rebuilt: one sort is much
    /// cheaper than a million scattered index updates.
    private static func assignPosts(
        precision: Int, in store: TreasureStore, _ posts: PostStore
    ) throws -> Int {
        let index = "posts_geohash"
        let (rows, changing) = try posts.geohashCounts(precision: precision)
        if changing == 0 { return 0 }
        let rebuild = changing > 10_000 && changing * 4 > rows
        let definition = try store.indexDefinition(index)
        if rebuild, definition != nil { try store.dropIndex(index) }
        // Many changes are marked as one, before the update: its triggers then stay quiet,
        // and no row is returned (SQLite holds every RETURNING row until the last).
        let many = rebuild || changing > IncrementalBase.changeLimit
        if many { try ChangeLog.markEverything(.post, in: store.database) }
        let changed = try posts.assignStaleGeohashes(precision: precision, markingEach: !many)
        if rebuild, let definition { try store.rebuildIndex(definition) }
        return changed
    }
}

/// Keys and their geohashes on their way from the reading connection to the writing one.
private struct KeyedGeohashes: Sendable {
    var bytes: [UInt8] = []
    /// Where each key ends in `bytes`, then where its geohash ends.
    var ends: [Int] = []
    var count: Int { ends.count / 2 }
    static let capacity = 4096
}
