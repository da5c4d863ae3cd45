import Foundation
import TroveSQLite

extension PostStore {
    // MARK: - Moderators

    /// Whether moderator `name` is there.
    ///
    /// - Throws: `SQLiteError`.
    package func isModerator(_ name: String) throws -> Bool {
        try database.scalar("SELECT 1 FROM moderators WHERE name = ?", [.text(name)]) != nil
    }

    /// Adds moderator `name` with the hash of their sign-in token, or gives them a new
    /// one; their sessions end.
    ///
    /// - Throws: `SQLiteError`.
    package func putModerator(_ name: String, tokenHash: String, at: String, linkUntil: Double)
        throws
    {
        try database.execute("DELETE FROM moderator_sessions WHERE moderator = ?", [.text(name)])
        try database.execute(
            """
            INSERT INTO moderators (name, token_hash, added_at, link_until) VALUES (?, ?, ?, ?)
            ON CONFLICT (name) DO UPDATE SET token_hash = excluded.token_hash,
                                             added_at = excluded.added_at,
                                             link_until = excluded.link_until,
                                             link_used_at = NULL
            """, [.text(name), .text(tokenHash), .text(at), .real(linkUntil)])
    }

    /// Gives moderator `name` a new sign-in link until `linkUntil` (Unix seconds); their
    /// sessions go on. False when there is no such moderator.
    ///
    /// - Throws: `SQLiteError`.
    package func renewLink(_ name: String, tokenHash: String, linkUntil: Double) throws -> Bool {
        try database.execute(
            """
            UPDATE moderators SET token_hash = ?, link_until = ?, link_used_at = NULL
            WHERE name = ?
            """, [.text(tokenHash), .real(linkUntil), .text(name)]) > 0
    }

    /// Every moderator, by name, with the number of browsers signed in.
    ///
    /// - Throws: `SQLiteError`.
    package func moderators() throws -> [Moderator] {
        try database.query(
            """
            SELECT name, added_at, link_until, link_used_at,
                   (SELECT count(*) FROM moderator_sessions s WHERE s.moderator = m.name)
                       AS sessions
            FROM moderators m ORDER BY name
            """
        ) { row in
            Moderator(
                name: try row.text(ModeratorColumn.name) ?? "",
                addedAt: try row.text(ModeratorColumn.addedAt) ?? "",
                sessions: Int(try row.int64(ModeratorColumn.sessions) ?? 0),
                linkUntil: try row.double(ModeratorColumn.linkUntil) ?? 0,
                linkUsedAt: try row.text(ModeratorColumn.linkUsedAt))
        }
    }

    /// Removes moderator `name` with their sessions and claims; false when there was no
    /// such moderator.
    ///
    /// - Throws: `SQLiteError`.
    package func removeModerator(_ name: String) throws -> Bool {
        try database.execute("DELETE FROM moderator_sessions WHERE moderator = ?", [.text(name)])
        try database.execute("DELETE FROM post_claims WHERE moderator = ?", [.text(name)])
        return try database.execute("DELETE FROM moderators WHERE name = ?", [.text(name)]) > 0
    }

    /// The moderator whose sign-in token has this hash.
    ///
    /// - Throws: `SQLiteError`.
    package func moderator(tokenHash: String) throws -> SignInLink? {
        try database.query(
            "SELECT name, link_until, link_used_at FROM moderators WHERE token_hash = ?",
            [.text(tokenHash)]
        ) { row in
            SignInLink(
                moderator: try row.text(ModeratorColumn.name) ?? "",
                until: try row.double(ModeratorColumn.linkUntil) ?? 0,
                usedAt: try row.text(ModeratorColumn.linkUsedAt))
        }.first
    }

    /// Marks the link of `moderator` used at `at`: it signs in no more.
    ///
    /// - Throws: `SQLiteError`.
    package func spendLink(of moderator: String, at: String) throws {
        try database.execute(
            "UPDATE moderators SET link_used_at = ? WHERE name = ?", [.text(at), .text(moderator)])
    }

    // MARK: - Sessions

    /// Starts a session for `moderator`, kept as the hash of its id.
    ///
    /// - Throws: `SQLiteError`.
    package func addSession(idHash: String, moderator: String, at: String, seen: Double) throws {
        try database.execute(
            """
            INSERT INTO moderator_sessions (id_hash, moderator, created_at, seen_at)
            VALUES (?, ?, ?, ?)
            """, [.text(idHash), .text(moderator), .text(at), .real(seen)])
    }

    /// The moderator of the session whose id has this hash, while they are a moderator,
    /// and when the session was last seen (Unix seconds).
    ///
    /// - Throws: `SQLiteError`.
    package func moderator(sessionHash: String) throws -> (moderator: String, seen: Double)? {
        try database.query(
            """
            SELECT s.moderator, s.seen_at FROM moderator_sessions s
            JOIN moderators m ON m.name = s.moderator
            WHERE s.id_hash = ?
            """, [.text(sessionHash)]
        ) { row in
            (
                try row.text(ModeratorColumn.moderator) ?? "",
                try row.double(ModeratorColumn.seenAt) ?? 0
            )
        }.first
    }

    /// Records that the session whose id has this hash was used at `seen` (Unix seconds).
    ///
    /// - Throws: `SQLiteError`.
    package func touchSession(idHash: String, seen: Double) throws {
        try database.execute(
            "UPDATE moderator_sessions SET seen_at = ? WHERE id_hash = ?",
            [.real(seen), .text(idHash)])
    }

    /// Ends the session whose id has this hash.
    ///
    /// - Throws: `SQLiteError`.
    package func endSession(idHash: String) throws {
        try database.execute("DELETE FROM moderator_sessions WHERE id_hash = ?", [.text(idHash)])
    }

    // MARK: - Claims

    private static let claimColumns = "post_id, moderator, until, since, page, released_by"

    private static func decodeClaim(_ row: Row) throws -> Claim {
        Claim(
            postID: try row.required(ModeratorColumn.postID),
            moderator: try row.required(ModeratorColumn.moderator),
            until: try row.double(ModeratorColumn.until) ?? 0,
            since: try row.double(ModeratorColumn.since), page: try row.text(ModeratorColumn.page),
            releasedBy: try row.text(ModeratorColumn.releasedBy))
    }

    /// The claim on post `id` running after `time` (Unix seconds), if any.
    ///
    /// - Throws: `SQLiteError`.
    package func claim(on id: String, runningAfter time: Double) throws -> Claim? {
        try database.query(
            "SELECT \(Self.claimColumns) FROM post_claims WHERE post_id = ? AND until > ?",
            [.text(id), .real(time)], Self.decodeClaim
        ).first
    }

    /// The row of post `id`'s claim, running or not (a released or ended one stays until
    /// the post is claimed again).
    ///
    /// - Throws: `SQLiteError`.
    package func claimRow(on id: String) throws -> Claim? {
        try database.query(
            "SELECT \(Self.claimColumns) FROM post_claims WHERE post_id = ?", [.text(id)],
            Self.decodeClaim
        ).first
    }

    /// Claims post `id` for `moderator` from `now` until `until` (Unix seconds), over any
    /// claim; a claim the same moderator still holds keeps its start.
    ///
    /// - Throws: `SQLiteError`.
    package func putClaim(_ id: String, moderator: String, now: Double, until: Double) throws {
        try database.execute(
            """
            INSERT INTO post_claims (post_id, moderator, until, since) VALUES (?1, ?2, ?3, ?4)
            ON CONFLICT (post_id) DO UPDATE SET
                since = CASE WHEN post_claims.moderator = excluded.moderator
                              AND post_claims.until > ?4 AND post_claims.since IS NOT NULL
                             THEN post_claims.since ELSE excluded.since END,
                moderator = excluded.moderator, until = excluded.until, released_by = NULL
            """, [.text(id), .text(moderator), .real(until), .real(now)])
    }

    /// Ends `moderator`'s claim on post `id`.
    ///
    /// - Throws: `SQLiteError`.
    package func removeClaim(_ id: String, by moderator: String) throws {
        try database.execute(
            "DELETE FROM post_claims WHERE post_id = ? AND moderator = ?",
            [.text(id), .text(moderator)])
    }

    /// Ends the running claims on post `id` (nil: any post) held by `holder` (nil: anyone),
    /// for their holders, marked as released by `releaser`; returns them.
    ///
    /// - Throws: `SQLiteError`.
    package func releaseClaims(
        on id: String?, heldBy holder: String?, by releaser: String, at time: Double
    ) throws -> [Claim] {
        var sql = "WHERE until > ?"
        var values: [SQLiteValue] = [.real(time)]
        if let id {
            sql += " AND post_id = ?"
            values.append(.text(id))
        }
        if let holder {
            sql += " AND moderator = ?"
            values.append(.text(holder))
        }
        let released = try database.query(
            "SELECT \(Self.claimColumns) FROM post_claims \(sql) ORDER BY post_id", values,
            Self.decodeClaim)
        try database.execute(
            "UPDATE post_claims SET until = ?, released_by = ? \(sql)",
            [.real(time), .text(releaser)] + values)
        return released
    }

    /// Every claim running after `time` (Unix seconds), by post.
    ///
    /// - Throws: `SQLiteError`.
    package func claims(runningAfter time: Double) throws -> [Claim] {
        try database.query(
            "SELECT \(Self.claimColumns) FROM post_claims WHERE until > ? ORDER BY post_id",
            [.real(time)], Self.decodeClaim)
    }
}
