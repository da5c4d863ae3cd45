import Foundation
import TroveBase
import TroveSQLite

/// The SQL of pulling posts from a live database: the Storage objects their photos came
/// from, each location's pulls, and the posts a pull in progress has read.
extension PostStore {
    // MARK: - Photo objects

    private static let photoObjectColumns =
        "bucket, name, generation, md5, fingerprint, file, bytes, stale"

    private static func decodePhotoObject(_ row: Row) throws(RowDecodingError) -> PhotoObject {
        typealias Column = PhotoObjectColumn
        return PhotoObject(
            bucket: try row.required(Column.bucket), name: try row.required(Column.name),
            generation: try row.text(Column.generation), md5: try row.text(Column.md5),
            fingerprint: try row.text(Column.fingerprint) ?? "",
            file: try row.required(Column.file),
            bytes: Int(try row.int64(Column.bytes) ?? 0),
            stale: (try row.int64(Column.stale) ?? 0) != 0)
    }

    /// A look-up of photo objects by bucket and name, prepared once for many.
    ///
    /// - Throws: `SQLiteError`.
    package func photoObjectLookup() throws -> (String, String) throws -> PhotoObject? {
        let statement = try database.prepare(
            "SELECT \(Self.photoObjectColumns) FROM post_photo_objects WHERE bucket = ? AND name = ?"
        )
        return { bucket, name in
            try statement.first([.text(bucket), .text(name)], Self.decodePhotoObject)
        }
    }

    /// Records a downloaded (or checked) object, fresh.
    ///
    /// - Throws: `SQLiteError`.
    package func savePhotoObject(_ object: PhotoObject, at: String) throws {
        _ = try database.execute(
            """
            INSERT INTO post_photo_objects (bucket, name, generation, md5, fingerprint, file,
                                            bytes, fetched_at, stale)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0)
            ON CONFLICT (bucket, name) DO UPDATE SET
                generation = excluded.generation, md5 = excluded.md5,
                fingerprint = excluded.fingerprint, file = excluded.file,
                bytes = excluded.bytes, fetched_at = excluded.fetched_at, stale = 0
            """,
            [
                .text(object.bucket), .text(object.name), object.generation.map { .text($0) },
                object.md5.map { .text($0) }, .text(object.fingerprint), .text(object.file),
                .integer(Int64(object.bytes)),
                .text(at),
            ])
    }

    /// Marks objects to be looked at again before their files are used.
    ///
    /// - Throws: `SQLiteError`.
    package func markPhotoObjectsStale(bucket: String, names: [String]) throws {
        let statement = try database.prepare(
            "UPDATE post_photo_objects SET stale = 1 WHERE bucket = ? AND name = ?")
        for name in names { _ = try statement.run([.text(bucket), .text(name)]) }
    }

    /// Each bucket photos were downloaded from, with the first and last object names in it
    /// (byte order), so a listing can cover them all with one prefix.
    ///
    /// - Throws: `SQLiteError`.
    package func photoObjectRanges() throws -> [(bucket: String, first: String, last: String)] {
        try database.query(
            """
            SELECT bucket, min(name) AS first, max(name) AS last FROM post_photo_objects
            GROUP BY bucket ORDER BY bucket
            """
        ) { row in
            (
                try row.required(PhotoObjectColumn.bucket),
                try row.required(PhotoObjectColumn.first), try row.required(PhotoObjectColumn.last)
            )
        }
    }

    /// The recorded objects of `bucket` whose names start with `prefix`, in byte order of
    /// their names (the order Cloud Storage lists in): each call of the function returned
    /// gives the next, nil at the end.
    ///
    /// - Throws: `SQLiteError`.
    package func photoObjectCursor(in bucket: String, prefix: String) throws
        -> () throws -> PhotoObject?
    {
        let statement = try database.prepare(
            """
            SELECT \(Self.photoObjectColumns) FROM post_photo_objects
            WHERE bucket = ?1 AND name >= ?2 AND substr(name, 1, length(?2)) = ?2
            ORDER BY name
            """)
        try statement.bind([.text(bucket), .text(prefix)])
        return { try statement.next().map(Self.decodePhotoObject) }
    }

    // MARK: - Pulls

    /// The pull of `origin`, or nil when it was never pulled.
    ///
    /// - Throws: `SQLiteError`.
    package func pull(origin: String) throws -> PulledLocation? {
        try database.prepare(
            "SELECT id, origin, started_at, completed_at, signals_due FROM post_pulls WHERE origin = ?"
        ).first([.text(origin)]) { row in
            PulledLocation(
                id: try row.requiredInt64(PostPullColumn.id),
                origin: try row.required(PostPullColumn.origin),
                startedAt: try row.text(PostPullColumn.startedAt),
                completedAt: try row.text(PostPullColumn.completedAt),
                signalsDue: (try row.int64(PostPullColumn.signalsDue) ?? 0) != 0)
        }
    }

    /// Starts a run of the pull of `origin` (recording the location the first time): what
    /// an earlier run that did not complete had read is forgotten.
    ///
    /// - Returns: the pull.
    /// - Throws: `SQLiteError`.
    package func startPull(origin: String, at: String) throws -> PulledLocation {
        _ = try database.execute(
            """
            INSERT INTO post_pulls (origin, started_at) VALUES (?1, ?2)
            ON CONFLICT (origin) DO UPDATE SET started_at = ?2
            """, [.text(origin), .text(at)])
        guard let pull = try pull(origin: origin) else {
            throw SQLiteError(code: 1, message: "the pull of \(origin) was not recorded", sql: "")
        }
        _ = try database.execute("DELETE FROM post_pull_seen WHERE pull = ?", [.integer(pull.id)])
        return pull
    }

    /// Forgets what the run of `pull` has read so far.
    ///
    /// - Throws: `SQLiteError`.
    package func forgetSeen(pull: Int64) throws {
        _ = try database.execute("DELETE FROM post_pull_seen WHERE pull = ?", [.integer(pull)])
    }

    /// How many posts are last stored from `origin` and not withdrawn.
    ///
    /// Counted from indexes alone: every post from `origin` (`posts_origin`), less the
    /// withdrawn ones (`posts_status`, the only rows read), never reading every post,
    /// which would fill the page cache in proportion to the location.
    ///
    /// - Throws: `SQLiteError`.
    package func countPosts(from origin: String) throws -> Int {
        Int(
            try database.scalar(
                """
                SELECT (SELECT count(*) FROM posts WHERE origin = ?1)
                     - (SELECT count(*) FROM posts WHERE status = 'withdrawn' AND +origin = ?1)
                """,
                [.text(origin)])?.int64 ?? 0)
    }

    /// A statement that records post ids as read by the run of `pull`.
    ///
    /// - Throws: `SQLiteError`.
    package func seenWriter(pull: Int64) throws -> (String) throws -> Void {
        let statement = try database.prepare(
            "INSERT INTO post_pull_seen (pull, id) VALUES (?, ?) ON CONFLICT DO NOTHING")
        return { id in _ = try statement.run([.integer(pull), .text(id)]) }
    }

    /// The posts last stored from `origin`, not withdrawn, that the run of `pull` did not
    /// read, by id, with their status and version.
    ///
    /// - Throws: `SQLiteError`.
    package func unseenPosts(pull: Int64, origin: String) throws -> [LivePost] {
        try database.query(
            """
            SELECT id, user, status, \(Self.version) FROM posts
            WHERE origin = ?2 AND status <> 'withdrawn'
              AND NOT EXISTS (SELECT 1 FROM post_pull_seen s WHERE s.pull = ?1 AND s.id = posts.id)
            ORDER BY id
            """, [.integer(pull), .text(origin)], Self.livePost)
    }

    /// Ends a run that read the whole location: forgets what it read and records when.
    ///
    /// - Throws: `SQLiteError`.
    package func completePull(_ pull: Int64, at: String) throws {
        _ = try database.execute("DELETE FROM post_pull_seen WHERE pull = ?", [.integer(pull)])
        _ = try database.execute(
            "UPDATE post_pulls SET completed_at = ?2, signals_due = 0 WHERE id = ?1",
            [.integer(pull), .text(at)])
    }

    /// Records whether posts were stored since the signals were computed.
    ///
    /// - Throws: `SQLiteError`.
    package func setSignalsDue(_ pull: Int64, _ due: Bool) throws {
        _ = try database.execute(
            "UPDATE post_pulls SET signals_due = ?2 WHERE id = ?1",
            [.integer(pull), .integer(due ? 1 : 0)])
    }

    // MARK: - Pages

    /// The pages of the last whole read of `pull`, by the key each starts after.
    ///
    /// - Throws: `SQLiteError`.
    package func pages(pull: Int64) throws -> [String: PulledPage] {
        var pages: [String: PulledPage] = [:]
        for page in try database.query(
            """
            SELECT start, hash, digest, passwords, emails, names, clock FROM post_pull_pages
            WHERE pull = ?
            """, [.integer(pull)],
            { row in
                typealias Column = PostPullPageColumn
                return PulledPage(
                    start: try row.required(Column.start), hash: try row.required(Column.hash),
                    digest: try row.required(Column.digest),
                    passwords: Int(try row.int64(Column.passwords) ?? 0),
                    emails: Int(try row.int64(Column.emails) ?? 0),
                    names: Int(try row.int64(Column.names) ?? 0),
                    clock: try row.int64(Column.clock) ?? 0)
            })
        {
            pages[page.start] = page
        }
        return pages
    }

    /// Records a page as the run begun `at` read and stored it.
    ///
    /// - Throws: `SQLiteError`.
    package func savePage(_ page: PulledPage, pull: Int64, at: String) throws {
        _ = try database.execute(
            """
            INSERT INTO post_pull_pages (pull, start, hash, digest, passwords, emails, names,
                                         clock, read_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (pull, start) DO UPDATE SET
                hash = excluded.hash, digest = excluded.digest,
                passwords = excluded.passwords, emails = excluded.emails,
                names = excluded.names, clock = excluded.clock, read_at = excluded.read_at
            """,
            [
                .integer(pull), .text(page.start), .text(page.hash), .text(page.digest),
                .integer(Int64(page.passwords)), .integer(Int64(page.emails)),
                .integer(Int64(page.names)), .integer(page.clock), .text(at),
            ])
    }

    /// Records that the run begun `at` read a page again, the same, its posts stored so
    /// at change clock `clock`.
    ///
    /// - Throws: `SQLiteError`.
    package func touchPage(pull: Int64, start: String, clock: Int64, at: String) throws {
        _ = try database.execute(
            "UPDATE post_pull_pages SET read_at = ?, clock = ? WHERE pull = ? AND start = ?",
            [.text(at), .integer(clock), .integer(pull), .text(start)])
    }

    /// The clock of what a page's digest covers (`post_pull_clock`): moved by a change to
    /// a post's id, content hash, photo or source, a withdrawal, a return or a deletion.
    ///
    /// - Throws: `SQLiteError`.
    package func pullClock() throws -> Int64 {
        try database.scalar("SELECT seq FROM post_pull_clock WHERE id = 1")?.int64 ?? 0
    }

    /// Forgets the pages a whole read begun `at` did not read (their bounds moved).
    ///
    /// - Throws: `SQLiteError`.
    package func prunePages(pull: Int64, keeping at: String) throws {
        _ = try database.execute(
            "DELETE FROM post_pull_pages WHERE pull = ? AND read_at <> ?",
            [.integer(pull), .text(at)])
    }

    /// The ids, content hashes and photo paths of those of `ids` stored from `origin` and
    /// not withdrawn.
    ///
    /// - Throws: `SQLiteError`.
    package func storedContent(_ ids: [String], origin: String) throws -> [(
        id: String, contentHash: String, photo: String?
    )] {
        let statement = try database.prepare(
            """
            SELECT content_hash, photo FROM posts
            WHERE id = ? AND origin = ? AND status <> 'withdrawn'
            """)
        var found: [(id: String, contentHash: String, photo: String?)] = []
        found.reserveCapacity(ids.count)
        for id in ids {
            if let row = try statement.first(
                [.text(id), .text(origin)], { ($0.text(0), $0.text(1)) }),
                let hash = row.0
            {
                found.append((id, hash, row.1))
            }
        }
        return found
    }

    /// The posts last stored from `origin` of one user, not withdrawn, with their status
    /// and version: what a change to that user's part of a nested location may have
    /// removed.
    ///
    /// - Throws: `SQLiteError`.
    package func posts(from origin: String, user: String) throws -> [LivePost] {
        try database.query(
            """
            SELECT id, user, status, \(Self.version) FROM posts
            WHERE origin = ? AND user IS ? AND status <> 'withdrawn' ORDER BY id
            """, [.text(origin), .text(user)], Self.livePost)
    }

    /// Post `id` as last stored from `origin` and not withdrawn: its status and version.
    ///
    /// - Throws: `SQLiteError`.
    package func post(_ id: String, from origin: String) throws -> LivePost? {
        try database.prepare(
            """
            SELECT id, user, status, \(Self.version) FROM posts
            WHERE id = ? AND origin = ? AND status <> 'withdrawn'
            """
        ).first([.text(id), .text(origin)], Self.livePost)
    }
}
