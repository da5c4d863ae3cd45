import TroveSQLite

/// The counts `status` reads instead of scanning (table `status_counters`, migration 017).
///
/// Triggers keep them for every write but one: treasures inserted by an import into an
/// empty table, which counts them itself (see `TreasureImporter`), since a trigger per row
/// would double the cost of a first import.
package enum StatusCounters {
    /// The counts, as the row holds them.
    package struct Counts {
        package var treasures = 0
        package var treasureImages = 0
        package var treasureImagesEmpty = 0
        package var posts: [String: Int] = [:]
        package var postPhotos = 0
        package var postPhotosEmpty = 0
        package var postPhotosApproved = 0
    }

    /// Every count.
    ///
    /// - Throws: `SQLiteError`.
    package static func read(in database: Database) throws -> Counts {
        let statuses = ["pending", "approved", "rejected", "flagged", "withdrawn"]
        let sql =
            "SELECT treasures, treasure_images, treasure_images_empty, "
            + statuses.map { "posts_\($0)" }.joined(separator: ", ")
            + ", post_photos, post_photos_empty, post_photos_approved FROM status_counters"
        return try database.query(sql) { row in
            func int(_ index: Int) -> Int { Int(row.int64(index) ?? 0) }
            var counts = Counts(
                treasures: int(0), treasureImages: int(1), treasureImagesEmpty: int(2))
            for (offset, status) in statuses.enumerated() {
                counts.posts[status] = int(3 + offset)
            }
            (counts.postPhotos, counts.postPhotosEmpty, counts.postPhotosApproved) =
                (int(8), int(9), int(10))
            return counts
        }.first ?? Counts()
    }

    /// What one batch of new treasures adds to the counters.
    package struct TreasureCounts: Sendable {
        package var treasures = 0
        /// Local images (not `http(s)://`), as `status` counts them: `''` included.
        package var images = 0
        var emptyImages = 0

        package init() {}

        /// Counts one treasure whose image reference is `image` (nil: none).
        package mutating func add(image: UnsafeRawBufferPointer?) {
            treasures += 1
            guard let image else { return }
            if image.isEmpty { emptyImages += 1 }
            if !Self.isRemote(image) { images += 1 }
        }

        /// As SQL's `image LIKE 'http://%' OR image LIKE 'https://%'`, which ignores the
        /// case of ASCII letters.
        static func isRemote(_ image: UnsafeRawBufferPointer) -> Bool {
            func hasPrefix(_ prefix: StaticString) -> Bool {
                guard image.count >= prefix.utf8CodeUnitCount else { return false }
                let bytes = UnsafeBufferPointer(
                    start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
                for (offset, byte) in bytes.enumerated() {
                    var letter = image[offset]
                    if (0x41...0x5A).contains(letter) { letter += 0x20 }
                    if letter != byte { return false }
                }
                return true
            }
            return hasPrefix("http://") || hasPrefix("https://")
        }
    }

    /// Adds new treasures to the counters. Call inside the write that inserted them.
    ///
    /// - Throws: `SQLiteError`.
    package static func add(_ counts: TreasureCounts, in database: Database) throws {
        guard counts.treasures > 0 else { return }
        try database.execute(
            """
            UPDATE status_counters SET treasures = treasures + ?1,
                treasure_images = treasure_images + ?2,
                treasure_images_empty = treasure_images_empty + ?3
            WHERE id = 1
            """,
            [
                .integer(Int64(counts.treasures)), .integer(Int64(counts.images)),
                .integer(Int64(counts.emptyImages)),
            ])
    }

    /// Drops the trigger that counts inserted treasures, for an import into an empty
    /// table, which counts its rows itself. Call inside the import's write, and
    /// `countInserts(in:)` before it ends.
    ///
    /// - Throws: `SQLiteError`.
    package static func stopCountingInserts(in database: Database) throws {
        try database.execute("DROP TRIGGER IF EXISTS treasures_counted_insert")
    }

    /// Creates the trigger that counts inserted treasures again.
    ///
    /// - Throws: `SQLiteError`.
    package static func countInserts(in database: Database) throws {
        let exists = try database.scalar(
            "SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND name = ?",
            [.text("treasures_counted_insert")])
        if exists == nil { try database.execute(Schema.treasuresCountedInsert) }
    }
}

// MARK: - Stale records

/// The records whose geohash or images are stale, counted from the ones stale when
/// `trove geohash` or `trove images` last ran and those marked changed since.
///
/// A write that may have changed every record (a bulk mark), a different geohash
/// precision, or a command that never ran makes the count a scan of the whole kind, with
/// the same answer.
public enum StaleRecords: String, Sendable {
    /// Treasures and posts whose geohash is missing or does not match their position.
    case geohash
    /// Treasure images and approved posts' photos without a rendition of their source.
    case images

    /// The most keys worth remembering: beyond, counts scan until the command runs again.
    static let limit = 100_000

    /// How many records are stale now.
    ///
    /// - Throws: `SQLiteError`.
    public func count(in workspace: Workspace) throws -> Int {
        let database = workspace.database
        let inputs = try self.inputs(workspace)
        let taken = try takenIn(inputs: inputs, in: database)
        var total = 0
        for kind in [RecordKind.treasure, .post] {
            let statement = try prepare(
                "SELECT count(*) FROM (\(keysSQL(kind, restricted: taken[kind] != nil)))",
                kind: kind, since: taken[kind], in: workspace)
            total += Int(try statement.next()?.int64(0) ?? 0)
        }
        return total
    }

    /// How many records are stale now, as `count(in:)`; when that had to check more than
    /// what changed since the command last ran and the workspace can be written without
    /// waiting for another writer, records what it found, so that the next count is quick.
    ///
    /// - Throws: `SQLiteError`, `WorkspaceError`.
    public func countRecording(in workspace: Workspace) throws -> Int {
        if try !isTakenIn(workspace),
            let count = try workspace.writeIfFree({ try record(in: workspace) }) ?? nil
        {
            return count
        }
        return try count(in: workspace)
    }

    /// Whether everything up to the clock's value now is taken in, with today's settings.
    private func isTakenIn(_ workspace: Workspace) throws -> Bool {
        let database = workspace.database
        guard let consumer = try ChangeLog.consumer(rawValue, in: database) else { return false }
        return try consumer.inputs == inputs(workspace)
            && consumer.seq == ChangeLog.clock(in: database)
    }

    /// The same count by scanning every record: what `count(in:)` must agree with.
    ///
    /// - Throws: `SQLiteError`.
    package func recount(in workspace: Workspace) throws -> Int {
        var total = 0
        for kind in [RecordKind.treasure, .post] {
            let statement = try prepare(
                "SELECT count(*) FROM (\(keysSQL(kind, restricted: false)))", kind: kind,
                since: nil, in: workspace)
            total += Int(try statement.next()?.int64(0) ?? 0)
        }
        return total
    }

    /// Records which records are stale now and that everything up to now is taken in.
    /// Call at the end of the command's write, after its own changes; `fresh` names the
    /// kinds the command knows to have none stale, which are not checked.
    ///
    /// - Returns: how many are stale, or nil when too many to remember.
    /// - Throws: `SQLiteError`.
    @discardableResult
    package func record(fresh: Set<RecordKind> = [], in workspace: Workspace) throws -> Int? {
        let database = workspace.database
        // The command's own marks come before the clock value recorded below.
        try workspace.recordChanges()
        let inputs = try self.inputs(workspace)
        let taken = try takenIn(inputs: inputs, in: database)
        var stale: [(kind: RecordKind, key: String)] = []
        for kind in [RecordKind.treasure, .post] where !fresh.contains(kind) {
            let statement = try prepare(
                keysSQL(kind, restricted: taken[kind] != nil) + " LIMIT \(Self.limit + 1)",
                kind: kind, since: taken[kind], in: workspace)
            while let row = try statement.next() {
                stale.append((kind, row.text(0) ?? ""))
            }
        }
        let what = SQLiteValue.text(rawValue)
        try database.execute("DELETE FROM stale_records WHERE what = ?", [what])
        guard stale.count <= Self.limit else {
            // Too many to remember: counts scan until the command runs again.
            try database.execute("DELETE FROM change_consumers WHERE name = ?", [what])
            return nil
        }
        let insert = try database.prepare(
            "INSERT INTO stale_records (what, kind, key) VALUES (?, ?, ?)")
        for record in stale {
            try insert.run([what, .text(record.kind.rawValue), .text(record.key)])
        }
        try ChangeLog.recordConsumer(rawValue, inputs: inputs, in: database)
        return stale.count
    }

    // MARK: - Queries

    /// The settings the staleness depends on.
    private func inputs(_ workspace: Workspace) throws -> String? {
        switch self {
        case .geohash: "precision=\(try workspace.geohashPrecision())"
        case .images: nil
        }
    }

    /// For each kind whose stale records can be found among the remembered ones and those
    /// marked since, the clock value they were taken in at.
    private func takenIn(inputs: String?, in database: Database) throws -> [RecordKind: Int64] {
        guard let consumer = try ChangeLog.consumer(rawValue, in: database),
            consumer.inputs == inputs
        else { return [:] }
        var taken: [RecordKind: Int64] = [:]
        for kind in [RecordKind.treasure, .post]
        where try !ChangeLog.markedAll(kind, since: consumer.seq, in: database) {
            taken[kind] = consumer.seq
        }
        return taken
    }

    /// The keys of the stale records of `kind`; `restricted` checks only the remembered
    /// ones and those marked after `?2`. Parameters: `?1` the kind, `?2` the clock value,
    /// `?3` this case's name, `?4` the geohash precision.
    private func keysSQL(_ kind: RecordKind, restricted: Bool) -> String {
        let candidates =
            "(\(ChangeLog.changedKeysSQL) UNION SELECT key FROM stale_records "
            + "WHERE what = ?3 AND kind = ?1)"
        switch (self, kind) {
        case (.geohash, .treasure):
            return """
                SELECT t.key FROM treasures AS t
                LEFT JOIN treasure_geohashes AS g ON g.key = t.key
                WHERE g.geohash IS NOT trove_geohash(t.lat, t.lon, ?4)
                """ + (restricted ? " AND t.key IN \(candidates)" : "")
        case (.geohash, .post):
            return """
                SELECT id FROM posts
                WHERE lat IS NOT NULL AND lon IS NOT NULL
                  AND geohash IS NOT trove_geohash(lat, lon, ?4)
                """ + (restricted ? " AND id IN \(candidates)" : "")
        case (.images, .treasure):
            // An image is current when a rendition was made from its present source path.
            return """
                SELECT t.key FROM treasures AS t
                WHERE t.image IS NOT NULL AND t.image NOT LIKE 'http://%'
                  AND t.image NOT LIKE 'https://%'
                  AND NOT EXISTS (SELECT 1 FROM renditions AS r WHERE r.owner_kind = 'treasure'
                                  AND r.owner_key = t.key AND r.source = t.image)
                """ + (restricted ? " AND t.key IN \(candidates)" : "")
        case (.images, .post):
            // Restricted, the candidates lead, not the index of every approved post.
            return """
                SELECT p.id FROM posts AS p
                WHERE p.photo IS NOT NULL AND \(restricted ? "+" : "")p.status = 'approved'
                  AND NOT EXISTS (SELECT 1 FROM renditions AS r WHERE r.owner_kind = 'post'
                                  AND r.owner_key = p.id AND r.source = p.photo)
                """ + (restricted ? " AND p.id IN \(candidates)" : "")
        }
    }

    private func prepare(
        _ sql: String, kind: RecordKind, since seq: Int64?, in workspace: Workspace
    ) throws -> Statement {
        let database = workspace.database
        if self == .geohash { try GeohashFunction.register(on: database) }
        let statement = try database.prepare(sql)
        if let seq {
            try statement.bind(text: kind.rawValue, at: 1)
            try statement.bind(int: seq, at: 2)
            try statement.bind(text: rawValue, at: 3)
        }
        if self == .geohash {
            try statement.bind(int: Int64(try workspace.geohashPrecision()), at: 4)
        }
        return statement
    }
}
