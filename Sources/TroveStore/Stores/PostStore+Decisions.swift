import Foundation
import TroveSQLite

extension PostStore {
    // MARK: - The audit trail

    /// The columns of a decision, in the names `decodeDecision` reads.
    static let decisionColumns = """
        seq, post_id, at, kind, moderator, by_user, from_status, to_status, reason, note,
        applied_by, sheet, decided_at, version, batch, undoes, redaction
        """

    /// `decisionColumns` of the table aliased `d`.
    static let aliasedDecisionColumns = decisionColumns.split(separator: ",").map {
        "d." + $0.trimmingCharacters(in: .whitespacesAndNewlines)
    }.joined(separator: ", ")

    /// A row of `decisionColumns` as a decision.
    static func decodeDecision(_ row: Row) throws -> Decision {
        typealias Column = DecisionColumn
        return Decision(
            postID: try row.required(Column.postID), at: try row.required(Column.at),
            kind: try row.value(Column.kind, as: DecisionKind.self) ?? .decision,
            moderator: try row.text(Column.moderator), byUser: try row.text(Column.byUser),
            from: status(try row.text(Column.fromStatus)),
            to: status(try row.text(Column.toStatus)),
            reason: try row.text(Column.reason), note: try row.text(Column.note),
            appliedBy: try row.text(Column.appliedBy), sheet: try row.text(Column.sheet),
            decidedAt: try row.text(Column.decidedAt), version: try row.text(Column.version),
            seq: try row.int64(Column.seq), batch: try row.int64(Column.batch),
            undoes: try row.int64(Column.undoes), redaction: try row.text(Column.redaction))
    }

    /// Every decision, oldest first, for one post or all.
    ///
    /// - Throws: `SQLiteError`.
    package func decisions(for id: String? = nil) throws -> [Decision] {
        var sql = "SELECT \(Self.decisionColumns) FROM decisions"
        var values: [SQLiteValue?] = []
        if let id {
            sql += " WHERE post_id = ?"
            values.append(.text(id))
        }
        return try database.query(sql + " ORDER BY seq", values, Self.decodeDecision)
    }

    /// Which entries of the trail to read: one post's, one moderator's, from `since`
    /// (inclusive) and before `before` (exclusive), timestamps as the trail writes them.
    package struct TrailFilter: Sendable {
        package var post: String?
        package var moderator: String?
        package var since: String?
        package var before: String?

        package init(
            post: String? = nil, moderator: String? = nil, since: String? = nil,
            before: String? = nil
        ) {
            self.post = post
            self.moderator = moderator
            self.since = since
            self.before = before
        }
    }

    /// The entries `filter` selects, oldest first.
    ///
    /// - Throws: `SQLiteError`.
    package func decisions(matching filter: TrailFilter) throws -> [Decision] {
        var conditions: [String] = []
        var values: [SQLiteValue?] = []
        if let post = filter.post {
            conditions.append("post_id = ?")
            values.append(.text(post))
        }
        if let moderator = filter.moderator {
            conditions.append("moderator = ?")
            values.append(.text(moderator))
        }
        if let since = filter.since {
            conditions.append("at >= ?")
            values.append(.text(since))
        }
        if let before = filter.before {
            conditions.append("at < ?")
            values.append(.text(before))
        }
        let condition = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        return try database.query(
            "SELECT \(Self.decisionColumns) FROM decisions\(condition) ORDER BY seq", values,
            Self.decodeDecision)
    }

    /// When each version of a post first arrived (`post_versions.seen_at`), by post id and
    /// version.
    ///
    /// - Throws: `SQLiteError`.
    package func versionArrivals() throws -> [String: [String: String]] {
        var arrivals: [String: [String: String]] = [:]
        for (post, version, seen) in try database.query(
            "SELECT post_id, version, seen_at FROM post_versions", [],
            { row in
                (
                    try row.required(PostVersionColumn.postID),
                    try row.required(PostVersionColumn.version),
                    try row.required(PostVersionColumn.seenAt)
                )
            })
        {
            arrivals[post, default: [:]][version] = seen
        }
        return arrivals
    }

    /// The latest entry of the trail on post `id`.
    ///
    /// - Throws: `SQLiteError`.
    package func latestEntry(on id: String) throws -> Decision? {
        try database.query(
            "SELECT \(Self.decisionColumns) FROM decisions WHERE post_id = ? ORDER BY seq DESC LIMIT 1",
            [.text(id)], Self.decodeDecision
        ).first
    }

    /// The entry on post `id` before the one numbered `seq`.
    ///
    /// - Throws: `SQLiteError`.
    package func entry(on id: String, before seq: Int64) throws -> Decision? {
        try database.query(
            """
            SELECT \(Self.decisionColumns) FROM decisions WHERE post_id = ? AND seq < ?
            ORDER BY seq DESC LIMIT 1
            """, [.text(id), .integer(seq)], Self.decodeDecision
        ).first
    }

    /// The entries of action `action` (its first entry's seq), in the order they were made.
    ///
    /// - Throws: `SQLiteError`.
    package func entries(ofAction action: Int64) throws -> [Decision] {
        try database.query(
            "SELECT \(Self.decisionColumns) FROM decisions WHERE seq = ?1 OR batch = ?1 ORDER BY seq",
            [.integer(action)], Self.decodeDecision)
    }

    /// `moderator`'s latest decisions (up to `limit`, newest first) that are still the
    /// latest entry on their post: what they can undo.
    ///
    /// - Throws: `SQLiteError`.
    package func standingDecisions(by moderator: String, limit: Int) throws -> [Decision] {
        try database.query(
            """
            SELECT \(Self.aliasedDecisionColumns) FROM decisions d
            WHERE d.moderator = ? AND d.kind = 'decision'
              AND d.seq = (SELECT max(seq) FROM decisions e WHERE e.post_id = d.post_id)
            ORDER BY d.seq DESC LIMIT ?
            """, [.text(moderator), .integer(Int64(limit))], Self.decodeDecision)
    }

    /// The latest 200 decisions on `user`'s posts, newest first.
    ///
    /// - Throws: `SQLiteError`.
    package func decisions(onPostsOf user: String) throws -> [Decision] {
        try database.query(
            """
            SELECT \(Self.aliasedDecisionColumns)
            FROM decisions d JOIN posts p ON p.id = d.post_id
            WHERE p.user = ? ORDER BY d.seq DESC LIMIT 200
            """, [.text(user)], Self.decodeDecision)
    }

    /// A decision in the order of the trail, with the post's status and version now (nil
    /// when the post is gone).
    package struct TrailChange {
        package var seq: Int64
        package var decision: Decision
        package var status: String?
        package var version: String?
    }

    /// Up to a thousand decisions after `seq`, in the order they were made.
    ///
    /// - Throws: `SQLiteError`.
    package func decisions(after seq: Int64) throws -> [TrailChange] {
        try database.query(
            """
            SELECT \(Self.aliasedDecisionColumns), p.status AS post_status, coalesce(p.redacted_version, substr(p.content_hash, 1, 12)) AS post_version
            FROM decisions d LEFT JOIN posts p ON p.id = d.post_id
            WHERE d.seq > ? ORDER BY d.seq LIMIT 1000
            """, [.integer(seq)]
        ) { row in
            TrailChange(
                seq: try row.int64(DecisionColumn.seq) ?? 0, decision: try Self.decodeDecision(row),
                status: try row.text(DecisionColumn.postStatus),
                version: try row.text(DecisionColumn.postVersion))
        }
    }

    /// The sequence number of the latest decision, 0 when there is none.
    ///
    /// - Throws: `SQLiteError`.
    package func latestDecision() throws -> Int64 {
        try database.scalar("SELECT coalesce(max(seq), 0) FROM decisions")?.int64 ?? 0
    }

    /// The number of the latest post version an import recorded (0: none): it moves on
    /// whenever an import or a pull brings a new post or a changed one.
    ///
    /// - Throws: `SQLiteError`.
    package func latestVersion() throws -> Int64 {
        try database.scalar("SELECT coalesce(max(seq), 0) FROM post_versions")?.int64 ?? 0
    }

    /// Appends decisions to the trail: the one writer of `decisions`, for moderators'
    /// decisions and undos and the changes an import makes. Used inside the caller's write
    /// transaction; the trail is append-only.
    package struct TrailWriter {
        private let insert: Statement
        private let database: Database

        /// - Throws: `SQLiteError`.
        package init(_ store: PostStore) throws {
            database = store.database
            insert = try store.database.prepare(
                """
                INSERT INTO decisions (post_id, at, kind, moderator, by_user, from_status,
                                       to_status, reason, note, applied_by, sheet, decided_at,
                                       version, batch, undoes, redaction)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        }

        /// Appends `decision` and returns it as recorded, with its `seq`.
        ///
        /// - Throws: `SQLiteError`.
        @discardableResult
        package func append(_ decision: Decision) throws -> Decision {
            try insert.run([
                .text(decision.postID), .text(decision.at), .text(decision.kind.rawValue),
                decision.moderator.map { .text($0) }, decision.byUser.map { .text($0) },
                .text(decision.from.rawValue), .text(decision.to.rawValue),
                decision.reason.map { .text($0) },
                decision.note.map { .text($0) }, decision.appliedBy.map { .text($0) },
                decision.sheet.map { .text($0) }, decision.decidedAt.map { .text($0) },
                decision.version.map { .text($0) }, decision.batch.map { .integer($0) },
                decision.undoes.map { .integer($0) }, decision.redaction.map { .text($0) },
            ])
            var recorded = decision
            recorded.seq = database.lastInsertRowID
            return recorded
        }
    }

    // MARK: - Deciding

    /// What a decision reads of its post and writes back, prepared once for a batch of
    /// requests.
    package struct DecisionStatements {
        /// What the rules of a decision read of a post.
        package struct Current {
            package var status: PostStatus?
            package var signalNames: String
            package var version: String
            package var statusNote: String?
            /// The boxes it is published with now, canonical.
            package var redaction: String?
            /// The hash of its content, which versions are made of.
            package var contentHash: String
        }

        private let read: Statement
        private let readColumns:
            (
                status: Int, signals: Int, version: Int, note: Int, redaction: Int, hash: Int
            )
        private let redactedVersion: Statement
        private let applied: Statement
        private let update: Statement
        private let database: Database
        /// The trail the decisions go to.
        package let trail: TrailWriter

        /// - Throws: `SQLiteError`.
        package init(_ store: PostStore) throws {
            database = store.database
            read = try database.prepare(
                """
                SELECT status, signal_names, \(PostStore.version), status_note, redaction,
                       content_hash
                FROM posts
                WHERE id = ?
                """)
            readColumns = (
                try read.index(of: PostColumn.status), try read.index(of: PostColumn.signalNames),
                try read.index(of: PostColumn.version), try read.index(of: PostColumn.statusNote),
                try read.index(of: PostColumn.redaction), try read.index(of: PostColumn.contentHash)
            )
            redactedVersion = try database.prepare(
                """
                INSERT INTO post_versions (post_id, version, user, lat, lon, description, date,
                                           photo_ref, photo_hash, seen_at, redaction)
                SELECT id, ?2, user, lat, lon, description, date, photo_ref, photo_hash, ?3, ?4
                FROM posts WHERE id = ?1
                ON CONFLICT (post_id, version) DO NOTHING
                """)
            applied = try database.prepare(
                "SELECT 1 FROM decisions WHERE sheet = ? AND post_id = ? AND decided_at = ?")
            update = try database.prepare(
                """
                UPDATE posts SET status = ?3, status_note = ?4, updated_at = ?5,
                    redaction = ?7, redacted_version = ?8
                WHERE id = ?1 AND status = ?2 AND \(PostVersion.sql) = ?6
                """)
            trail = try TrailWriter(store)
        }

        /// The post as a decision sees it, nil when there is no such post.
        ///
        /// - Throws: `SQLiteError`.
        package func current(_ id: String) throws -> Current? {
            try read.bind([.text(id)])
            defer { read.reset() }
            guard let row = try read.next() else { return nil }
            return Current(
                status: row.text(readColumns.status).flatMap(PostStatus.init),
                signalNames: row.text(readColumns.signals) ?? "",
                version: row.text(readColumns.version) ?? "",
                statusNote: row.text(readColumns.note),
                redaction: row.text(readColumns.redaction),
                contentHash: row.text(readColumns.hash) ?? "")
        }

        /// Whether this sheet's decision on the post, made at `decidedAt`, was recorded.
        ///
        /// - Throws: `SQLiteError`.
        package func isApplied(sheet: String, post id: String, decidedAt: String) throws -> Bool {
            try applied.bind([.text(sheet), .text(id), .text(decidedAt)])
            defer { applied.reset() }
            return try applied.next() != nil
        }

        /// Moves the post from `current` to `target` when it is still there on `version`,
        /// published with the boxes of `redaction` (canonical; nil: none) and so on the
        /// version they make with its content; the version it is on then, or nil when it
        /// was not there (nothing changed). A version made by boxes is recorded in
        /// `post_versions` with them.
        ///
        /// - Throws: `SQLiteError`.
        package func move(
            _ id: String, from current: PostStatus, to target: PostStatus, note: String?,
            at: String, version: String, redaction: String? = nil, contentHash: String
        ) throws -> String? {
            let redacted = PostVersion.redacted(contentHash: contentHash, redaction: redaction)
            let moved = try update.run([
                .text(id), .text(current.rawValue), .text(target.rawValue), note.map { .text($0) },
                .text(at), .text(version), redaction.map { .text($0) }, redacted.map { .text($0) },
            ])
            guard moved == 1 else { return nil }
            guard let redacted, let redaction else {
                return PostVersion.of(contentHash: contentHash)
            }
            try redactedVersion.run([.text(id), .text(redacted), .text(at), .text(redaction)])
            return redacted
        }
    }

    // MARK: - Review sheets

    /// Records a sheet and the version and status of each post it shows.
    ///
    /// - Throws: `SQLiteError`.
    package func recordSheet(_ credentials: SheetCredentials, posts: [Post], at: String) throws {
        try database.execute(
            "INSERT INTO review_sheets (id, secret, moderator, made_at) VALUES (?, ?, ?, ?)",
            [
                .text(credentials.id), .text(credentials.secret), .text(credentials.moderator),
                .text(at),
            ])
        let insert = try database.prepare(
            "INSERT INTO review_sheet_posts (sheet, post_id, version, status) VALUES (?, ?, ?, ?)")
        for post in posts {
            try insert.run([
                .text(credentials.id), .text(post.id), .text(post.version),
                .text(post.status.rawValue),
            ])
        }
    }

    /// The secret and moderator of sheet `id`, or nil when no such sheet was made here.
    ///
    /// - Throws: `SQLiteError`.
    package func sheet(_ id: String) throws -> (secret: String, moderator: String)? {
        try database.query(
            "SELECT secret, moderator FROM review_sheets WHERE id = ?", [.text(id)]
        ) {
            (try $0.text(DecisionColumn.secret) ?? "", try $0.text(DecisionColumn.moderator) ?? "")
        }.first
    }

    /// The version and status sheet `id` showed of each of its posts.
    ///
    /// - Throws: `SQLiteError`.
    package func postsShown(bySheet id: String) throws -> [String: (
        version: String, status: String
    )] {
        let rows = try database.query(
            "SELECT post_id, version, status FROM review_sheet_posts WHERE sheet = ?", [.text(id)]
        ) { row in
            (
                try row.text(DecisionColumn.postID) ?? "",
                (
                    version: try row.text(DecisionColumn.version) ?? "",
                    status: try row.text(DecisionColumn.status) ?? ""
                )
            )
        }
        return Dictionary(rows, uniquingKeysWith: { first, _ in first })
    }

    /// This workspace's own id.
    ///
    /// - Throws: `SQLiteError`.
    package func workspaceIdentifier() throws -> String {
        try database.query("SELECT id FROM workspace_identity") { $0.text(0) ?? "" }.first
            ?? ""
    }
}
