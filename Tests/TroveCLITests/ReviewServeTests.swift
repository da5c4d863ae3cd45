import Foundation
import Testing
import TroveHTTP
import TroveServe

@_spi(Testing) @testable import TroveStore

#if canImport(Glibc)
    import Glibc
#endif

/// `trove review serve` from plain socket clients: moderators and sign-in, decisions,
/// claims, and requests meant to hurt. Each hostile request gets its documented status
/// and leaves the workspace as it was.
@Suite(.serialized) struct ReviewServeTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        sandbox.run("init")
        try sandbox.write(
            "photos/a.jpg", PostPhotos.jpeg(width: 640, height: 480, seed: 1, gps: (40.71, -74.0)))
        try sandbox.write("photos/b.jpg", PostPhotos.jpeg(width: 300, height: 500, seed: 2))
        try sandbox.write("posts.csv", Self.posts(text: "a bottle"))
        sandbox.run("import", "posts", "posts.csv", "--photos", "photos")
    }

    static func posts(text: String) -> String {
        """
        id,user,lat,lon,description,date,photo
        p1,u1,40.7101,-74.0001,\(text),2022-01-01,a.jpg
        p2,u1,40.7302,-74.0102,two cans,2022-01-02,b.jpg
        p3,u2,40.7503,-74.0203,a bag,2022-01-03,

        """
    }

    /// What a hostile request must not change: statuses, the trail, sessions, claims.
    func snapshot() throws -> String {
        let database = try Workspace.testDatabase(at: sandbox.workspace, mode: .readOnly)
        let rows = try database.query(
            """
            SELECT (SELECT group_concat(id || '=' || status, ',') FROM posts),
                   (SELECT count(*) FROM decisions), (SELECT count(*) FROM moderator_sessions),
                   (SELECT count(*) FROM post_claims)
            """
        ) { row in
            "\(row.text(0) ?? "") \(row.int64(1) ?? -1) \(row.int64(2) ?? -1) \(row.int64(3) ?? -1)"
        }
        return rows.first ?? ""
    }

    func version(_ id: String) throws -> String {
        let database = try Workspace.testDatabase(at: sandbox.workspace, mode: .readOnly)
        return try database.scalar(
            "SELECT substr(content_hash, 1, 12) FROM posts WHERE id = ?", [.text(id)])?.string
            ?? ""
    }

    @Test func moderatorsAreAddedListedAndRemovedAndOnlyTokenHashesAreKept() throws {
        for _ in 0..<2 {
            let added = sandbox.run("review", "moderators", "add", "alice")
            #expect(added.status == 0)
            let link = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(link.hasPrefix("http://127.0.0.1:8421/signin?token="))
            let token = String(link.split(separator: "=").last ?? "")
            #expect(token.count == 64)
            let file = try Data(contentsOf: URL(fileURLWithPath: sandbox.workspace))
            #expect(file.range(of: Data(token.utf8)) == nil, "the token itself is stored")
            let database = try Workspace.testDatabase(at: sandbox.workspace, mode: .readOnly)
            let stored = try database.scalar(
                "SELECT token_hash FROM moderators WHERE name = 'alice'")?.string
            #expect(stored == SHA256Hex.of(token))
        }
        #expect(sandbox.run("review", "moderators", "add", "bad\nname").status == 2)
        let other = sandbox.run(
            "review", "moderators", "add", "bob", "--url", "http://h.example:9/")
        #expect(other.stdout.hasPrefix("http://h.example:9/signin?token="))
        let listed = sandbox.run("review", "moderators", "list")
        #expect(listed.stdout.contains("alice\t") && listed.stdout.contains("bob\t"))
        #expect(sandbox.run("review", "moderators", "rm", "bob").status == 0)
        let gone = sandbox.run("review", "moderators", "rm", "bob")
        #expect(gone.status == 1 && gone.stderr.contains("no moderator 'bob'"))
        #expect(!sandbox.run("review", "moderators", "list").stdout.contains("bob"))
    }

    @Test func aLinkSignsInOnceUntilItExpiresAndAnIdleSessionIsSignedOut() throws {
        let server = try ServedQueue(sandbox, arguments: ["--session-idle-minutes", "30"])
        let link = server.addModerator("alice")
        let alice = try server.signIn(link)
        // Used again, from anywhere: refused, saying what to do; the first browser works.
        let again = try server.request("GET", String(link.dropFirst(server.base.count)))
        #expect(again.status == 403 && again.header("set-cookie") == nil)
        #expect(again.body.contains("used already"))
        #expect(again.body.contains("'trove review moderators link alice'"))
        #expect(try alice.get("/api/me").status == 200)
        let listed = sandbox.run("review", "moderators", "list")
        #expect(listed.stdout.contains("\t1 signed in\tlink used 20"), "\(listed.stdout)")
        // A new link keeps her browser signed in; an expired one is refused.
        let short = sandbox.run(
            "review", "moderators", "link", "alice", "--link-minutes", "1", "--url", server.base)
        #expect(short.status == 0 && short.stderr.contains("signs in once within 1 minute"))
        #expect(try alice.get("/api/me").status == 200)
        let database = try Workspace.testDatabase(at: sandbox.workspace)
        // SQL: the link's minute passing, which tests do not wait for.
        try database.execute("UPDATE moderators SET link_until = link_until - 61")
        let expired = try server.request(
            "GET",
            String(
                short.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                    .dropFirst(server.base.count)))
        #expect(expired.status == 403 && expired.body.contains("expired"))
        #expect(sandbox.run("review", "moderators", "list").stdout.contains("\tlink expired"))
        // Bad values are usage errors; an unknown moderator is named.
        for value in ["0", "-5", "soon", "10081"] {
            let bad = sandbox.run("review", "moderators", "add", "bob", "--link-minutes", value)
            #expect(bad.status == 2 && bad.stderr.contains("--link-minutes"), "\(value)")
        }
        let nobody = sandbox.run("review", "moderators", "link", "nobody")
        #expect(nobody.status == 1 && nobody.stderr.contains("no moderator 'nobody'"))
        // The page's background poll for changes does not keep the session; a request of
        // the moderator's does.
        func seen() throws -> Double {
            try database.scalar("SELECT seen_at FROM moderator_sessions")?.double ?? 0
        }
        // SQL: twenty idle minutes, which tests do not wait for.
        try database.execute("UPDATE moderator_sessions SET seen_at = seen_at - 20 * 60")
        let before = try seen()
        #expect(try alice.get("/api/changes?since=0").status == 200)
        #expect(try seen() == before)
        #expect(try alice.get("/api/queue").status == 200)
        #expect(try seen() > before + 19 * 60)
        // Idle for longer than --session-idle-minutes: signed out, on the page and the API.
        // SQL: 31 more idle minutes, likewise.
        try database.execute("UPDATE moderator_sessions SET seen_at = seen_at - 31 * 60")
        let page = try server.request("GET", "/", headers: ["Cookie": alice.cookie])
        #expect(page.status == 401 && page.body.contains("Not signed in"))
        #expect(try alice.get("/api/me").status == 401)
        #expect(try snapshot().hasSuffix(" 0 0"))
        let badIdle = sandbox.run("review", "serve", "--session-idle-minutes", "0")
        #expect(badIdle.status == 2 && badIdle.stderr.contains("--session-idle-minutes"))
    }

    @Test func decisionsAreCreditedVersionCheckedAndClaimsHoldPosts() throws {
        let server = try ServedQueue(sandbox)
        let alice = try server.signIn(server.addModerator("alice"))
        let bob = try server.signIn(server.addModerator("bob"))
        #expect(alice.csrf.count == 64 && alice.csrf != bob.csrf)
        let queue = try alice.get("/api/queue")
        #expect(queue.status == 200)
        #expect(
            (queue.json["posts"] as? [[String: Any]])?.map { $0["id"] as? String } == [
                "p1", "p2", "p3",
            ])
        // Pages follow one another in review order.
        let firstPage = try alice.get("/api/queue?limit=2")
        #expect((firstPage.json["posts"] as? [[String: Any]])?.count == 2)
        let next = try #require(firstPage.json["next"] as? String)
        let rest = try alice.get(
            "/api/queue?limit=2&after="
                + (next.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
        #expect((rest.json["posts"] as? [[String: Any]])?.map { $0["id"] as? String } == ["p3"])
        #expect(rest.json["next"] is NSNull)
        // Alice opens p1: Bob sees it taken and cannot decide it.
        #expect(try alice.post("/api/claim", ["id": "p1"]).status == 200)
        let taken = try bob.post("/api/claim", ["id": "p1"])
        #expect(taken.status == 409 && taken.json["by"] as? String == "alice")
        let bobQueue = try bob.get("/api/queue")
        let first = (bobQueue.json["posts"] as? [[String: Any]])?.first
        #expect(first?["claimedBy"] as? String == "alice")
        let v1 = try version("p1")
        let refused = try bob.post(
            "/api/decide", ["id": "p1", "version": v1, "seen": "pending", "action": "approve"])
        #expect(refused.status == 409 && refused.json["error"] as? String == "taken")
        // Alice approves; the claim ends and the decision is hers.
        let approved = try alice.post(
            "/api/decide", ["id": "p1", "version": v1, "seen": "pending", "action": "approve"])
        #expect(approved.status == 200 && approved.json["status"] as? String == "approved")
        let changes = try bob.get("/api/changes?since=0")
        let decided = (changes.json["decisions"] as? [[String: Any]])?.first
        #expect(decided?["id"] as? String == "p1" && decided?["moderator"] as? String == "alice")
        #expect((changes.json["claims"] as? [Any])?.isEmpty == true)
        #expect(sandbox.run("review", "log").stdout.contains("p1  alice  pending → approved"))
        // Bob's undo of Alice's decision is refused; hers works once.
        #expect(try bob.post("/api/undo", ["id": "p1"]).status == 409)
        #expect(try alice.post("/api/undo", ["id": "p1"]).json["status"] as? String == "pending")
        // A re-import edits p2 while Bob has it open: his decision is refused.
        #expect(try bob.post("/api/claim", ["id": "p2"]).status == 200)
        let seen = try version("p2")
        try sandbox.write(
            "posts.csv",
            Self.posts(text: "a bottle").replacingOccurrences(
                of: "two cans", with: "buy now http://spam.example"))
        sandbox.run("import", "posts", "posts.csv", "--photos", "photos")
        for _ in 0..<2 {
            let stale = try bob.post(
                "/api/decide",
                ["id": "p2", "version": seen, "seen": "pending", "action": "approve"])
            #expect(stale.status == 409 && stale.json["error"] as? String == "stale")
            #expect(
                (stale.json["message"] as? String)?.contains("changed since you saw it") == true)
        }
        #expect(sandbox.run("review", "list").stdout.contains("p2"))
        // Rejected with a reason and a note, on the current version.
        let rejected = try bob.post(
            "/api/decide",
            [
                "id": "p2", "version": try version("p2"), "seen": "pending", "action": "reject",
                "reason": "spam", "note": "link farm",
            ])
        #expect(rejected.status == 200)
        #expect(
            sandbox.run("review", "log").stdout.contains("pending → rejected  (spam)  link farm"))
        // review.claim-minutes is read as claims are made, also while the server runs.
        #expect(sandbox.run("config", "set", "review.claim-minutes", "0").status != 0)
        #expect(sandbox.run("config", "set", "review.claim-minutes", "2").status == 0)
        #expect(try alice.post("/api/claim", ["id": "p3"]).status == 200)
        let until =
            try Workspace.testDatabase(at: sandbox.workspace, mode: .readOnly).scalar(
                "SELECT until - (julianday('now') - 2440587.5) * 86400 FROM post_claims WHERE post_id = 'p3'"
            )?
            .double ?? 0
        #expect(until > 100 && until <= 121, "claimed for \(until) s")
        #expect(try bob.post("/api/claim", ["id": "p3"]).status == 409)
        // A skip releases the claim; so does its time running out.
        #expect(try alice.post("/api/release", ["id": "p3"]).status == 200)
        #expect(try bob.post("/api/claim", ["id": "p3"]).status == 200)
        #expect(try alice.post("/api/claim", ["id": "p3"]).status == 409)
        let database = try Workspace.testDatabase(at: sandbox.workspace)
        // SQL: the claim's time running out, which tests do not wait for.
        try database.execute("UPDATE post_claims SET until = 0 WHERE post_id = 'p3'")
        #expect(try alice.post("/api/claim", ["id": "p3"]).status == 200)
        // Removing Bob while the server runs signs him out at once.
        sandbox.run("review", "moderators", "rm", "bob")
        #expect(try bob.get("/api/queue").status == 401)
        // Ctrl-C stops it; what it accepted is in the workspace.
        let stopped = server.stop(interrupt: true)
        #expect(stopped.status == 0 && stopped.stderr.contains("stopped"))
        #expect(sandbox.run("review", "log").stdout.contains("link farm"))
    }

    @Test func anUndoIsRecordedOnceWhereverItIsAsked() throws {
        let server = try ServedQueue(sandbox)
        let alice = try server.signIn(server.addModerator("alice"))
        let v1 = try version("p1")
        let approve: [String: Any] = [
            "id": "p1", "version": v1, "seen": "pending", "action": "approve",
        ]
        #expect(try alice.post("/api/decide", approve).status == 200)
        // What the page can undo comes from the workspace: a reloaded page gets it back.
        let undoable = try alice.get("/api/me").json["undoable"] as? [[String: Any]]
        #expect(undoable?.last?["id"] as? String == "p1")
        #expect(undoable?.last?["version"] as? String == v1)
        #expect(undoable?.last?["status"] as? String == "approved")
        #expect(undoable?.last?["count"] as? Int == 1)
        // Undone from the command line, it is gone from the page's list.
        let cli = sandbox.run("review", "undo", "p1", "--as", "alice")
        #expect(cli.status == 0, "\(cli.stderr)")
        #expect((try alice.get("/api/me").json["undoable"] as? [[String: Any]])?.isEmpty == true)
        // From the page: the version decided on and the status the decision left.
        let v2 = try version("p2")
        #expect(
            try alice.post(
                "/api/decide",
                [
                    "id": "p2", "version": v2, "seen": "pending", "action": "reject",
                    "reason": "spam",
                ]
            ).status == 200)
        let undo: [String: Any] = ["id": "p2", "version": v2, "seen": "rejected"]
        let first = try alice.post("/api/undo", undo)
        #expect(first.status == 200 && first.json["status"] as? String == "pending")
        // Sent again (its answer lost): refused, and it says the undo on record is hers.
        let again = try alice.post("/api/undo", undo)
        #expect(again.status == 409 && again.json["error"] as? String == "undone")
        #expect(
            again.json["by"] as? String == "alice" && again.json["status"] as? String == "pending")
        let log = sandbox.run("review", "log", "p2", "--format", "json").stdout
        let entries = try JSONSerialization.jsonObject(with: Data(log.utf8)) as? [[String: Any]]
        #expect(entries?.map { $0["kind"] as? String } == ["decision", "undo"])
        // A status the decision did not leave is refused.
        #expect(
            try alice.post(
                "/api/decide",
                ["id": "p3", "version": try version("p3"), "seen": "pending", "action": "flag"]
            ).status == 200)
        let wrong = try alice.post(
            "/api/undo", ["id": "p3", "version": try version("p3"), "seen": "approved"])
        #expect(wrong.status == 409 && wrong.json["error"] as? String == "changed")
        #expect(sandbox.run("review", "list", "--status", "flagged").stdout.contains("p3"))
    }

    @Test func approvingAPostWhosePhotoCouldNotBeReadNeedsAConfirmation() throws {
        try sandbox.write(
            "photos/bad.jpg", Data([0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 7, count: 64)))
        try sandbox.write(
            "bad.csv",
            "id,user,lat,lon,description,date,photo\nq1,u9,40.7,-74.0,x,2022-03-01,bad.jpg\n")
        sandbox.run("import", "posts", "bad.csv", "--photos", "photos")
        #expect(sandbox.run("review", "list", "--signal", "photo-unreadable").stdout.contains("q1"))
        let server = try ServedQueue(sandbox)
        let alice = try server.signIn(server.addModerator("alice"))
        let decide: [String: Any] = [
            "id": "q1", "version": try version("q1"), "seen": "pending", "action": "approve",
        ]
        for _ in 0..<2 {
            let asked = try alice.post("/api/decide", decide)
            #expect(asked.status == 409 && asked.json["error"] as? String == "confirm")
        }
        #expect(sandbox.run("review", "list").stdout.contains("q1"))
        var confirmed = decide
        confirmed["confirmed"] = true
        #expect(try alice.post("/api/decide", confirmed).json["status"] as? String == "approved")
    }

    @Test func bulkRejectTakesOnlyThatUsersPendingPostsAsShown() throws {
        let server = try ServedQueue(sandbox)
        let alice = try server.signIn(server.addModerator("alice"))
        let panel = try alice.get("/api/user?user=u1")
        let posts = panel.json["posts"] as? [[String: Any]] ?? []
        #expect(posts.map { $0["id"] as? String } == ["p1", "p2"])
        let shown = posts.map { ["id": $0["id"] ?? "", "version": $0["version"] ?? ""] }
        // p3 is u2's: named in the list, it is left alone.
        let result = try alice.post(
            "/api/reject-user",
            [
                "user": "u1", "reason": "spam",
                "posts": shown + [["id": "p3", "version": try version("p3")]],
            ])
        #expect(result.status == 200 && result.json["rejected"] as? Int == 2)
        let pending = sandbox.run("review", "list").stdout
        #expect(!pending.contains("p1") && !pending.contains("p2") && pending.contains("p3"))
    }

    @Test func bulkRejectSkipsAColleaguesClaimAndIsUndoneAsOneAction() throws {
        try sandbox.write(
            "posts.csv", Self.posts(text: "a bottle") + "p4,u1,40.71,-74.0,a tyre,2022-01-04,\n")
        #expect(sandbox.run("import", "posts", "posts.csv").status == 0)
        let server = try ServedQueue(sandbox)
        let alice = try server.signIn(server.addModerator("alice"))
        let bob = try server.signIn(server.addModerator("bob"))
        #expect(try bob.post("/api/claim", ["id": "p2"]).status == 200)
        // Alice holds one herself: her own claim does not stop her.
        #expect(try alice.post("/api/claim", ["id": "p4"]).status == 200)
        let shown = try ["p1", "p2", "p4"].map { ["id": $0, "version": try version($0)] }
        let result = try alice.post(
            "/api/reject-user", ["user": "u1", "reason": "spam", "posts": shown])
        #expect(result.status == 200)
        #expect(result.json["rejected"] as? Int == 2 && result.json["claimed"] as? Int == 1)
        #expect(result.json["claimedBy"] as? [String] == ["bob"])
        #expect(result.json["ids"] as? [String] == ["p1", "p4"])
        #expect(sandbox.run("review", "list").stdout.contains("p2"))
        let undo = try #require(result.json["undo"] as? [String: Any])
        #expect(undo["count"] as? Int == 2 && undo["status"] as? String == "rejected")
        // What the page can undo, also after a reload: the whole rejection, once.
        let undoable = try alice.get("/api/me").json["undoable"] as? [[String: Any]]
        #expect(undoable?.count == 1 && undoable?.first?["count"] as? Int == 2)
        // One undo takes all of it back, recorded as undos of the one action.
        let undone = try alice.post(
            "/api/undo",
            ["id": undo["id"] ?? "", "version": undo["version"] ?? "", "seen": "rejected"])
        #expect(undone.status == 200)
        #expect((undone.json["undone"] as? [[String: Any]])?.count == 2)
        let pending = sandbox.run("review", "list").stdout
        #expect(["p1", "p2", "p4"].allSatisfy { pending.contains($0) })
        let log = sandbox.run("review", "log", "--format", "json").stdout
        let entries =
            try JSONSerialization.jsonObject(with: Data(log.utf8)) as? [[String: Any]] ?? []
        #expect(entries.map { $0["kind"] as? String } == ["decision", "decision", "undo", "undo"])
        #expect(entries.map { $0["id"] as? String } == ["p1", "p4", "p1", "p4"])
        let action = entries.first?["seq"] as? Int
        #expect(entries[1]["action"] as? Int == action)
        #expect(entries[2...].allSatisfy { $0["undoes"] as? Int == action })
    }

    @Test func aChangedPostComesWithTheVersionSeenOrDecidedUntilDecidedAgain() throws {
        let server = try ServedQueue(sandbox)
        let alice = try server.signIn(server.addModerator("alice"))
        let v1 = try version("p1")
        try sandbox.write("posts.csv", Self.posts(text: "a crushed bottle"))
        sandbox.run("import", "posts", "posts.csv", "--photos", "photos")
        let v2 = try version("p1")
        #expect(v2 != v1)
        // Seen at v1: then and now.
        let seen = try alice.get("/api/post?id=p1&seen=\(v1)").json
        let earlier = try #require(seen["earlier"] as? [String: Any])
        #expect(earlier["version"] as? String == v1 && earlier["why"] as? String == "seen")
        #expect(earlier["description"] as? String == "a bottle")
        #expect(seen["description"] as? String == "a crushed bottle")
        #expect(earlier["photoChanged"] as? Bool == false)
        // Never decided, and not seen before: nothing to compare with.
        #expect(try alice.get("/api/post?id=p1").json["earlier"] is NSNull)
        // Decided at v2, then edited: the version decided on, to whoever opens it, until
        // a moderator decides on the new one.
        let approved = try alice.post(
            "/api/decide", ["id": "p1", "version": v2, "seen": "pending", "action": "approve"])
        #expect(approved.status == 200, "\(approved.json)")
        #expect(try alice.get("/api/post?id=p1").json["earlier"] is NSNull)
        try sandbox.write("posts.csv", Self.posts(text: "a flattened bottle"))
        sandbox.run("import", "posts", "posts.csv", "--photos", "photos")
        let v3 = try version("p1")
        let bob = try server.signIn(server.addModerator("bob"))
        let reopened = try bob.get("/api/post?id=p1").json
        #expect(reopened["status"] as? String == "pending")
        let decided = try #require(reopened["earlier"] as? [String: Any])
        #expect(decided["version"] as? String == v2 && decided["why"] as? String == "decided")
        #expect(decided["description"] as? String == "a crushed bottle")
        #expect(
            try bob.post(
                "/api/decide", ["id": "p1", "version": v3, "seen": "pending", "action": "approve"]
            ).status == 200)
        #expect(try bob.get("/api/post?id=p1").json["earlier"] is NSNull)
        // The version seen as it is now, or one the post never had: nothing either.
        #expect(try bob.get("/api/post?id=p1&seen=\(v3)").json["earlier"] is NSNull)
        #expect(try bob.get("/api/post?id=p1&seen=000000000000").json["earlier"] is NSNull)
    }

    @Test func theLeadListsAndReleasesClaimsAndAReleasedClaimIsNotRenewed() throws {
        let server = try ServedQueue(sandbox)
        let alice = try server.signIn(server.addModerator("alice"))
        let bob = try server.signIn(server.addModerator("bob"))
        #expect(try bob.post("/api/claim", ["id": "p1"]).status == 200)
        #expect(try bob.post("/api/claim", ["id": "p2"]).status == 200)
        #expect(try alice.post("/api/claim", ["id": "p3"]).status == 200)
        let listed = sandbox.run("review", "claims")
        #expect(listed.status == 0)
        let lines = listed.stdout.split(separator: "\n").map { $0.split(separator: "\t") }
        #expect(
            lines.map { $0.prefix(2).joined(separator: " ") } == ["p1 bob", "p2 bob", "p3 alice"])
        #expect(lines.allSatisfy { $0.count == 4 && $0[2].hasPrefix("since 20") })
        #expect(listed.stderr.contains("3 claims"))
        let json = sandbox.run("review", "claims", "--format", "json").stdout
        let entries =
            try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]] ?? []
        #expect(entries.map { $0["id"] as? String } == ["p1", "p2", "p3"])
        #expect(
            entries.allSatisfy { ($0["since"] as? String ?? "") < ($0["until"] as? String ?? "") })
        // The lead releases bob's p1: open to the others at once.
        let released = sandbox.run("review", "claims", "--release", "p1", "--as", "lea")
        #expect(released.status == 0 && released.stderr.contains("released p1 (held by bob)"))
        #expect(!sandbox.run("review", "claims").stdout.contains("p1"))
        // Bob's page renewing it hears who released it, and does not take it back.
        let renewal = try bob.post("/api/claim", ["id": "p1", "renew": true])
        #expect(renewal.status == 409 && renewal.json["error"] as? String == "released")
        #expect(renewal.json["by"] as? String == "lea")
        #expect(try alice.post("/api/claim", ["id": "p1"]).status == 200)
        #expect(try alice.post("/api/release", ["id": "p1"]).status == 200)
        // His other claim renews as before; opened again, p1 is his afresh.
        #expect(try bob.post("/api/claim", ["id": "p2", "renew": true]).status == 200)
        #expect(try bob.post("/api/claim", ["id": "p1"]).status == 200)
        // Every claim of one moderator.
        let all = sandbox.run("review", "claims", "--moderator", "bob", "--as", "lea")
        #expect(all.status == 0 && all.stderr.contains("released p2 (held by bob)"))
        #expect(sandbox.run("review", "claims").stdout.split(separator: "\n").count == 1)
        // A claim someone else took and ended since is not renewed either.
        #expect(try alice.post("/api/claim", ["id": "p1"]).status == 200)
        #expect(try alice.post("/api/release", ["id": "p1"]).status == 200)
        let lost = try bob.post("/api/claim", ["id": "p1", "renew": true])
        #expect(lost.status == 409 && lost.json["error"] as? String == "lost")
        #expect(!sandbox.run("review", "claims").stdout.contains("p1"))
        let none = sandbox.run("review", "claims", "--release", "p9", "--as", "lea")
        #expect(none.status == 1 && none.stderr.contains("no running claim on post 'p9'"))
        #expect(
            sandbox.run("review", "claims", "--release", "p3", "--moderator", "alice").status == 2)
    }

    @Test func anIdPrefixFindsItsPostsAndOnlyThem() throws {
        try sandbox.write(
            "push.csv",
            """
            id,user,lat,lon,description,date,photo
            -Mq1river,u5,40.71,-74.0,by the river,2022-02-01,
            -Mq1rock,u5,40.72,-74.0,on a rock,2022-02-02,
            -Mq2bench,u5,40.73,-74.0,under a bench,2022-02-03,
            x*y,u6,40.74,-74.0,star,2022-02-04,
            xay,u6,40.75,-74.0,no star,2022-02-05,

            """)
        #expect(sandbox.run("import", "posts", "push.csv").status == 0)
        let server = try ServedQueue(sandbox)
        let alice = try server.signIn(server.addModerator("alice"))
        func found(_ text: String) throws -> [String] {
            let query = text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
            let answer = try alice.get("/api/queue?q=\(query)")
            #expect(answer.status == 200)
            #expect(
                answer.json["total"] as? Int
                    == (answer.json["posts"] as? [[String: Any]])?.count)
            return (answer.json["posts"] as? [[String: Any]] ?? []).compactMap {
                $0["id"] as? String
            }
        }
        #expect(try found("-Mq1") == ["-Mq1river", "-Mq1rock"])
        #expect(try found("-Mq1r") == ["-Mq1river", "-Mq1rock"])
        #expect(try found("-Mq2bench") == ["-Mq2bench"])
        // Ids are case-sensitive, as the database's keys are.
        #expect(try found("-mq1") == [])
        // GLOB's wildcards in what is typed are taken as they are.
        #expect(try found("x*") == ["x*y"])
        #expect(try found("x?") == [])
        // Words of the description still find their posts.
        #expect(try found("rock") == ["-Mq1rock"])
    }

    @Test func hostileRequestsGetTheirStatusAndChangeNothing() throws {
        let server = try ServedQueue(sandbox)
        let alice = try server.signIn(server.addModerator("alice"))
        #expect(try alice.post("/api/claim", ["id": "p3"]).status == 200)
        let before = try snapshot()
        let decide: [String: Any] = [
            "id": "p1", "version": try version("p1"), "seen": "pending", "action": "approve",
        ]
        let json = String(
            decoding: try JSONSerialization.data(withJSONObject: decide), as: UTF8.self)
        // No cookie.
        for path in ["/api/queue", "/api/post?id=p1", "/api/photo?id=p1&size=160", "/api/changes"] {
            #expect(try server.request("GET", path).status == 401, "\(path)")
        }
        #expect(try server.request("GET", "/").status == 401)
        #expect(
            try server.request(
                "POST", "/api/decide", headers: ["Content-Type": "application/json"], body: json
            ).status == 401)
        // A wrong CSRF token, none, or a form post.
        #expect(
            try alice.post("/api/decide", decide, csrf: String(repeating: "0", count: 64)).status
                == 403)
        #expect(try alice.post("/api/decide", decide, csrf: "").status == 403)
        #expect(
            try server.request(
                "POST", "/api/decide",
                headers: [
                    "Cookie": alice.cookie, "X-CSRF-Token": alice.csrf,
                    "Content-Type": "application/x-www-form-urlencoded",
                ], body: "id=p1"
            ).status == 415)
        #expect(
            try server.request(
                "POST", "/api/decide",
                headers: [
                    "Cookie": alice.cookie, "X-CSRF-Token": alice.csrf,
                    "Content-Type": "application/json", "Origin": "http://evil.example",
                ], body: json
            ).status == 403)
        // A wrong Host (DNS rebinding), with a valid session.
        for host in ["evil.example", "evil.example:\(server.port)", "127.0.0.1:1"] {
            let response = try server.request(
                "GET", "/api/queue", host: host, headers: ["Cookie": alice.cookie])
            #expect(response.status == 421, "\(host)")
        }
        // An oversized body, announced or not.
        let big = String(repeating: "x", count: 100_000)
        #expect(
            try server.request(
                "POST", "/api/decide",
                headers: [
                    "Cookie": alice.cookie, "X-CSRF-Token": alice.csrf,
                    "Content-Type": "application/json",
                ], body: big
            ).status == 413)
        // Oversized headers and request lines.
        #expect(
            try server.request(
                "GET", "/api/me",
                headers: ["Cookie": alice.cookie, "X-Big": String(repeating: "a", count: 100_000)]
            ).status == 431)
        #expect(
            try server.request("GET", "/" + String(repeating: "a", count: 100_000)).status == 414)
        // '../' in every route, encoded or not, and photos by path.
        let routes = [
            "/", "/app.js", "/app.css", "/signin", "/api/me", "/api/queue", "/api/post",
            "/api/user", "/api/changes", "/api/photo", "/api/map.svg", "/api/decide",
        ]
        for route in routes {
            for escape in [
                "/../../../../etc/passwd", "/..%2f..%2f..%2fetc%2fpasswd", "%2e%2e/trove.sqlite",
            ] {
                let response = try server.request(
                    "GET", route + escape, headers: ["Cookie": alice.cookie])
                #expect(
                    [400, 404].contains(response.status), "\(route + escape): \(response.status)")
                #expect(!response.body.contains("root:") && !response.body.contains("SQLite"))
            }
        }
        for id in ["../../../../etc/passwd", "photos/a.jpg", sandbox.path("photos/a.jpg")] {
            let escaped = id.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? id
            let response = try alice.get("/api/photo?id=\(escaped)&size=160")
            #expect(response.status == 404, "\(id)")
        }
        // A photo by post id is served, re-encoded: its EXIF (a GPS position) stays behind.
        let original = try Data(contentsOf: URL(fileURLWithPath: sandbox.path("photos/a.jpg")))
        #expect(original.range(of: Data("Exif".utf8)) != nil)
        for size in [160, 1600] {
            let photo = try alice.get("/api/photo?id=p1&size=\(size)")
            #expect(photo.status == 200 && photo.header("content-type") == "image/jpeg")
            #expect(photo.body.hasPrefix("\u{FFFD}") && !photo.body.contains("Exif"))
        }
        #expect(try alice.get("/api/photo?id=p1&size=161").status == 400)
        #expect(try alice.get("/api/photo?id=p3&size=160").status == 404)
        // A sign-in token of another workspace, and a made-up one.
        let other = try Sandbox()
        other.run("init")
        let foreign = other.run("review", "moderators", "add", "mallory").stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let token = String(foreign.split(separator: "=").last ?? "")
        #expect(try server.request("GET", "/signin?token=\(token)").status == 403)
        #expect(try server.request("GET", "/signin?token=../../etc").status == 403)
        #expect(
            try server.request("GET", "/api/me", headers: ["Cookie": "trove_session=\(token)"])
                .status
                == 401)
        #expect(try snapshot() == before)
        // The sign-in cookie's attributes.
        let signIn = try server.request(
            "GET", String(server.addModerator("carol").dropFirst(server.base.count)))
        let cookie = signIn.header("set-cookie") ?? ""
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
        #expect(signIn.header("content-security-policy")?.contains("script-src 'self'") == true)
    }

    @Test func aDecisionSentAgainNamesWhoRecordedItAndPositionsLinkToTheMap() throws {
        let server = try ServedQueue(sandbox)
        let alice = try server.signIn(server.addModerator("alice"))
        let post = try alice.get("/api/post?id=p1").json
        #expect(
            post["positionLink"] as? String
                == "https://www.openstreetmap.org/?mlat=40.710100&mlon=-74.000100"
                + "#map=18/40.710100/-74.000100")
        #expect(
            post["photoPositionLink"] as? String
                == "https://www.openstreetmap.org/?mlat=40.710000&mlon=-74.000000"
                + "#map=18/40.710000/-74.000000")
        // A page whose first answer was lost sends the decision again: it is on record,
        // credited to alice, and not recorded twice.
        let decide: [String: Any] = [
            "id": "p1", "version": try version("p1"), "seen": "pending", "action": "approve",
        ]
        #expect(try alice.post("/api/decide", decide).status == 200)
        let again = try alice.post("/api/decide", decide)
        #expect(again.status == 409 && again.json["error"] as? String == "decided")
        #expect(again.json["by"] as? String == "alice")
        #expect(again.json["status"] as? String == "approved")
        let log = sandbox.run("review", "log", "p1", "--format", "json").stdout
        let entries = (try JSONSerialization.jsonObject(with: Data(log.utf8))) as? [Any]
        #expect(entries?.count == 1)
    }

    @Test func aRequestNeedsExactlyOneHostAndMalformedOnesAreCountedNotLogged() throws {
        let server = try ServedQueue(sandbox)
        let alice = try server.signIn(server.addModerator("alice"))
        // Two Host headers (a proxy and the server could each check another), or none.
        for hosts in [
            ["evil.example", server.host], [server.host, "evil.example"],
            [server.host, server.host],
            [],
        ] {
            let socket = try server.connect()
            defer { close(socket) }
            var text = "GET /api/me HTTP/1.1\r\n"
            for host in hosts { text += "Host: \(host)\r\n" }
            text += "Cookie: \(alice.cookie)\r\nConnection: close\r\n\r\n"
            let answer = ServedQueue.Response(ServedQueue.exchange(socket, Array(text.utf8)))
            #expect(answer?.status == 400, "\(hosts)")
        }
        // Malformed requests are refused, and none writes a line of its own to the log.
        for _ in 0..<30 {
            let socket = try server.connect()
            let bad = "GET / HTTP/9.9\r\nHost: \(server.host)\r\n\r\n"
            _ = ServedQueue.exchange(socket, Array(bad.utf8), timeout: 5)
            close(socket)
        }
        #expect(try alice.get("/api/me").status == 200)
        // Stopping reports how many there were, in one line.
        let stopped = server.stop()
        #expect(stopped.status == 0)
        let lines = stopped.stderr.split(separator: "\n")
        #expect(lines.count == 2, "\(stopped.stderr)")
        let counted = lines.first { $0.hasPrefix("libmicrohttpd refused or cut off ") }
        let number = counted.flatMap { Int($0.dropFirst(33).prefix { $0.isNumber }) }
        #expect((number ?? 0) >= 30, "\(stopped.stderr)")
        #expect(lines.last?.hasPrefix("stopped;") == true)
    }

    @Test func tilesWidenOnlyTheImagePolicyAndNamesAreAcceptedHosts() throws {
        sandbox.run("config", "set", "review.area", "40.70,-74.02,40.72,-74.00")
        let server = try ServedQueue(
            sandbox,
            arguments: [
                "--tiles", "https://tile.openstreetmap.org/{z}/{x}/{y}.png", "--name",
                "review.example",
            ])
        #expect(!server.startup.contains("not loopback"))
        let alice = try server.signIn(server.addModerator("alice"))
        let page = try server.request("GET", "/", headers: ["Cookie": alice.cookie])
        #expect(page.status == 200 && page.body.contains("<script src=\"/app.js\""))
        let policy = page.header("content-security-policy") ?? ""
        #expect(policy.contains("img-src 'self' https://tile.openstreetmap.org;"))
        #expect(policy.contains("script-src 'self';") && policy.contains("default-src 'none'"))
        let named = try server.request(
            "GET", "/api/me", host: "review.example:\(server.port)",
            headers: ["Cookie": alice.cookie])
        #expect(named.status == 200)
        // The map: the post, the review area's outline, the basemap's tiles.
        let map = try alice.get("/api/map.svg?id=p1")
        #expect(map.status == 200 && map.header("content-type") == "image/svg+xml")
        #expect(
            map.body.contains("class=\"review-area\"") && map.body.contains("class=\"claimed\""))
        #expect(map.body.contains("https://tile.openstreetmap.org/"))
    }

    @Test func anotherAddressWarnsThatLinkHoldersCanModerate() throws {
        let server = try ServedQueue(sandbox, listen: "0.0.0.0:0")
        #expect(server.startup.contains("not loopback: anyone who holds a sign-in link"))
        let stopped = server.stop()
        #expect(stopped.status == 0)
    }

    @Test func idleConnectionsFromOneAddressOrOneSessionDoNotLockOutAnotherModerator() throws {
        let server = try ServedQueue(sandbox)
        let alice = try server.signIn(server.addModerator("alice"))
        let bob = try server.signIn(server.addModerator("bob"))
        var open: [Int32] = []
        defer { for socket in open { close(socket) } }
        // 320 idle connections from loopback, as many as one address can make, with no
        // session: Bob, from the same address, is still answered.
        for _ in 0..<320 { open.append(try server.connect()) }
        #expect(try bob.get("/api/me").status == 200)
        // 40 kept-alive connections of Alice's session, then idle: she crowds only
        // herself, and Bob is answered.
        let request = Array(
            "GET /api/me HTTP/1.1\r\nHost: \(server.host)\r\nCookie: \(alice.cookie)\r\n\r\n".utf8)
        var answered = 0
        for _ in 0..<40 {
            let socket = try server.connect()
            open.append(socket)
            if ServedQueue.Response(ServedQueue.exchange(socket, request))?.status == 200 {
                answered += 1
            }
        }
        #expect(answered == 40)
        #expect(try bob.get("/api/me").status == 200)
        #expect(try alice.get("/api/me").status == 200)
        // The unknown connections beyond their share were closed to make room.
        var closed = 0
        for socket in open.prefix(320) {
            var byte: UInt8 = 0
            if recv(socket, &byte, 1, Int32(MSG_DONTWAIT)) == 0 { closed += 1 }
        }
        #expect(closed >= 320 - 256, "\(closed) closed")
    }

    @Test func behindAProxyOnlyALoopbackPeerSaysTheBrowserUsedHTTPS() throws {
        func token(_ name: String) -> String {
            let link = sandbox.run("review", "moderators", "add", name).stdout
            return String(
                link.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "=").last
                    ?? "")
        }
        let proxied = try ServedQueue(sandbox, arguments: ["--behind-proxy"])
        let https = ["X-Forwarded-Proto": "https"]
        let secure = try proxied.request(
            "GET", "/signin?token=" + token("alice"), headers: https)
        #expect(secure.status == 303)
        #expect(secure.header("set-cookie")?.hasSuffix("; Secure") == true)
        let plain = try proxied.request("GET", "/signin?token=" + token("bob"))
        #expect(plain.status == 303 && plain.header("set-cookie")?.contains("Secure") == false)
        // Its writes come from the https origin the browser saw.
        let bob = try proxied.signIn(proxied.addModerator("bob"))
        let claim = Array(#"{"id":"p1"}"#.utf8)
        func post(origin: String, headers extra: [String: String]) throws -> Int {
            try proxied.request(
                "POST", "/api/claim",
                headers: [
                    "Cookie": bob.cookie, "X-CSRF-Token": bob.csrf, "Origin": origin,
                    "Content-Type": "application/json",
                ].merging(extra) { $1 }, body: String(decoding: claim, as: UTF8.self)
            ).status
        }
        #expect(try post(origin: "https://\(proxied.host)", headers: https) == 200)
        #expect(try post(origin: "http://\(proxied.host)", headers: https) == 403)
        #expect(try post(origin: "https://\(proxied.host)", headers: [:]) == 403)
        _ = proxied.stop()
        // Without --behind-proxy the header is ignored.
        let direct = try ServedQueue(sandbox)
        let ignored = try direct.request(
            "GET", "/signin?token=" + token("carol"), headers: https)
        #expect(ignored.status == 303 && ignored.header("set-cookie")?.contains("Secure") == false)
        _ = direct.stop()
        // From a peer that is not loopback, it is ignored too.
        var configuration = ReviewServer.Configuration()
        configuration.behindProxy = true
        configuration.allowedHosts = ["review.example"]
        let server = ReviewServer(
            workspace: try Workspace(path: sandbox.workspace), configuration: configuration)
        for (peer, expected) in [("192.0.2.7", false), ("127.0.0.1", true), ("::1", true)] {
            let answer = server.respond(
                ServerRequest(
                    method: "GET", path: "/signin", query: ["token": token("dan")],
                    headers: ["host": "review.example", "x-forwarded-proto": "https"],
                    peer: peer))
            let cookie = answer.headers.first { $0.0 == "Set-Cookie" }?.1 ?? ""
            #expect(answer.status == 303 && cookie.hasSuffix("; Secure") == expected, "\(peer)")
        }
    }

    /// Runs `tool` in the sandbox's folder: its exit status and standard output.
    func tool(_ path: String, _ arguments: [String]) throws -> (status: Int32, stdout: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.currentDirectoryURL = sandbox.folder
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func tlsServesHTTPSWithASecureCookieAndBadFilesAreNamed() throws {
        let made = try tool(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                "-nodes", "-keyout", "key.pem", "-out", "cert.pem", "-days", "2", "-subj",
                "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
            ])
        try #require(made.status == 0)
        let server = try ServedQueue(
            sandbox, arguments: ["--tls-cert", "cert.pem", "--tls-key", "key.pem"])
        #expect(server.startup.contains("serving the review queue on https://127.0.0.1:"))
        let base = "https://127.0.0.1:\(server.port)"
        let link = sandbox.run("review", "moderators", "add", "alice", "--url", base).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        // A client that trusts the certificate signs in; the cookie is Secure.
        let signIn = try tool("/usr/bin/curl", ["-s", "-i", "--cacert", "cert.pem", link])
        #expect(signIn.stdout.hasPrefix("HTTP/1.1 303"), "\(signIn.stdout)")
        let cookieLine = signIn.stdout.components(separatedBy: "\r\n").first {
            $0.lowercased().hasPrefix("set-cookie: trove_session=")
        }
        #expect(cookieLine?.hasSuffix("; Secure") == true)
        let cookie = String(cookieLine?.dropFirst("set-cookie: ".count).prefix { $0 != ";" } ?? "")
        let me = try tool(
            "/usr/bin/curl",
            ["-s", "--cacert", "cert.pem", "-H", "Cookie: " + cookie, base + "/api/me"])
        #expect(me.stdout.contains(#""moderator":"alice""#), "\(me.stdout)")
        // A write from the page's https origin is accepted; from http it is not.
        let csrf =
            (try? JSONSerialization.jsonObject(with: Data(me.stdout.utf8)) as? [String: Any])?[
                "csrf"] as? String ?? ""
        func claim(origin: String) throws -> String {
            try tool(
                "/usr/bin/curl",
                [
                    "-s", "-o", "/dev/null", "-w", "%{http_code}", "--cacert", "cert.pem",
                    "-H", "Cookie: " + cookie, "-H", "X-CSRF-Token: " + csrf, "-H",
                    "Content-Type: application/json", "-H", "Origin: " + origin, "--data",
                    #"{"id":"p1"}"#, base + "/api/claim",
                ]
            ).stdout
        }
        #expect(try claim(origin: base) == "200")
        #expect(try claim(origin: "http://127.0.0.1:\(server.port)") == "403")
        // One that does not trust it gets nothing, nor does plain HTTP.
        #expect(try tool("/usr/bin/curl", ["-s", base + "/api/me"]).status != 0)
        let socket = try server.connect()
        defer { close(socket) }
        let plain = ServedQueue.exchange(
            socket, Array("GET / HTTP/1.1\r\nHost: \(server.host)\r\n\r\n".utf8), timeout: 5)
        #expect(!plain.hasPrefix("HTTP/1.1 "))
        _ = server.stop()
        // Missing or wrong files, and half a pair, are usage errors naming them.
        _ = try sandbox.write("empty.pem", Data())
        for (arguments, message) in [
            (
                ["--tls-cert", "cert.pem", "--tls-key", "gone.pem"],
                "--tls-key: cannot read 'gone.pem'"
            ),
            (
                ["--tls-cert", "key.pem", "--tls-key", "key.pem"],
                "'key.pem' is not a PEM certificate"
            ),
            (
                ["--tls-cert", "cert.pem", "--tls-key", "empty.pem"],
                "'empty.pem' is not a PEM private key"
            ),
            (["--tls-cert", "cert.pem"], "--tls-cert needs --tls-key"),
            (["--tls-cert", "cert.pem", "--tls-key", "key.pem", "--behind-proxy"], "not both"),
        ] {
            let refused = sandbox.run(["review", "serve", "--listen", "127.0.0.1:0"] + arguments)
            #expect(refused.status == 2 && refused.stderr.contains(message), "\(refused.stderr)")
        }
    }

    @Test func slowAndIdleConnectionsAreClosedWithinTheTimeout() throws {
        let server = try ServedQueue(sandbox)
        let before = try snapshot()
        // Hundreds of idle connections, then one byte a second of a request that would be
        // valid: the oldest idle ones beyond the cap are closed at once, the rest and the
        // slow one within the timeout.
        var idle: [Int32] = []
        for _ in 0..<300 { idle.append(try server.connect()) }
        let slow = try server.connect()
        defer { close(slow) }
        let request = Array(
            "GET /api/me HTTP/1.1\r\nHost: \(server.host)\r\nX-Pad: \(String(repeating: "a", count: 40))\r\n\r\n"
                .utf8)
        let started = Date()
        var closedAfter: Double?
        var sent = 0
        while Date().timeIntervalSince(started) < 25, sent < request.count {
            let written = request[sent...sent].withUnsafeBytes {
                send(slow, $0.baseAddress, 1, Int32(MSG_NOSIGNAL))
            }
            var poller = pollfd(fd: slow, events: Int16(POLLIN), revents: 0)
            if written <= 0
                || (poll(&poller, 1, 1000) > 0 && recv(slow, &poller, 1, Int32(MSG_PEEK)) <= 0)
            {
                closedAfter = Date().timeIntervalSince(started)
                break
            }
            sent += 1
        }
        let after = try #require(closedAfter, "the slow request was never cut off")
        #expect(after > 5, "cut off after \(after) s, before the timeout")
        #expect(after < 13, "cut off after \(after) s")
        #expect(sent < request.count)
        // Every idle connection is closed within the timeout too (the cap's at once, the
        // others idle): each is watched until the server closes it, up to 13 s in all.
        var open = 0
        for socket in idle {
            var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            var byte: UInt8 = 0
            let left = max(0, 13 - Date().timeIntervalSince(started))
            if poll(&poller, 1, Int32(left * 1000) + 50) == 0
                || recv(socket, &byte, 1, Int32(MSG_DONTWAIT)) > 0
            {
                open += 1
            }
        }
        #expect(open == 0, "\(open) idle connections still open")
        for socket in idle { close(socket) }
        idle = []
        // The server still answers.
        #expect(try server.request("GET", "/").status == 401)
        #expect(try snapshot() == before)
    }
}

/// SHA-256 of a token as hex, from the system's sha256sum, so the test does not reuse
/// the code it checks.
enum SHA256Hex {
    static func of(_ text: String) -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try? process.run()
        input.fileHandleForWriting.write(Data(text.utf8))
        try? input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(String(decoding: data, as: UTF8.self).prefix(64))
    }
}
