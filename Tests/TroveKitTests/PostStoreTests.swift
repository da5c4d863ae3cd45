import Foundation
import Testing

@testable import TroveKit
@testable import TroveStore

/// The store's own round trips: what goes in through an import or a decision comes back
/// out by name, on the version it was made on.
@Suite struct PostStoreTests {
    let folder: URL
    let workspace: Workspace
    let store: PostStore
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "trove-post-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        workspace = try Workspace(
            path: folder.appendingPathComponent("w.sqlite").path, create: true)
        store = PostStore(workspace)
    }

    func importPosts(_ posts: [PostInput]) throws {
        let resolver = try #require(PhotoResolver(folder: folder.path))
        let importer = PostImporter(
            workspace: workspace, photos: resolver, inspector: FakeInspector(facts: [:]),
            now: now)
        _ = try importer.run(PostFile(posts: posts))
    }

    static let first = PostInput(
        id: "p1", user: "u1", latitude: 40.5, longitude: -74.25, description: "a bag",
        date: "2023-11-01", photo: nil, source: "posts.csv:2")

    @Test func aPostComesBackAsItWasImported() throws {
        try importPosts([Self.first])
        let post = try #require(try store.post("p1"))
        #expect(post.id == "p1" && post.user == "u1")
        #expect(post.latitude == 40.5 && post.longitude == -74.25)
        #expect(post.description == "a bag" && post.date == "2023-11-01")
        #expect(post.status == .pending && post.source == "posts.csv:2")
        #expect(post.importedAt == "2023-11-14T22:13:20Z" && post.updatedAt == post.importedAt)
        #expect(post.version.count == PostVersion.length)
        #expect(post.id == "p1" && post.status.rawValue == "pending")
        #expect(try store.post("p2") == nil)
        let versions = try store.versions("p1")
        #expect(versions.map(\.version) == [post.version])
        #expect(versions.first?.description == "a bag")
    }

    @Test func aDecisionIsRecordedAgainstTheVersionSeen() throws {
        try importPosts([Self.first])
        let seen = try #require(try store.post("p1")).version
        let outcome = try Moderation(workspace: workspace).decide(
            post: "p1", version: seen, action: .approve, moderator: "ana", now: now)
        guard case .recorded(let decision) = outcome else {
            Issue.record("not recorded: \(outcome)")
            return
        }
        #expect(decision.version == seen)
        #expect(try store.decisions(for: "p1") == [decision])
        #expect(try store.current(["p1", "gone"]).mapValues { $0.status } == ["p1": .approved])

        var changed = Self.first
        changed.description = "a bag, and a bottle"
        try importPosts([changed])
        let now = try #require(try store.post("p1"))
        #expect(now.version != seen && now.status == .pending)
        let stale = try Moderation(workspace: workspace).decide(
            post: "p1", version: seen, action: .approve, moderator: "ana", now: self.now)
        #expect(stale == .stale(id: "p1", seen: seen, current: now.version))
        let trail = try store.decisions(for: "p1")
        #expect(trail.map(\.to) == [.approved, .pending])
        #expect(trail.last?.version == now.version && trail.last?.moderator == nil)
        #expect(trail.last?.kind == .reopening)
        #expect(try store.versions("p1").map(\.version) == [seen, now.version])
    }

    @Test func postsAreQueriedByState() throws {
        var second = Self.first
        second.id = "p2"
        second.date = "2023-10-01"
        var third = Self.first
        third.id = "p3"
        try importPosts([Self.first, second, third])
        _ = try Moderation(workspace: workspace).decide(
            post: "p3", version: nil, action: .reject(.spam), moderator: "ana", now: now)
        #expect(try store.ids(status: .pending) == ["p2", "p1"])
        #expect(try store.ids(status: .rejected) == ["p3"])
        var listed: [String] = []
        try store.summaries(status: .pending, signal: nil, user: "u1") { listed.append($0.id) }
        #expect(listed == ["p2", "p1"])
        #expect(try store.statuses(["p1", "p3"]) == ["p1": .pending, "p3": .rejected])
        var open = PostStore.QueueFilter()
        open.statuses = .open
        #expect(try store.count(open) == 2)
        let page = try store.queue(open, after: ("2023-10-01", "p2"), limit: 10)
        #expect(page.map { $0.summary.id } == ["p1"])
        open.statuses = .only(.rejected)
        #expect(try store.queue(open, after: nil, limit: 10).map { $0.summary.id } == ["p3"])
    }

    @Test func aSheetRecordsTheVersionsItShowed() throws {
        try importPosts([Self.first])
        let post = try #require(try store.post("p1"))
        let credentials = SheetCredentials(id: "s1", secret: "ab", moderator: "ana")
        try ReviewSheets(workspace: workspace).record(credentials, posts: [post], now: now)
        #expect(try store.sheet("s1")?.moderator == "ana")
        #expect(try store.sheet("s2") == nil)
        let shown = try store.postsShown(bySheet: "s1")
        #expect(shown["p1"]?.version == post.version && shown["p1"]?.status == "pending")
    }

    @Test func claimsAndModeratorsRoundTrip() throws {
        let access = ModeratorAccess(workspace: workspace)
        let (token, renewed) = try access.add("ana", now: now)
        #expect(!renewed)
        guard case .signedIn(let moderator, let session) = try access.signIn(token: token, now: now)
        else {
            Issue.record("the link did not sign in")
            return
        }
        #expect(moderator == "ana")
        #expect(try access.moderator(session: session, now: now) == "ana")
        #expect(try access.list().map(\.sessions) == [1])
        let claims = PostClaims(workspace: workspace)
        #expect(try claims.claim("p1", for: "ana", minutes: 5, now: now) == nil)
        let held = try claims.claim("p1", for: "bo", minutes: 5, now: now)
        #expect(held?.moderator == "ana")
        #expect(try claims.live(now: now).map(\.postID) == ["p1"])
        #expect(try access.remove("ana"))
        #expect(try claims.live(now: now).isEmpty)
        #expect(try access.moderator(session: session, now: now) == nil)
        #expect(try !access.remove("ana"))
    }

    @Test func aLinkSignsInOnceWithinItsTimeAndAnIdleSessionEnds() throws {
        let access = ModeratorAccess(workspace: workspace)
        let (token, _) = try access.add("ana", linkMinutes: 10, now: now)
        let late = now.addingTimeInterval(10 * 60 + 1)
        #expect(try access.signIn(token: token, now: late) == .expired(moderator: "ana"))
        guard case .signedIn(_, let session) = try access.signIn(token: token, now: now) else {
            Issue.record("the link did not sign in")
            return
        }
        #expect(try access.signIn(token: token, now: now) == .used(moderator: "ana"))
        #expect(try access.signIn(token: String(repeating: "a", count: 64)) == .unknown)
        // A new link keeps the browser signed in; the spent one stays spent.
        let fresh = try #require(try access.link("ana", linkMinutes: 5, now: now))
        #expect(try access.signIn(token: token, now: now) == .unknown)
        #expect(try access.link("nobody") == nil)
        // Each request within the idle time keeps the session; a longer gap ends it.
        var time = now
        for _ in 0..<5 {
            time = time.addingTimeInterval(50 * 60)
            #expect(try access.moderator(session: session, idleMinutes: 60, now: time) == "ana")
        }
        time = time.addingTimeInterval(61 * 60)
        #expect(try access.moderator(session: session, idleMinutes: 60, now: time) == nil)
        #expect(try access.moderator(session: session, idleMinutes: 60, now: now) == nil)
        guard case .signedIn = try access.signIn(token: fresh, now: now) else {
            Issue.record("the new link did not sign in")
            return
        }
    }
}
