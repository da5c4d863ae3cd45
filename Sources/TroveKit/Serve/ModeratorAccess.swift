import Foundation
import TroveSQLite

/// Who may sign in to the served queue (`review moderators`), and their browser sessions.
///
/// A moderator signs in with a link carrying a secret token; the workspace keeps only
/// the token's SHA-256. Signing in makes a session whose cookie is likewise kept only as
/// its SHA-256; every write the session makes carries its CSRF token, an HMAC of the
/// session id that only a holder of the cookie can know.
public struct ModeratorAccess {
    let workspace: Workspace

    /// Works on `workspace`.
    public init(workspace: Workspace) {
        self.workspace = workspace
    }

    /// One moderator as `list` shows it.
    public struct Entry: Equatable, Sendable {
        /// The moderator's name.
        public var name: String
        /// When they were added (or their link renewed).
        public var addedAt: String
        /// Browsers signed in.
        public var sessions: Int
    }

    /// 32 random bytes as 64 hex digits.
    static func secret() -> String {
        var generator = SystemRandomNumberGenerator()
        return HMACSHA256.hexText(
            (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// The stored form of a token or session id.
    static func hash(_ secret: String) -> String {
        SHA256.hex(Array(secret.utf8))
    }

    /// Adds `name` (or renews their link: the old one stops working and their browsers
    /// are signed out) and returns the new sign-in token.
    ///
    /// - Returns: the token, and whether the moderator was already there.
    /// - Throws: `WorkspaceError`, `SQLiteError`.
    public func add(_ name: String, now: Date = Date()) throws -> (token: String, renewed: Bool) {
        let token = Self.secret()
        let database = workspace.database
        let renewed = try workspace.write { () throws -> Bool in
            let existed =
                try database.scalar("SELECT 1 FROM moderators WHERE name = ?", [.text(name)]) != nil
            try database.execute(
                "DELETE FROM moderator_sessions WHERE moderator = ?", [.text(name)])
            try database.execute(
                """
                INSERT INTO moderators (name, token_hash, added_at) VALUES (?, ?, ?)
                ON CONFLICT (name) DO UPDATE SET token_hash = excluded.token_hash,
                                                 added_at = excluded.added_at
                """, [.text(name), .text(Self.hash(token)), .text(timestamp(now))])
            return existed
        }
        return (token, renewed)
    }

    /// Every moderator, by name.
    ///
    /// - Throws: `SQLiteError`.
    public func list() throws -> [Entry] {
        try workspace.database.query(
            """
            SELECT name, added_at,
                   (SELECT count(*) FROM moderator_sessions s WHERE s.moderator = m.name)
            FROM moderators m ORDER BY name
            """
        ) { row in
            Entry(
                name: row.text(0) ?? "", addedAt: row.text(1) ?? "",
                sessions: Int(row.int64(2) ?? 0))
        }
    }

    /// Removes `name` and signs out their browsers; false when there was no such moderator.
    ///
    /// - Throws: `WorkspaceError`, `SQLiteError`.
    public func remove(_ name: String) throws -> Bool {
        let database = workspace.database
        return try workspace.write {
            try database.execute(
                "DELETE FROM moderator_sessions WHERE moderator = ?", [.text(name)])
            try database.execute("DELETE FROM post_claims WHERE moderator = ?", [.text(name)])
            try database.execute("DELETE FROM moderators WHERE name = ?", [.text(name)])
            return database.changes > 0
        }
    }

    /// Signs in with a link's token: a new session for its moderator, or nil when no
    /// moderator of this workspace holds the token.
    ///
    /// - Throws: `WorkspaceError`, `SQLiteError`.
    public func signIn(token: String, now: Date = Date()) throws -> (
        moderator: String, session: String
    )? {
        guard token.utf8.count == 64 else { return nil }
        let database = workspace.database
        let session = Self.secret()
        return try workspace.write { () throws -> (moderator: String, session: String)? in
            guard
                let name = try database.scalar(
                    "SELECT name FROM moderators WHERE token_hash = ?", [.text(Self.hash(token))]
                )?.string
            else { return nil }
            try database.execute(
                "INSERT INTO moderator_sessions (id_hash, moderator, created_at) VALUES (?, ?, ?)",
                [.text(Self.hash(session)), .text(name), .text(timestamp(now))])
            return (name, session)
        }
    }

    /// The moderator a session cookie belongs to, or nil (unknown, or signed out).
    ///
    /// - Throws: `SQLiteError`.
    public func moderator(session: String) throws -> String? {
        guard session.utf8.count == 64 else { return nil }
        return try workspace.database.scalar(
            """
            SELECT s.moderator FROM moderator_sessions s JOIN moderators m ON m.name = s.moderator
            WHERE s.id_hash = ?
            """, [.text(Self.hash(session))])?.string
    }

    /// Ends a session.
    ///
    /// - Throws: `WorkspaceError`, `SQLiteError`.
    public func signOut(session: String) throws {
        let database = workspace.database
        _ = try workspace.write {
            try database.execute(
                "DELETE FROM moderator_sessions WHERE id_hash = ?", [.text(Self.hash(session))])
        }
    }

    /// The CSRF token of a session: every write it makes must carry it.
    public static func csrfToken(session: String) -> String {
        HMACSHA256.hex(key: Array(session.utf8), message: Array("trove-review-serve-csrf".utf8))
    }

    /// Whether `token` is the CSRF token of `session` (compared in constant time).
    public static func checkCSRF(_ token: String?, session: String) -> Bool {
        guard let token else { return false }
        let expected = Array(csrfToken(session: session).utf8)
        let given = Array(token.utf8)
        guard expected.count == given.count else { return false }
        var difference: UInt8 = 0
        for index in 0..<expected.count { difference |= expected[index] ^ given[index] }
        return difference == 0
    }
}

/// Claims on posts: a moderator who opens a post holds it for a few minutes, and the
/// others' queues skip it. A claim ends on a decision, a skip (release) or its time.
public struct PostClaims {
    let workspace: Workspace

    /// Works on `workspace`.
    public init(workspace: Workspace) {
        self.workspace = workspace
    }

    /// One live claim.
    public struct Claim: Equatable, Sendable {
        /// The post.
        public var postID: String
        /// Who holds it.
        public var moderator: String
        /// Until when, Unix seconds.
        public var until: Double
    }

    /// Claims `id` for `moderator` for `minutes`; returns the claim holding the post
    /// when it is someone else's (and then claims nothing).
    ///
    /// - Throws: `WorkspaceError`, `SQLiteError`.
    public func claim(_ id: String, for moderator: String, minutes: Double, now: Date = Date())
        throws -> Claim?
    {
        let database = workspace.database
        let time = now.timeIntervalSince1970
        return try workspace.write { () throws -> Claim? in
            let held = try database.query(
                "SELECT moderator, until FROM post_claims WHERE post_id = ? AND until > ?",
                [.text(id), .real(time)]
            ) { Claim(postID: id, moderator: $0.text(0) ?? "", until: $0.double(1) ?? 0) }.first
            if let held, held.moderator != moderator { return held }
            try database.execute(
                """
                INSERT INTO post_claims (post_id, moderator, until) VALUES (?, ?, ?)
                ON CONFLICT (post_id) DO UPDATE SET moderator = excluded.moderator,
                                                    until = excluded.until
                """, [.text(id), .text(moderator), .real(time + minutes * 60)])
            return nil
        }
    }

    /// Ends `moderator`'s claim on `id` (a skip, a decision).
    ///
    /// - Throws: `WorkspaceError`, `SQLiteError`.
    public func release(_ id: String, by moderator: String) throws {
        let database = workspace.database
        _ = try workspace.write {
            try database.execute(
                "DELETE FROM post_claims WHERE post_id = ? AND moderator = ?",
                [.text(id), .text(moderator)])
        }
    }

    /// Every claim still running.
    ///
    /// - Throws: `SQLiteError`.
    public func live(now: Date = Date()) throws -> [Claim] {
        try workspace.database.query(
            "SELECT post_id, moderator, until FROM post_claims WHERE until > ? ORDER BY post_id",
            [.real(now.timeIntervalSince1970)]
        ) { Claim(postID: $0.text(0) ?? "", moderator: $0.text(1) ?? "", until: $0.double(2) ?? 0) }
    }
}
