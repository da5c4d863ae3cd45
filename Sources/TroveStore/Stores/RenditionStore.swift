import TroveSQLite

/// The SQL of `trove images`: the renditions it records (`renditions`), the images it
/// could not read (`rendition_failures`), and what the treasures and posts hold of the
/// images it renders. Rows come back as domain values, read by column name.
///
/// The store writes inside its caller's `Workspace.write`, which also marks the records
/// whose renditions changed. Statements run once per item are prepared on first use and
/// kept for as long as the store lives; scans look their columns up once, not per row.
package final class RenditionStore {
    private let database: Database
    private var pathStatement: Statement?
    private var saveStatement: Statement?
    private var rememberFailureStatement: Statement?

    package init(_ workspace: Workspace) {
        database = workspace.database
    }

    /// One image a treasure or post refers to, which `images` renders.
    package struct SourceImage: Sendable, Equatable {
        package var kind: RenditionOwner
        package var key: String
        /// The image's path.
        package var source: String
        /// The boxes hidden in its renditions (canonical `x,y,w,h;…`), for a post.
        package var redaction: String? = nil
    }

    // MARK: - Source images

    /// Calls `body` with every treasure image on disk (not an `http(s)://` URL), in key
    /// order.
    ///
    /// - Throws: `SQLiteError`, or whatever `body` throws.
    package func forEachTreasureImage(_ body: (SourceImage) throws -> Void) throws {
        try forEachSource(
            of: .treasure,
            """
            SELECT key, image AS source FROM treasures
            WHERE image IS NOT NULL AND image NOT LIKE 'http://%' AND image NOT LIKE 'https://%'
            ORDER BY key
            """, body)
    }

    /// Calls `body` with every approved post's photo, in id order: only approved posts are
    /// published (the review sheet inlines its own).
    ///
    /// - Throws: `SQLiteError`, or whatever `body` throws.
    package func forEachApprovedPostPhoto(_ body: (SourceImage) throws -> Void) throws {
        try forEachSource(
            of: .post,
            "SELECT id AS key, photo AS source, redaction FROM posts "
                + "WHERE photo IS NOT NULL AND status = 'approved' ORDER BY id", body)
    }

    private func forEachSource(
        of kind: RenditionOwner, _ sql: String, _ body: (SourceImage) throws -> Void
    ) throws {
        let statement = try database.prepare(sql)
        let key = try statement.index(of: RenditionColumn.key)
        let source = try statement.index(of: RenditionColumn.source)
        let redaction = statement.columnIndex("redaction")
        // Both are NOT NULL: the key is the primary key, the source is selected non-null.
        try statement.forEach { row in
            try body(
                SourceImage(
                    kind: kind, key: row.text(key)!, source: row.text(source)!,
                    redaction: redaction.flatMap { row.text($0) }))
        }
    }

    /// The treasures (with a local image) or approved posts (with a photo) among `keys`,
    /// or all of them when `keys` is nil, whose image lacks a current rendition (one made
    /// from the image the record has now) of any of `names`: what a publish renders before
    /// it plans. In key order.
    ///
    /// - Throws: `SQLiteError`.
    package func lackingRenditions(of kind: RenditionOwner, names: [String], keys: [String]?)
        throws -> [SourceImage]
    {
        guard !names.isEmpty, keys?.isEmpty != true else { return [] }
        let table =
            kind == .treasure
            ? """
            SELECT o.key AS key, o.image AS source FROM treasures AS o
            WHERE o.image IS NOT NULL AND o.image <> '' AND o.image NOT LIKE 'http://%'
              AND o.image NOT LIKE 'https://%'
            """
            : """
            SELECT o.id AS key, o.photo AS source FROM posts AS o
            WHERE o.photo IS NOT NULL AND o.photo <> '' AND o.status = 'approved'
            """
        let keyColumn = kind == .treasure ? "o.key" : "o.id"
        let restricted = keys == nil ? "" : " AND \(keyColumn) IN (SELECT value FROM json_each(?2))"
        let statement = try database.prepare(
            table + restricted + """

                  AND EXISTS (SELECT 1 FROM json_each(?1) AS n WHERE NOT EXISTS (
                      SELECT 1 FROM renditions AS r WHERE r.owner_kind = '\(kind.rawValue)'
                        AND r.owner_key = \(keyColumn) AND r.name = n.value
                        AND r.source = o.\(kind == .treasure ? "image" : "photo")\(
                    kind == .treasure ? "" : Self.sameRedaction)))
                ORDER BY \(keyColumn)
                """)
        var values: [SQLiteValue?] = [.text(names.jsonText)]
        if let keys { values.append(.text(keys.jsonText)) }
        try statement.bind(values)
        let key = statement.column("key")
        let source = statement.column("source")
        var found: [SourceImage] = []
        try statement.forEach { row in
            found.append(SourceImage(kind: kind, key: row.text(key)!, source: row.text(source)!))
        }
        return found
    }

    /// SQL: rendition `r` was made with the boxes post `o` is published with now (its
    /// settings end with them, `Renditions.settings`).
    static let sameRedaction = """
         AND substr(r.settings, instr(r.settings, ':v1') + 3)
             = coalesce(':redact=' || o.redaction, '')
        """

    /// The images of the treasures (local images only) or approved posts (with a photo)
    /// named by `keys`, in key order: the sources a publish renders.
    ///
    /// - Throws: `SQLiteError`.
    package func sources(of kind: RenditionOwner, keys: [String]) throws -> [SourceImage] {
        guard !keys.isEmpty else { return [] }
        let sql =
            kind == .treasure
            ? """
            SELECT key, image AS source FROM treasures
            WHERE key IN (SELECT value FROM json_each(?)) AND image IS NOT NULL
              AND image <> '' AND image NOT LIKE 'http://%' AND image NOT LIKE 'https://%'
            ORDER BY key
            """
            : """
            SELECT id AS key, photo AS source, redaction FROM posts
            WHERE id IN (SELECT value FROM json_each(?)) AND photo IS NOT NULL
              AND photo <> '' AND status = 'approved'
            ORDER BY id
            """
        let statement = try database.prepare(sql)
        try statement.bind([.text(keys.jsonText)])
        let key = statement.column("key")
        let source = statement.column("source")
        let redaction = statement.columnIndex("redaction")
        var found: [SourceImage] = []
        try statement.forEach { row in
            found.append(
                SourceImage(
                    kind: kind, key: row.text(key)!, source: row.text(source)!,
                    redaction: redaction.flatMap { row.text($0) }))
        }
        return found
    }

    /// The owners of the renditions at `paths`: the records a publish renders again when
    /// their files are missing from the images folder.
    ///
    /// - Throws: `SQLiteError`.
    package func owners(ofPaths paths: [String]) throws -> [(kind: RenditionOwner, key: String)] {
        guard !paths.isEmpty else { return [] }
        return try database.query(
            """
            SELECT DISTINCT owner_kind, owner_key FROM renditions
            WHERE path IN (SELECT value FROM json_each(?)) ORDER BY owner_kind, owner_key
            """, [.text(paths.jsonText)]
        ) { row in
            (
                try row.value(RenditionColumn.ownerKind, as: RenditionOwner.self) ?? .treasure,
                try row.text(RenditionColumn.ownerKey) ?? ""
            )
        }
    }

    /// Why `images` could not read the images of `kind` `keys` (those it remembers), as
    /// `IMAGE: REASON`, by key.
    ///
    /// - Throws: `SQLiteError`.
    package func failureReasons(of kind: RenditionOwner, keys: [String]) throws
        -> [String: String]
    {
        guard !keys.isEmpty else { return [:] }
        var reasons: [String: String] = [:]
        _ = try database.query(
            """
            SELECT owner_key, source, reason FROM rendition_failures
            WHERE owner_kind = ? AND owner_key IN (SELECT value FROM json_each(?))
            """, [.text(kind.rawValue), .text(keys.jsonText)]
        ) { row in
            reasons[try row.text(RenditionColumn.ownerKey) ?? ""] =
                "\(try row.text(RenditionColumn.source) ?? ""): "
                + "\(try row.text(RenditionColumn.reason) ?? "")"
        }
        return reasons
    }

    /// How many treasures have a local image and how many posts a photo (only approved
    /// posts with `approvedPostsOnly`), empty paths not counted.
    ///
    /// - Throws: `SQLiteError`.
    package func localImageCounts(approvedPostsOnly: Bool) throws -> (treasures: Int, posts: Int) {
        let statement = try database.prepare(
            """
            SELECT
              (SELECT count(*) FROM treasures WHERE image IS NOT NULL AND image <> ''
                 AND image NOT LIKE 'http://%' AND image NOT LIKE 'https://%') AS treasures,
              (SELECT count(*) FROM posts WHERE photo IS NOT NULL AND photo <> ''
            """ + (approvedPostsOnly ? " AND status = 'approved'" : "") + ") AS posts")
        guard let row = try statement.next() else { return (0, 0) }
        return (
            Int(try row.int64(RenditionColumn.treasures) ?? 0),
            Int(try row.int64(RenditionColumn.posts) ?? 0)
        )
    }

    /// How many treasures have a remote (`http(s)://`) image.
    ///
    /// - Throws: `SQLiteError`.
    package func remoteTreasureImageCount() throws -> Int {
        let statement = try database.prepare(
            """
            SELECT count(*) AS remote FROM treasures
            WHERE image LIKE 'http://%' OR image LIKE 'https://%'
            """)
        return Int(try statement.next()?.int64(RenditionColumn.remote) ?? 0)
    }

    // MARK: - Renditions

    /// Calls `body` with every recorded rendition, in no particular order.
    ///
    /// - Throws: `SQLiteError`, or whatever `body` throws.
    package func forEachRendition(_ body: (Rendition) throws -> Void) throws {
        try forEachRendition(where: "", body)
    }

    /// Every rendition's path, relative to the output folder.
    ///
    /// - Throws: `SQLiteError`.
    package func paths() throws -> Set<String> {
        let statement = try database.prepare("SELECT path FROM renditions")
        let path = try statement.index(of: RenditionColumn.path)
        var paths: Set<String> = []
        try statement.forEach { paths.insert($0.text(path) ?? "") }
        return paths
    }

    /// The recorded path of `kind` `key`'s rendition `name`, or nil when it has none.
    ///
    /// - Throws: `SQLiteError`.
    package func path(of kind: RenditionOwner, _ key: String, name: String) throws -> String? {
        let statement = try prepared(
            &pathStatement,
            "SELECT path FROM renditions WHERE owner_kind = ? AND owner_key = ? AND name = ?")
        try statement.bind([.text(kind.rawValue), .text(key), .text(name)])
        defer { statement.reset() }
        return try statement.next()?.text(RenditionColumn.path)
    }

    /// Records `rendition`, made at `madeAt`, in place of the one of its name its owner had.
    ///
    /// - Throws: `SQLiteError`.
    package func save(_ rendition: Rendition, madeAt: String) throws {
        let statement = try prepared(
            &saveStatement,
            """
            INSERT INTO renditions (owner_kind, owner_key, name, source, source_hash, settings,
                                    path, width, height, bytes, hash, made_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (owner_kind, owner_key, name) DO UPDATE SET
                source = excluded.source, source_hash = excluded.source_hash,
                settings = excluded.settings, path = excluded.path, width = excluded.width,
                height = excluded.height, bytes = excluded.bytes, hash = excluded.hash,
                made_at = excluded.made_at
            """)
        try statement.run([
            .text(rendition.kind.rawValue), .text(rendition.key), .text(rendition.name),
            .text(rendition.source), .text(rendition.sourceHash), .text(rendition.settings),
            .text(rendition.path), .integer(Int64(rendition.width)),
            .integer(Int64(rendition.height)), .integer(Int64(rendition.bytes)),
            .text(rendition.hash), .text(madeAt),
        ])
    }

    /// Which renditions belong to posts that are not published: no longer approved
    /// (rejected, reopened, flagged), without a photo, or gone.
    private static let unpublished = """
        owner_kind = 'post' AND NOT EXISTS (
            SELECT 1 FROM posts WHERE id = renditions.owner_key AND status = 'approved'
            AND photo IS NOT NULL)
        """

    /// The renditions of posts that are not published (`deleteUnpublishedPostRenditions`
    /// removes them).
    ///
    /// - Throws: `SQLiteError`.
    package func unpublishedPostRenditions() throws -> [Rendition] {
        var renditions: [Rendition] = []
        try forEachRendition(where: "WHERE " + Self.unpublished) { renditions.append($0) }
        return renditions
    }

    /// Deletes the renditions of posts that are not published.
    ///
    /// - Throws: `SQLiteError`.
    package func deleteUnpublishedPostRenditions() throws {
        try database.execute("DELETE FROM renditions WHERE " + Self.unpublished)
    }

    /// The renditions recorded for `kind` `key`.
    ///
    /// - Throws: `SQLiteError`.
    package func renditions(of kind: RenditionOwner, _ key: String) throws -> [Rendition] {
        let statement = try database.prepare(
            """
            SELECT owner_kind, owner_key, name, source, source_hash, settings, path, width,
                   height, bytes, hash
            FROM renditions WHERE owner_kind = ? AND owner_key = ?
            """)
        try statement.bind([.text(kind.rawValue), .text(key)])
        let columns = try RenditionColumns(statement)
        var renditions: [Rendition] = []
        try statement.forEach { row in
            if let rendition = columns.rendition(row) { renditions.append(rendition) }
        }
        return renditions
    }

    private func forEachRendition(where condition: String, _ body: (Rendition) throws -> Void)
        throws
    {
        let statement = try database.prepare(
            """
            SELECT owner_kind, owner_key, name, source, source_hash, settings, path, width,
                   height, bytes, hash
            FROM renditions
            """ + (condition.isEmpty ? "" : "\n" + condition))
        let columns = try RenditionColumns(statement)
        try statement.forEach { row in
            if let rendition = columns.rendition(row) { try body(rendition) }
        }
    }

    // MARK: - Failures

    /// Forgets the failures recorded for the images of `kind` `keys`, in one statement;
    /// returns the keys that had one.
    ///
    /// - Throws: `SQLiteError`.
    package func forgetFailures(of kind: RenditionOwner, keys: [String]) throws -> [String] {
        guard !keys.isEmpty else { return [] }
        return try database.query(
            """
            DELETE FROM rendition_failures
            WHERE owner_kind = ? AND owner_key IN (SELECT value FROM json_each(?))
            RETURNING owner_key
            """, [.text(kind.rawValue), .text(keys.jsonText)]
        ) { try $0.text(RenditionColumn.ownerKey) ?? "" }
    }

    /// Records `failure`, in place of any its owner had.
    ///
    /// - Throws: `SQLiteError`.
    package func remember(_ failure: RenditionFailure) throws {
        let statement = try prepared(
            &rememberFailureStatement,
            """
            INSERT OR REPLACE INTO rendition_failures (owner_kind, owner_key, source, reason)
            VALUES (?, ?, ?, ?)
            """)
        try statement.run([
            .text(failure.kind.rawValue), .text(failure.key), .text(failure.source),
            .text(failure.reason),
        ])
    }

    // MARK: - Statements

    /// The statement in `slot`, prepared from `sql` on first use.
    private func prepared(_ slot: inout Statement?, _ sql: String) throws -> Statement {
        if let statement = slot { return statement }
        let statement = try database.prepare(sql)
        slot = statement
        return statement
    }
}

/// The columns of a rendition row, looked up by name once per statement: reading a
/// million renditions costs no name look-up per row.
private struct RenditionColumns {
    let kind: Int
    let key: Int
    let name: Int
    let source: Int
    let sourceHash: Int
    let settings: Int
    let path: Int
    let width: Int
    let height: Int
    let bytes: Int
    let hash: Int

    init(_ statement: Statement) throws {
        kind = try statement.index(of: RenditionColumn.ownerKind)
        key = try statement.index(of: RenditionColumn.ownerKey)
        name = try statement.index(of: RenditionColumn.name)
        source = try statement.index(of: RenditionColumn.source)
        sourceHash = try statement.index(of: RenditionColumn.sourceHash)
        settings = try statement.index(of: RenditionColumn.settings)
        path = try statement.index(of: RenditionColumn.path)
        width = try statement.index(of: RenditionColumn.width)
        height = try statement.index(of: RenditionColumn.height)
        bytes = try statement.index(of: RenditionColumn.bytes)
        hash = try statement.index(of: RenditionColumn.hash)
    }

    /// The rendition in `row`, or nil when its owner kind is none trove knows.
    func rendition(_ row: Row) -> Rendition? {
        guard let owner = row.text(kind).flatMap(RenditionOwner.init(rawValue:)) else {
            return nil
        }
        return Rendition(
            kind: owner, key: row.text(key) ?? "", name: row.text(name) ?? "",
            source: row.text(source) ?? "", sourceHash: row.text(sourceHash) ?? "",
            settings: row.text(settings) ?? "", path: row.text(path) ?? "",
            width: Int(row.int64(width) ?? 0), height: Int(row.int64(height) ?? 0),
            bytes: Int(row.int64(bytes) ?? 0), hash: row.text(hash) ?? "")
    }
}
