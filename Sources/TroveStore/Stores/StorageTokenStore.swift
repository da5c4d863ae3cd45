import TroveSQLite

/// The SQL of the stored objects' download tokens: `storage_tokens`, those of exports
/// without a target, and `bucket_tokens`, those of each publish target's bucket. An object
/// is a rendition's path, so the store also answers which renditions lie at a path and
/// which paths an owner's renditions have. Rows come back as domain values, read by column
/// name.
///
/// The store writes inside its caller's `Workspace.write`, which also marks the owners
/// whose download URLs changed. Statements run once per object are prepared on first use
/// and kept for as long as the store lives.
package final class StorageTokenStore {
    private let database: Database
    private var ownersStatement: Statement?
    private var rotateStatement: Statement?
    private var rotateBucketStatement: Statement?

    package init(_ workspace: Workspace) {
        database = workspace.database
    }

    /// The token of the object at `path`, or nil when it has none.
    ///
    /// - Throws: `SQLiteError`.
    package func token(of path: String) throws -> StorageToken? {
        let statement = try database.prepare(
            "SELECT path, token FROM storage_tokens WHERE path = ?")
        try statement.bind([.text(path)])
        guard let row = try statement.next(), case .text(let token)? = row["token"] else {
            return nil
        }
        return StorageToken(path: try row.text(RenditionColumn.path) ?? "", token: token)
    }

    /// Every object path that has a token.
    ///
    /// - Throws: `SQLiteError`.
    package func tokenPaths() throws -> [String] {
        try database.query("SELECT path FROM storage_tokens") {
            try $0.text(RenditionColumn.path) ?? ""
        }
    }

    /// The rendition paths that have no token yet, sorted, each once.
    ///
    /// - Throws: `SQLiteError`.
    package func pathsWithoutToken() throws -> [String] {
        try database.query(
            """
            SELECT DISTINCT path FROM renditions
            WHERE path NOT IN (SELECT path FROM storage_tokens) ORDER BY path
            """
        ) { try $0.text(RenditionColumn.path) ?? "" }
    }

    /// Gives a new token to every rendition path that has none.
    ///
    /// - Throws: `SQLiteError`.
    package func makeMissingTokens() throws {
        _ = try database.execute(
            """
            INSERT OR IGNORE INTO storage_tokens (path, token)
            SELECT DISTINCT path, \(Schema.randomUUID) FROM renditions
            """, [])
    }

    /// Gives the object at `path` a new token.
    ///
    /// - Throws: `SQLiteError`.
    package func rotateToken(of path: String) throws {
        let statement = try prepared(
            &rotateStatement,
            "UPDATE storage_tokens SET token = \(Schema.randomUUID) WHERE path = ?")
        try statement.run([.text(path)])
    }

    // MARK: - Targets' buckets

    /// The token of the object at `path` in `bucket`, or nil when it has none.
    ///
    /// - Throws: `SQLiteError`.
    package func token(of path: String, inBucket bucket: String) throws -> String? {
        try database.scalar(
            "SELECT token FROM bucket_tokens WHERE bucket = ? AND path = ?",
            [.text(bucket), .text(path)])?.string
    }

    /// Gives every rendition path a token in `bucket` where it has none (a target added,
    /// or moved to another bucket). Tokens already there are kept: they are live for the
    /// targets that publish there.
    ///
    /// - Throws: `SQLiteError`.
    package func makeMissingTokens(inBucket bucket: String) throws {
        _ = try database.execute(
            """
            INSERT INTO bucket_tokens (bucket, path, token)
            SELECT ?1, r.path, \(Schema.randomUUID) FROM (SELECT DISTINCT path FROM renditions) AS r
            WHERE NOT EXISTS (
                SELECT 1 FROM bucket_tokens AS k WHERE k.bucket = ?1 AND k.path = r.path)
            """, [.text(bucket)])
    }

    /// Gives the object at `path` in `bucket` a new token; false when it has none.
    ///
    /// - Throws: `SQLiteError`.
    @discardableResult
    package func rotateToken(of path: String, inBucket bucket: String) throws -> Bool {
        let statement = try prepared(
            &rotateBucketStatement,
            "UPDATE bucket_tokens SET token = \(Schema.randomUUID) WHERE bucket = ? AND path = ?")
        try statement.run([.text(bucket), .text(path)])
        return database.changes > 0
    }

    /// Sets the token of the object at `path` in `bucket` (a plan applied by other means
    /// put it there).
    ///
    /// - Throws: `SQLiteError`.
    package func setToken(_ token: String, of path: String, inBucket bucket: String) throws {
        _ = try database.execute(
            """
            INSERT INTO bucket_tokens (bucket, path, token) VALUES (?, ?, ?)
            ON CONFLICT (bucket, path) DO UPDATE SET token = excluded.token
            WHERE token <> excluded.token
            """, [.text(bucket), .text(path), .text(token)])
    }

    /// The paths of `kind` `key`'s renditions.
    ///
    /// - Throws: `SQLiteError`.
    package func paths(of kind: RenditionOwner, _ key: String) throws -> [String] {
        try database.query(
            "SELECT path FROM renditions WHERE owner_kind = ? AND owner_key = ?",
            [.text(kind.rawValue), .text(key)]
        ) { try $0.text(RenditionColumn.path) ?? "" }
    }

    /// The treasures and posts whose renditions lie at `path`: their download URLs carry
    /// its token.
    ///
    /// - Throws: `SQLiteError`.
    package func owners(of path: String) throws -> [(kind: RecordKind, key: String)] {
        let statement = try prepared(
            &ownersStatement, "SELECT owner_kind, owner_key FROM renditions WHERE path = ?")
        try statement.bind([.text(path)])
        var owners: [(kind: RecordKind, key: String)] = []
        while let row = try statement.next() {
            let kind =
                RecordKind(rawValue: try row.text(RenditionColumn.ownerKind) ?? "") ?? .treasure
            owners.append((kind, try row.text(RenditionColumn.ownerKey) ?? ""))
        }
        return owners
    }

    /// The statement in `slot`, prepared from `sql` on first use.
    private func prepared(_ slot: inout Statement?, _ sql: String) throws -> Statement {
        if let statement = slot { return statement }
        let statement = try database.prepare(sql)
        slot = statement
        return statement
    }
}
