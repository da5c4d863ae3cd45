import Foundation
import TroveBase
import TroveStore

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

    /// How long a sign-in link works unless told: an hour.
    public static let defaultLinkMinutes = 60

    /// Adds `name` (or renews their link: the old one stops working and their browsers
    /// are signed out) and returns the new sign-in token, which signs in once within
    /// `linkMinutes`.
    ///
    /// - Returns: the token, and whether the moderator was already there.
    /// - Throws: `WorkspaceError`, `SQLiteError`.
    public func add(
        _ name: String, linkMinutes: Int = defaultLinkMinutes, now: Date = Date()
    ) throws -> (token: String, renewed: Bool) {
        let token = Self.secret()
        let store = PostStore(workspace)
        let until = now.timeIntervalSince1970 + Double(linkMinutes) * 60
        let renewed = try workspace.write { () throws -> Bool in
            let existed = try store.isModerator(name)
            try store.putModerator(
                name, tokenHash: Self.hash(token), at: timestamp(now), linkUntil: until)
            return existed
        }
        return (token, renewed)
    }

    /// A new sign-in link for moderator `name`, working once within `linkMinutes`; the
    /// old link stops working and their browsers stay signed in. Nil when there is no
    /// such moderator.
    ///
    /// - Throws: `WorkspaceError`, `SQLiteError`.
    public func link(_ name: String, linkMinutes: Int = defaultLinkMinutes, now: Date = Date())
        throws -> String?
    {
        let token = Self.secret()
        let until = now.timeIntervalSince1970 + Double(linkMinutes) * 60
        let renewed = try workspace.write {
            try PostStore(workspace).renewLink(name, tokenHash: Self.hash(token), linkUntil: until)
        }
        return renewed ? token : nil
    }

    /// Every moderator, by name.
    ///
    /// - Throws: `SQLiteError`.
    public func list() throws -> [Moderator] {
        try PostStore(workspace).moderators()
    }

    /// Removes `name` and signs out their browsers; false when there was no such moderator.
    ///
    /// - Throws: `WorkspaceError`, `SQLiteError`.
    public func remove(_ name: String) throws -> Bool {
        try workspace.write { try PostStore(workspace).removeModerator(name) }
    }

    /// What signing in with a link did.
    public enum SignIn: Equatable, Sendable {
        /// A new session for the link's moderator.
        case signedIn(moderator: String, session: String)
        /// The link signed in before: a link works once.
        case used(moderator: String)
        /// The link's time is up.
        case expired(moderator: String)
        /// No moderator of this workspace holds the token (or it was replaced).
        case unknown
    }

    /// Signs in with a link's token: a new session for its moderator, once, while the
    /// link's time runs.
    ///
    /// - Throws: `WorkspaceError`, `SQLiteError`.
    public func signIn(token: String, now: Date = Date()) throws -> SignIn {
        guard token.utf8.count == 64 else { return .unknown }
        let store = PostStore(workspace)
        let session = Self.secret()
        return try workspace.write { () throws -> SignIn in
            guard let link = try store.moderator(tokenHash: Self.hash(token)) else {
                return .unknown
            }
            if link.usedAt != nil { return .used(moderator: link.moderator) }
            guard link.until > now.timeIntervalSince1970 else {
                return .expired(moderator: link.moderator)
            }
            try store.spendLink(of: link.moderator, at: timestamp(now))
            try store.addSession(
                idHash: Self.hash(session), moderator: link.moderator, at: timestamp(now),
                seen: now.timeIntervalSince1970)
            return .signedIn(moderator: link.moderator, session: session)
        }
    }

    /// How long a session lasts without a request unless told: 12 hours.
    public static let defaultSessionIdleMinutes = 720

    /// The moderator a session cookie belongs to, or nil (unknown, signed out, or idle
    /// for more than `idleMinutes`: then the session ends). A session in use is marked
    /// seen, at most once a minute, unless `touch` is false (a page's background poll,
    /// which must not keep an abandoned tab signed in).
    ///
    /// - Throws: `WorkspaceError`, `SQLiteError`.
    public func moderator(
        session: String, idleMinutes: Int = defaultSessionIdleMinutes, touch: Bool = true,
        now: Date = Date()
    ) throws -> String? {
        guard session.utf8.count == 64 else { return nil }
        let store = PostStore(workspace)
        let hash = Self.hash(session)
        guard let (moderator, seen) = try store.moderator(sessionHash: hash) else { return nil }
        let time = now.timeIntervalSince1970
        if time - seen > Double(idleMinutes) * 60 {
            try workspace.write { try store.endSession(idHash: hash) }
            return nil
        }
        if touch && time - seen >= min(60, Double(idleMinutes) * 15) {
            try workspace.write { try store.touchSession(idHash: hash, seen: time) }
        }
        return moderator
    }

    /// Ends a session.
    ///
    /// - Throws: `WorkspaceError`, `SQLiteError`.
    public func signOut(session: String) throws {
        try workspace.write { try PostStore(workspace).endSession(idHash: Self.hash(session)) }
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

/// What renewing a claim did.
public enum ClaimRenewal: Equatable, Sendable {
    /// The moderator holds the post for another term.
    case renewed
    /// Someone else holds it now (nothing claimed).
    case heldBy(Claim)
    /// A lead released the moderator's claim (`review claims --release`): not renewed;
    /// opening the post again claims it afresh.
    case released(by: String)
    /// The claim is gone and someone else held the post since (or it was never this
    /// moderator's): not renewed; opening the post again claims it afresh.
    case lost
}

/// Claims on posts: a moderator who opens a post holds it for a few minutes, and the
/// others' queues skip it. A claim ends on a decision, a skip (release), its time, or a
/// lead's release.
public struct PostClaims {
    let workspace: Workspace

    /// Works on `workspace`.
    public init(workspace: Workspace) {
        self.workspace = workspace
    }

    /// Claims `id` for `moderator` for `minutes`; returns the claim holding the post
    /// when it is someone else's (and then claims nothing).
    ///
    /// - Throws: `WorkspaceError`, `SQLiteError`.
    public func claim(_ id: String, for moderator: String, minutes: Double, now: Date = Date())
        throws -> Claim?
    {
        let store = PostStore(workspace)
        let time = now.timeIntervalSince1970
        return try workspace.write { () throws -> Claim? in
            let held = try store.claim(on: id, runningAfter: time)
            if let held, held.moderator != moderator { return held }
            try store.putClaim(id, moderator: moderator, now: time, until: time + minutes * 60)
            return nil
        }
    }

    /// Renews `moderator`'s claim on `id` as an open page does while the post is on view,
    /// unless a lead released it for them or someone else holds the post.
    ///
    /// - Throws: `WorkspaceError`, `SQLiteError`.
    public func renew(_ id: String, for moderator: String, minutes: Double, now: Date = Date())
        throws -> ClaimRenewal
    {
        let store = PostStore(workspace)
        let time = now.timeIntervalSince1970
        return try workspace.write { () throws -> ClaimRenewal in
            // Opening the post made the row; it is gone when someone else's claim took
            // its place and ended.
            guard let row = try store.claimRow(on: id) else { return .lost }
            if row.moderator != moderator { return row.until > time ? .heldBy(row) : .lost }
            if let lead = row.releasedBy { return .released(by: lead) }
            try store.putClaim(id, moderator: moderator, now: time, until: time + minutes * 60)
            return .renewed
        }
    }

    /// Ends the running claims on post `id` (nil: every post) of `holder` (nil: anyone's)
    /// for their holders, as `lead`: their pages do not renew them. Returns the claims
    /// released.
    ///
    /// - Throws: `WorkspaceError`, `SQLiteError`.
    public func release(
        post id: String?, heldBy holder: String?, as lead: String, now: Date = Date()
    )
        throws -> [Claim]
    {
        try workspace.write {
            try PostStore(workspace).releaseClaims(
                on: id, heldBy: holder, by: lead, at: now.timeIntervalSince1970)
        }
    }

    /// Ends `moderator`'s claim on `id` (a skip, a decision).
    ///
    /// - Throws: `WorkspaceError`, `SQLiteError`.
    public func release(_ id: String, by moderator: String) throws {
        try workspace.write { try PostStore(workspace).removeClaim(id, by: moderator) }
    }

    /// Every claim still running.
    ///
    /// - Throws: `SQLiteError`.
    public func live(now: Date = Date()) throws -> [Claim] {
        try PostStore(workspace).claims(runningAfter: now.timeIntervalSince1970)
    }
}
