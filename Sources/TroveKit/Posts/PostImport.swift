import Foundation
import TroveSQLite

/// What `import posts` did.
public struct PostImportSummary: Equatable, Sendable {
    /// Posts that were not in the workspace.
    public var new = 0
    /// Posts whose content changed.
    public var updated = 0
    /// Posts already stored exactly so.
    public var unchanged = 0
    /// Decided posts whose content changed and that went back to pending.
    public var reopened: [String] = []
    /// Posts whose photo reference was refused (it leads outside the photos folder),
    /// with the reason.
    public var refusedPhotos: [(id: String, reason: String)] = []
    /// Posts whose photo was not found or could not be read, with the reason.
    public var photoProblems: [(id: String, reason: String)] = []
    /// Password fields seen in the input and not stored.
    public var droppedPasswords = 0
    /// E-mail addresses seen in the input and not stored.
    public var droppedEmails = 0
    /// Display names seen in the input and not stored.
    public var droppedNames = 0
    /// Posts an earlier import of the same file held and this one does not: withdrawn by
    /// their users, with the status each had.
    public var withdrawn: [(id: String, from: PostStatus)] = []
    /// Withdrawn posts that are back in the file, pending again.
    public var returned: [String] = []
    /// Records that could not become posts (`--skip-invalid`).
    public var skipped = 0

    /// Every post in the file.
    public var imported: Int { new + updated + unchanged }

    /// Compares the counts and the ids named.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.new == rhs.new && lhs.updated == rhs.updated && lhs.unchanged == rhs.unchanged
            && lhs.reopened == rhs.reopened
            && lhs.refusedPhotos.map(\.id) == rhs.refusedPhotos.map(\.id)
            && lhs.droppedPasswords == rhs.droppedPasswords
            && lhs.droppedEmails == rhs.droppedEmails && lhs.droppedNames == rhs.droppedNames
            && lhs.withdrawn.map(\.id) == rhs.withdrawn.map(\.id) && lhs.returned == rhs.returned
            && lhs.skipped == rhs.skipped
    }
}

/// Imports posts: resolves and inspects photos, then upserts every post and recomputes
/// the signals in one transaction.
public struct PostImporter {
    let workspace: Workspace
    let resolver: PhotoResolver
    let inspector: any PhotoInspecting
    let now: Date

    /// The moderator name under which the importer records automatic reopenings.
    public static let systemModerator = "trove"

    /// - Parameter photos: the folder photo references are resolved in.
    public init(workspace: Workspace, photos: PhotoResolver, now: Date = Date()) {
        self.init(workspace: workspace, photos: photos, inspector: PhotoInspector(), now: now)
    }

    init(
        workspace: Workspace, photos: PhotoResolver, inspector: any PhotoInspecting,
        now: Date
    ) {
        self.workspace = workspace
        self.resolver = photos
        self.inspector = inspector
        self.now = now
    }

    /// A post ready to store: its input, where its photo is, and what the photo says.
    struct Prepared: Sendable {
        var input: PostInput
        var photoPath: String?
        var facts: PhotoFacts?
        var problem: String?
        var contentHash: String
    }

    /// Imports `file`. Nothing is written unless everything is.
    ///
    /// - Parameter origin: the file's absolute path, when the posts come from a file: the
    ///   posts an earlier import of it held and this one does not are withdrawn (those of
    ///   its records set aside as invalid are not).
    /// - Throws: `InputError` for two posts with one id, `WorkspaceError` or
    ///   `SQLiteError` from the workspace.
    public func run(_ file: PostFile, origin: String? = nil) throws -> PostImportSummary {
        var summary = PostImportSummary()
        summary.droppedPasswords = file.droppedPasswords
        summary.droppedEmails = file.droppedEmails
        summary.droppedNames = file.droppedNames
        summary.skipped = file.rejects.count
        var seen: [String: String] = [:]
        for post in file.posts {
            if let first = seen[post.id] {
                throw InputError(post.source, "post id '\(post.id)' appears twice (also \(first))")
            }
            seen[post.id] = post.source
        }
        let prepared = prepare(file.posts, summary: &summary)
        let precision = try workspace.geohashPrecision()
        try workspace.write {
            try store(prepared, origin: origin, precision: precision, summary: &summary)
            if let origin {
                var present = Set(file.posts.map(\.id))
                for reject in file.rejects { if let id = reject.id { present.insert(id) } }
                try withdraw(origin: origin, keeping: present, summary: &summary)
            }
            try SignalScanner(workspace: workspace, now: now).scan()
        }
        return summary
    }

    // MARK: - Photos

    private func prepare(_ posts: [PostInput], summary: inout PostImportSummary) -> [Prepared] {
        // Reading and hashing photos is the slow part; do it on every core.
        let resolver = self.resolver
        let inspector = self.inspector
        let prepared = parallelMap(
            count: posts.count, threads: ProcessInfo.processInfo.activeProcessorCount
        ) { index in
            let post = posts[index]
            var prepared = Prepared(
                input: post, photoPath: nil, facts: nil, problem: nil, contentHash: "")
            switch resolver.resolve(post.photo) {
            case .none: break
            case .refused(let why): prepared.problem = "refused: " + why
            case .missing(let why): prepared.problem = why
            case .file(let path):
                prepared.photoPath = path
                switch PhotoResolver.read(path) {
                case .success(let bytes):
                    let facts = inspector.inspect(bytes)
                    prepared.facts = facts
                    prepared.problem = facts.problem
                case .failure(let failure):
                    prepared.problem = "cannot read \(path): \(failure)"
                }
            }
            prepared.contentHash = Self.contentHash(post, photoHash: prepared.facts?.fingerprint)
            return prepared
        }
        for item in prepared {
            guard let problem = item.problem else { continue }
            if problem.hasPrefix("refused: ") {
                summary.refusedPhotos.append((item.input.id, String(problem.dropFirst(9))))
            } else {
                summary.photoProblems.append((item.input.id, problem))
            }
        }
        return prepared
    }

    /// A hash of everything a moderator judged: text, position, date, photo bytes.
    static func contentHash(_ post: PostInput, photoHash: String?) -> String {
        let parts: [String] = [
            post.id, post.user ?? "", String(post.latitude), String(post.longitude),
            post.description ?? "", post.date ?? "", post.photo ?? "", photoHash ?? "",
        ]
        return SHA256.hex(Array(parts.joined(separator: "\u{1F}").utf8))
    }

    // MARK: - Storing

    private func store(
        _ posts: [Prepared], origin: String?, precision: Int, summary: inout PostImportSummary
    ) throws {
        let database = workspace.database
        let select = try database.prepare(
            """
            SELECT status, content_hash, user, lat, lon, description, date, photo_ref, photo_hash
            FROM posts WHERE id = ?
            """)
        let upsert = try database.prepare(
            """
            INSERT INTO posts (id, user, lat, lon, description, date, photo, photo_hash,
                photo_phash, photo_width, photo_height, exif_lat, exif_lon, exif_time,
                content_hash, geohash, imported_at, updated_at, photo_ref, photo_problem, source,
                origin)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,
                ?17, ?17, ?18, ?19, ?20, ?21)
            ON CONFLICT (id) DO UPDATE SET
                user = excluded.user, lat = excluded.lat, lon = excluded.lon,
                description = excluded.description, date = excluded.date,
                photo = excluded.photo, photo_hash = excluded.photo_hash,
                photo_phash = excluded.photo_phash, photo_width = excluded.photo_width,
                photo_height = excluded.photo_height, exif_lat = excluded.exif_lat,
                exif_lon = excluded.exif_lon, exif_time = excluded.exif_time,
                content_hash = excluded.content_hash, geohash = excluded.geohash,
                updated_at = excluded.updated_at, photo_ref = excluded.photo_ref,
                photo_problem = excluded.photo_problem, source = excluded.source,
                origin = coalesce(excluded.origin, origin)
            """)
        let reopen = try database.prepare(
            "UPDATE posts SET status = 'pending', status_note = ?2 WHERE id = ?1")
        let adopt = try database.prepare(
            "UPDATE posts SET origin = ?2 WHERE id = ?1 AND origin IS NOT ?2")
        let version = try database.prepare(
            """
            INSERT INTO post_versions (post_id, version, user, lat, lon, description, date,
                                       photo_ref, photo_hash, seen_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (post_id, version) DO NOTHING
            """)
        let trail = try AuditTrail.Appender(database)
        let at = timestamp(now)
        for post in posts {
            let input = post.input
            try select.bind([.text(input.id)])
            var previous: (status: String, hash: String, fields: [String?])?
            if let row = try select.next() {
                previous = (
                    row.text(0) ?? "pending", row.text(1) ?? "",
                    (2...8).map { index in row[index].map(Self.text) }
                )
            }
            select.reset()
            let newVersion = PostVersion.of(contentHash: post.contentHash)
            if let previous, previous.status == PostStatus.withdrawn.rawValue {
                // Back in the export after it was gone: the user restored it.
                let note = "back in \(input.source) after it was withdrawn"
                try reopen.run([.text(input.id), .text(note)])
                workspace.markChanged(.post, input.id)
                try trail.append(
                    Decision(
                        postID: input.id, at: at, moderator: Self.systemModerator,
                        from: .withdrawn, to: .pending, reason: nil, note: note,
                        version: newVersion))
                summary.returned.append(input.id)
            }
            if let previous, previous.hash == post.contentHash {
                summary.unchanged += 1
                if let origin { try adopt.run([.text(input.id), .text(origin)]) }
                continue
            }
            let facts = post.facts
            let values: [SQLiteValue?] = [
                .text(input.id), input.user.map { .text($0) }, .real(input.latitude),
                .real(input.longitude), input.description.map { .text($0) },
                input.date.map { .text($0) }, post.photoPath.map { .text($0) },
                facts.map { .text($0.fingerprint) },
                facts?.perceptualHash.map { .integer(Int64(bitPattern: $0)) },
                facts?.width.map { .integer(Int64($0)) }, facts?.height.map { .integer(Int64($0)) },
                facts?.exifLatitude.map { .real($0) }, facts?.exifLongitude.map { .real($0) },
                facts?.exifTime.map { .text($0) }, .text(post.contentHash),
                .text(
                    Geohash.encode(
                        latitude: input.latitude, longitude: input.longitude, precision: precision)),
                .text(at), input.photo.map { .text($0) }, post.problem.map { .text($0) },
                .text(input.source), origin.map { .text($0) },
            ]
            try upsert.run(values)
            workspace.markChanged(.post, input.id)
            try version.run([
                .text(input.id), .text(newVersion), input.user.map { .text($0) },
                .real(input.latitude), .real(input.longitude), input.description.map { .text($0) },
                input.date.map { .text($0) }, input.photo.map { .text($0) },
                facts.map { .text($0.fingerprint) }, .text(at),
            ])
            guard let previous else {
                summary.new += 1
                continue
            }
            summary.updated += 1
            guard previous.status != "pending", previous.status != PostStatus.withdrawn.rawValue
            else { continue }
            let changed = Self.changedFields(previous.fields, post)
            let note =
                "content changed after it was \(previous.status) (\(changed)); "
                + "re-imported from \(input.source)"
            try reopen.run([.text(input.id), .text(note)])
            try trail.append(
                Decision(
                    postID: input.id, at: at, moderator: Self.systemModerator,
                    from: PostStatus(rawValue: previous.status) ?? .pending, to: .pending,
                    reason: nil, note: note, version: newVersion))
            summary.reopened.append(input.id)
        }
    }

    /// Withdraws the posts last imported from `origin` that are not in `present`.
    private func withdraw(
        origin: String, keeping present: Set<String>, summary: inout PostImportSummary
    )
        throws
    {
        let database = workspace.database
        let gone = try database.query(
            """
            SELECT id, status, \(PostVersion.sql) FROM posts
            WHERE origin = ? AND status <> 'withdrawn' ORDER BY id
            """, [.text(origin)]
        ) { row in
            (row.text(0) ?? "", PostStatus(rawValue: row.text(1) ?? "") ?? .pending, row.text(2))
        }.filter { !present.contains($0.0) }
        guard !gone.isEmpty else { return }
        let update = try database.prepare(
            "UPDATE posts SET status = 'withdrawn', status_note = ?2, updated_at = ?3 WHERE id = ?1"
        )
        let trail = try AuditTrail.Appender(database)
        let at = timestamp(now)
        let name = (origin as NSString).lastPathComponent
        for (id, status, version) in gone {
            let note = "no longer in \(name)"
            try update.run([.text(id), .text(note), .text(at)])
            workspace.markChanged(.post, id)
            try trail.append(
                Decision(
                    postID: id, at: at, moderator: Self.systemModerator, from: status,
                    to: .withdrawn, reason: nil, note: note, version: version))
            summary.withdrawn.append((id, status))
        }
    }

    private static func text(_ value: SQLiteValue) -> String {
        switch value {
        case .text(let text): return text
        case .real(let number): return String(number)
        case .integer(let number): return String(number)
        case .blob: return ""
        }
    }

    /// Names the fields that differ from what was stored, e.g. `description, photo`.
    private static func changedFields(_ old: [String?], _ post: Prepared) -> String {
        let input = post.input
        let new: [String?] = [
            input.user, String(input.latitude), String(input.longitude), input.description,
            input.date, input.photo, post.facts?.fingerprint,
        ]
        let names = ["user", "lat", "lon", "description", "date", "photo", "photo"]
        var changed: [String] = []
        for index in names.indices where old[index] != new[index] {
            if !changed.contains(names[index]) { changed.append(names[index]) }
        }
        return changed.isEmpty ? "content" : changed.joined(separator: ", ")
    }
}
