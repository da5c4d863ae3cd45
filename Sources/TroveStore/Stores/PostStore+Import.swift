import Foundation
import TroveSQLite

extension PostStore {
    /// What an import compares a post in its file with.
    package struct StoredPost {
        package var status: String
        package var contentHash: String
        /// The photo file's path as stored.
        package var photo: String?
        /// The source it was last imported from.
        package var origin: String?
        /// The judged fields as text, in this order: user, lat, lon,
        /// description, date, photo reference, photo hash.
        package var judged: [String?]
    }

    /// The statements of one import, prepared once for all its posts.
    package struct ImportStatements {
        private let select: Statement
        private let selectColumns: (status: Int, hash: Int, photo: Int, origin: Int, judged: [Int])
        private let upsert: Statement
        private let reopen: Statement
        private let adopt: Statement
        private let relocate: Statement
        private let version: Statement
        /// The trail the import's reopenings and returns go to.
        package let trail: TrailWriter

        /// - Throws: `SQLiteError`.
        package init(_ store: PostStore) throws {
            let database = store.database
            let select = try database.prepare(
                """
                SELECT status, content_hash, photo, origin, user, lat, lon, description, date,
                       photo_ref, photo_hash
                FROM posts WHERE id = ?
                """)
            self.select = select
            selectColumns = (
                try select.index(of: PostColumn.status),
                try select.index(of: PostColumn.contentHash),
                try select.index(of: PostColumn.photo),
                try select.index(of: PostColumn.origin),
                try [
                    PostColumn.user, .lat, .lon, .description, .date, .photoReference, .photoHash,
                ].map { try select.index(of: $0) }
            )
            upsert = try database.prepare(
                """
                INSERT INTO posts (id, user, lat, lon, description, date, photo, photo_hash,
                    photo_phash, photo_width, photo_height, exif_lat, exif_lon, exif_time,
                    content_hash, geohash, imported_at, updated_at, photo_ref, photo_problem, source,
                    origin, exif_gps_problem)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,
                    ?17, ?17, ?18, ?19, ?20, ?21, ?22)
                ON CONFLICT (id) DO UPDATE SET
                    user = excluded.user, lat = excluded.lat, lon = excluded.lon,
                    description = excluded.description, date = excluded.date,
                    photo = excluded.photo, photo_hash = excluded.photo_hash,
                    photo_phash = excluded.photo_phash, photo_width = excluded.photo_width,
                    photo_height = excluded.photo_height, exif_lat = excluded.exif_lat,
                    exif_lon = excluded.exif_lon, exif_time = excluded.exif_time,
                    redaction = CASE WHEN content_hash = excluded.content_hash THEN redaction END,
                    redacted_version = CASE WHEN content_hash = excluded.content_hash
                        THEN redacted_version END,
                    content_hash = excluded.content_hash, geohash = excluded.geohash,
                    updated_at = excluded.updated_at, photo_ref = excluded.photo_ref,
                    photo_problem = excluded.photo_problem, source = excluded.source,
                    origin = coalesce(excluded.origin, origin),
                    exif_gps_problem = excluded.exif_gps_problem
                """)
            reopen = try database.prepare(
                "UPDATE posts SET status = 'pending', status_note = ?2 WHERE id = ?1")
            adopt = try database.prepare(
                "UPDATE posts SET origin = ?2 WHERE id = ?1 AND origin IS NOT ?2")
            relocate = try database.prepare(
                "UPDATE posts SET photo = ?2 WHERE id = ?1 AND photo IS NOT ?2")
            version = try database.prepare(
                """
                INSERT INTO post_versions (post_id, version, user, lat, lon, description, date,
                                           photo_ref, photo_hash, seen_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (post_id, version) DO NOTHING
                """)
            trail = try TrailWriter(store)
        }

        /// The stored post `id`, or nil when it is new.
        ///
        /// - Throws: `SQLiteError`.
        package func stored(_ id: String) throws -> StoredPost? {
            try select.bind([.text(id)])
            defer { select.reset() }
            guard let row = try select.next() else { return nil }
            return StoredPost(
                status: row.text(selectColumns.status) ?? "pending",
                contentHash: row.text(selectColumns.hash) ?? "",
                photo: row.text(selectColumns.photo), origin: row.text(selectColumns.origin),
                judged: selectColumns.judged.map { row[$0].map(Self.text) })
        }

        /// A stored value as the text an input field would be.
        private static func text(_ value: SQLiteValue) -> String {
            switch value {
            case .text(let text): return text
            case .real(let number): return String(number)
            case .integer(let number): return String(number)
            case .blob: return ""
            }
        }

        /// Stores a post as its file has it now, keeping its status.
        ///
        /// - Throws: `SQLiteError`.
        package func store(
            _ post: IncomingPost, geohash: String, at: String, origin: String?
        ) throws {
            let input = post.input
            let facts = post.facts
            try upsert.run([
                .text(input.id), input.user.map { .text($0) }, .real(input.latitude),
                .real(input.longitude), input.description.map { .text($0) },
                input.date.map { .text($0) }, post.photoPath.map { .text($0) },
                facts.map { .text($0.fingerprint) },
                facts?.perceptualHash.map { .integer(Int64(bitPattern: $0)) },
                facts?.width.map { .integer(Int64($0)) }, facts?.height.map { .integer(Int64($0)) },
                facts?.exifLatitude.map { .real($0) }, facts?.exifLongitude.map { .real($0) },
                facts?.exifTime.map { .text($0) }, .text(post.contentHash), .text(geohash),
                .text(at), input.photo.map { .text($0) }, post.problem.map { .text($0) },
                .text(input.source), origin.map { .text($0) },
                facts?.exifGPSProblem.map { .text($0) },
            ])
        }

        /// Records `version` of a post's judged fields, when it is new.
        ///
        /// - Throws: `SQLiteError`.
        package func recordVersion(_ post: IncomingPost, version: String, at: String) throws {
            let input = post.input
            try self.version.run([
                .text(input.id), .text(version), input.user.map { .text($0) },
                .real(input.latitude), .real(input.longitude), input.description.map { .text($0) },
                input.date.map { .text($0) }, input.photo.map { .text($0) },
                post.facts.map { .text($0.fingerprint) }, .text(at),
            ])
        }

        /// Sends a post back to pending, saying why.
        ///
        /// - Throws: `SQLiteError`.
        package func reopen(_ id: String, note: String) throws {
            try reopen.run([.text(id), .text(note)])
        }

        /// Records that post `id` now comes from `origin`.
        ///
        /// - Throws: `SQLiteError`.
        package func adopt(_ id: String, origin: String) throws {
            try adopt.run([.text(id), .text(origin)])
        }

        /// Records where post `id`'s unchanged photo is now (its folder moved).
        ///
        /// - Throws: `SQLiteError`.
        package func relocate(_ id: String, photo: String) throws {
            try relocate.run([.text(id), .text(photo)])
        }
    }

    /// The posts last imported from `origin` and not withdrawn, by id, with their user,
    /// status and version.
    ///
    /// - Throws: `SQLiteError`.
    package func posts(from origin: String) throws -> [LivePost] {
        try database.query(
            """
            SELECT id, user, status, \(Self.version) FROM posts
            WHERE origin = ? AND status <> 'withdrawn' ORDER BY id
            """, [.text(origin)], Self.livePost)
    }

    /// A post as an import or a pull compares it with its source: id, user, status, version.
    package typealias LivePost = (id: String, user: String?, status: PostStatus, version: String?)

    static func livePost(_ row: Row) throws -> LivePost {
        (
            try row.required(PostColumn.id), try row.text(PostColumn.user),
            try row.value(PostColumn.status, as: PostStatus.self) ?? .pending,
            try row.text(PostColumn.version)
        )
    }

    /// A statement that withdraws posts: `withdraw(id, note, at)`.
    ///
    /// - Throws: `SQLiteError`.
    package func withdrawer() throws -> (String, String, String) throws -> Void {
        let update = try database.prepare(
            "UPDATE posts SET status = 'withdrawn', status_note = ?2, updated_at = ?3 WHERE id = ?1"
        )
        return { id, note, at in try update.run([.text(id), .text(note), .text(at)]) }
    }
}
