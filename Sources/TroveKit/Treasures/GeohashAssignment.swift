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
            let refilled: Bool
            (result.treasures, refilled) = try assignTreasures(precision: length, in: workspace)
            result.posts = try assignPosts(precision: length, in: workspace)
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
    private static func assignTreasures(precision: Int, in workspace: Workspace) throws -> (
        Int, Bool
    ) {
        let database = workspace.database
        let length = SQLiteValue.integer(Int64(precision))
        let fresh = "trove_geohash(t.lat, t.lon, ?1)"
        let anyCurrent =
            try database.scalar(
                "SELECT EXISTS (SELECT 1 FROM treasure_geohashes WHERE length(geohash) = ?)",
                [length])?.int64 == 1
        guard !anyCurrent else {
            // A NULL geohash (a position out of range) fails NOT NULL and is skipped.
            var written = 0
            _ = try database.query(
                """
                INSERT OR IGNORE INTO treasure_geohashes (key, geohash)
                SELECT t.key, \(fresh) FROM treasures AS t
                LEFT JOIN treasure_geohashes AS g ON g.key = t.key
                WHERE g.geohash IS NOT \(fresh)
                ON CONFLICT (key) DO UPDATE SET geohash = excluded.geohash
                RETURNING key
                """, [length]
            ) { row in
                written += 1
                workspace.markChanged(.treasure, row.text(0) ?? "")
            }
            return (written, false)
        }
        let index = "treasure_geohashes_geohash"
        let definition = try database.scalar(
            "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?", [.text(index)])?
            .string
        if definition != nil { try database.execute("DROP INDEX \(index)") }
        // Every treasure changes: one mark says so, and the triggers stay quiet.
        try ChangeLog.markEverything(.treasure, in: database)
        try database.execute("DELETE FROM treasure_geohashes")
        let written = try refill(precision: precision, in: database)
        if written > 0 { workspace.markAllChanged(.treasure) }
        if let definition { try rebuildIndex(definition, in: database) }
        return (written, true)
    }

    /// Fills the empty table in key order. Another connection reads the positions and
    /// computes the geohashes on a thread of its own while this one writes, so the scan
    /// of the wide treasures table costs the writer no time. It sees the treasures as they
    /// were when this transaction began, which holds the write lock and changes none.
    private static func refill(precision: Int, in database: Database) throws -> Int {
        let channel = BoundedChannel<KeyedGeohashes>(capacity: 8)
        let path = database.path
        let worker = Worker { () throws -> Void in
            defer { channel.close() }
            // Opened here, before this transaction can commit: this thread closes the
            // channel only after its last row, and the writer waits for that.
            let reader = try Database(path: path, mode: .readOnly)
            let rows = try reader.prepare("SELECT key, lat, lon FROM treasures ORDER BY key")
            var batch = KeyedGeohashes()
            while let row = try rows.next() {
                // As trove_geohash: no geohash, and no row, for a position out of range.
                guard let latitude = number(row[1]), let longitude = number(row[2]),
                    Coordinate.isValid(latitude: latitude, longitude: longitude)
                else { continue }
                row.withUTF8(0) { batch.bytes.append(contentsOf: $0) }
                batch.ends.append(batch.bytes.count)
                let geohash = Geohash.encode(
                    latitude: latitude, longitude: longitude, precision: precision)
                batch.bytes.append(contentsOf: geohash.utf8)
                batch.ends.append(batch.bytes.count)
                if batch.count == KeyedGeohashes.capacity {
                    guard channel.send(batch) else { return }
                    batch = KeyedGeohashes()
                }
            }
            if batch.count > 0 { _ = channel.send(batch) }
        }
        defer {
            channel.cancel()
            try? worker.wait()
        }
        let chunk = 64
        let insertChunk = try database.prepare(
            "INSERT INTO treasure_geohashes (key, geohash) VALUES "
                + Array(repeating: "(?, ?)", count: chunk).joined(separator: ", "))
        let insert = try database.prepare(
            "INSERT INTO treasure_geohashes (key, geohash) VALUES (?, ?)")
        var written = 0
        while let batch = try channel.next() {
            try batch.bytes.withUnsafeBytes { bytes in
                func bind(_ row: Int, at index: Int32, in statement: Statement) throws {
                    let keyStart = row == 0 ? 0 : batch.ends[2 * row - 1]
                    let keyEnd = batch.ends[2 * row]
                    let geohashEnd = batch.ends[2 * row + 1]
                    try statement.bindText(
                        borrowing: bytes.baseAddress! + keyStart, count: keyEnd - keyStart,
                        at: index)
                    try statement.bindText(
                        borrowing: bytes.baseAddress! + keyEnd, count: geohashEnd - keyEnd,
                        at: index + 1)
                }
                var row = 0
                while batch.count - row >= chunk {
                    for offset in 0..<chunk {
                        try bind(row + offset, at: Int32(1 + 2 * offset), in: insertChunk)
                    }
                    try insertChunk.step()
                    row += chunk
                }
                while row < batch.count {
                    try bind(row, at: 1, in: insert)
                    try insert.step()
                    row += 1
                }
            }
            written += batch.count
        }
        try worker.wait()
        return written
    }

    /// Creates an index again. Its sort sets runs aside in temporary files: the
    /// workspace keeps temporary data in memory, where SQLite's sort of a million keys
    /// takes a third longer and 30 MB more, so files are used here when they can be.
    private static func rebuildIndex(_ definition: String, in database: Database) throws {
        // Refused once the transaction has used temporary storage: then in memory.
        try? database.execute("PRAGMA temp_store = FILE")
        defer { try? database.execute("PRAGMA temp_store = MEMORY") }
        do {
            try database.execute(definition)
        } catch {
            // No writable temporary folder: sort in memory after all.
            try database.execute("PRAGMA temp_store = MEMORY")
            try database.execute(definition)
        }
    }

    private static func number(_ value: SQLiteValue?) -> Double? {
        switch value {
        case .real(let double): double
        case .integer(let integer): Double(integer)
        default: nil
        }
    }

    /// Recomputes one table's geohashes in a single pass and writes only those that
    /// differ. When most rows change, the geohash index is dropped and rebuilt: one sort is
    /// much cheaper than a million scattered index updates.
    private static func assignPosts(precision: Int, in workspace: Workspace) throws -> Int {
        let database = workspace.database
        let table = "posts"
        let index = "posts_geohash"
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
        // Many changes are marked as one, before the update: its triggers then stay quiet,
        // and no row is returned (SQLite holds every RETURNING row until the last).
        let many = rebuild || changing > IncrementalBase.changeLimit
        if many { try ChangeLog.markEverything(.post, in: database) }
        var changed = 0
        if many {
            changed = try database.execute(
                "UPDATE \(table) SET geohash = trove_geohash(lat, lon, ?1) WHERE \(stale)", [length]
            )
        } else {
            _ = try database.query(
                "UPDATE \(table) SET geohash = trove_geohash(lat, lon, ?1) WHERE \(stale) RETURNING id",
                [length]
            ) { row in
                changed += 1
                workspace.markChanged(.post, row.text(0) ?? "")
            }
        }
        if rebuild, let definition { try rebuildIndex(definition, in: database) }
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
