import Foundation
import Testing
import TroveBase

@testable import TroveCLI
@_spi(Testing) @testable import TroveKit
@_spi(Testing) @testable import TroveStore

/// `trove import posts --from URL`: the app's live database and bucket, pulled again and
/// again while the app adds, edits and deletes.
@Suite struct PostPullTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        sandbox.run("init")
    }

    func pull(_ app: LiveApp, _ url: String? = nil) -> RunResult {
        sandbox.run(
            ["import", "posts", "--from", url ?? app.locations, "--format", "json"],
            environment: app.environment)
    }

    func ids(_ value: Any?) -> [String] {
        ((value as? [Any]) ?? []).compactMap {
            ($0 as? String) ?? (($0 as? [String: Any])?["id"] as? String)
        }.sorted()
    }

    func count(_ result: RunResult, _ key: String) -> Int? { result.object[key] as? Int }

    func downloaded(_ result: RunResult) -> Int? {
        (result.object["downloaded"] as? [String: Any])?["photos"] as? Int
    }

    @Test(.enabled(if: LiveApp.available, LiveApp.skipReason))
    func pullsKeepTheQueueInStepWithTheApp() throws {
        let app = try LiveApp()
        for (name, seed) in [("p1", 1), ("p2", 2), ("p3", 3)] { try app.upload(name, seed: seed) }
        try app.database.put(
            path: "Locations",
            json: LiveApp.json([
                "p1": LiveApp.record(
                    "p1", photo: LiveApp.downloadURL("photos/p1.jpg"),
                    extra: ["email": "ann@example.com", "password": "hunter2", "userName": "Ann"]),
                "p2": LiveApp.record(
                    "p2", user: "u2", description: "Crisp packets",
                    photo: "gs://\(LiveApp.bucket)/photos/p2.jpg"),
                "p3": LiveApp.record("p3", photo: LiveApp.downloadURL("photos/p3.jpg")),
                // Written before its photo was uploaded.
                "p4": LiveApp.record("p4", photo: LiveApp.downloadURL("photos/p4.jpg")),
            ]))

        // 1. The first pull: three posts, p4 refused alone for its missing photo.
        let first = pull(app)
        #expect(first.status == 1, "\(first.stderr)")
        #expect(
            first.stderr.contains(
                "error: post p4 was not imported: cannot download its photo "
                    + "gs://\(LiveApp.bucket)/photos/p4.jpg: HTTP 404"))
        #expect(count(first, "new") == 3)
        #expect(ids(first.object["refused_posts"]) == ["p4"])
        #expect(downloaded(first) == 3)
        let dropped = first.object["dropped"] as? [String: Int]
        #expect(dropped == ["passwords": 1, "emails": 1, "names": 1])
        var posts = try sandbox.posts()
        #expect(posts.keys.sorted() == ["p1", "p2", "p3"])
        #expect(posts["p1"]?["user"] as? String == "u1")
        #expect(sandbox.photoFiles().count == 3)
        // The photos are private, out of git, and the stored reference holds no token.
        let folder = try FileManager.default.attributesOfItem(atPath: sandbox.workspace + ".photos")
        #expect((folder[.posixPermissions] as? Int) == 0o700)
        #expect(FileManager.default.fileExists(atPath: sandbox.workspace + ".photos/.gitignore"))
        let database = try Workspace.testDatabase(at: sandbox.workspace)
        #expect(
            try database.scalar("SELECT photo_ref FROM posts WHERE id = 'p1'")
                == .text("gs://\(LiveApp.bucket)/photos/p1.jpg"))
        #expect(
            try database.scalar(
                "SELECT count(*) FROM posts WHERE description LIKE '%example.com%' OR user LIKE '%Ann%'"
            ) == .integer(0))

        // 2. Nothing changed: nothing downloaded, nothing written.
        let second = pull(app)
        #expect(second.status == 1)
        #expect(count(second, "unchanged") == 3)
        #expect(count(second, "new") == 0)
        #expect(downloaded(second) == 0)

        #expect(sandbox.run("review", "approve", "p1", "--as", "ann").status == 0)
        #expect(
            sandbox.run("review", "reject", "p2", "--reason", "spam", "--as", "ann").status == 0)

        // 3. The app: an edit, a deletion, p4's photo at last, p2's photo replaced under the
        // same name, and a new post.
        try app.database.patch(
            path: "Locations/p1", json: #"{"LocationDescription": "Bottles and cans"}"#)
        try app.database.delete(path: "Locations/p3")
        try app.upload("p4", seed: 4)
        try app.upload("p2", seed: 22)
        try app.upload("p5", seed: 5)
        try app.write("p5", LiveApp.record("p5", photo: LiveApp.downloadURL("photos/p5.jpg")))

        let third = pull(app)
        #expect(third.status == 0, "\(third.stderr)")
        #expect(count(third, "new") == 2)
        #expect(count(third, "updated") == 2)
        #expect(ids(third.object["reopened"]) == ["p1", "p2"])
        #expect(ids(third.object["withdrawn"]) == ["p3"])
        #expect(downloaded(third) == 3)
        posts = try sandbox.posts()
        #expect(
            posts.mapValues { $0["status"] as? String ?? "" } == [
                "p1": "pending", "p2": "pending", "p3": "withdrawn", "p4": "pending",
                "p5": "pending",
            ])
        #expect(posts["p1"]?["description"] as? String == "Bottles and cans")
        let log1 = sandbox.run("review", "log", "p1").stdout
        #expect(log1.contains("content changed after it was approved (description)"))
        let log2 = sandbox.run("review", "log", "p2").stdout
        #expect(log2.contains("content changed after it was rejected (photo)"))
        let log3 = sandbox.run("review", "log", "p3").stdout
        #expect(log3.contains("no longer in \(app.locations)"))
        // p2's first photo stays for the version the moderator rejected.
        #expect(sandbox.photoFiles().count == 6)

        // 4. Nothing changed again.
        let fourth = pull(app)
        #expect(fourth.status == 0)
        #expect(count(fourth, "unchanged") == 4)
        #expect(downloaded(fourth) == 0)
        #expect(ids(fourth.object["withdrawn"]) == [])
    }

    @Test(.enabled(if: LiveApp.available, LiveApp.skipReason))
    func readsALargeLocationInPages() throws {
        // More than a page (of 10,000), read from both ends at once.
        let total = 11_000
        let key = { (index: Int) in String(format: "-Nx%05d", index) }
        var locations: [String: Any] = [:]
        for index in 0..<total {
            locations[key(index)] = LiveApp.record(
                "", user: "u\(index % 40)", lat: 38 + Double(index % 100) / 1000,
                description: "Report \(index)")
        }
        let app = try LiveApp(seed: LiveApp.json(["Locations": locations]))
        let result = pull(app)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(count(result, "new") == total)
        let reads = try app.database.log().filter {
            $0["method"] as? String == "GET" && $0["path"] as? String == "/Locations.json"
        }
        #expect(reads.count >= 2)
        for read in reads {
            let query = read["query"] as? [String: String] ?? [:]
            #expect(query["orderBy"] == "\"$key\"")
            // No answer held the whole location.
            let limit = query["limitToFirst"] ?? query["limitToLast"]
            #expect((Int(limit ?? "") ?? .max) < total)
        }

        // Gone upstream after a whole read: withdrawn.
        for index in 0..<10 { try app.database.delete(path: "Locations/" + key(index * 7)) }
        let again = pull(app)
        #expect(again.status == 0)
        #expect(ids(again.object["withdrawn"]).count == 10)
        #expect(count(again, "unchanged") == total - 10)

        // Nothing changed: nothing written. Then one edit, in the middle, is seen.
        let same = pull(app)
        #expect(same.status == 0, "\(same.stderr)")
        #expect(count(same, "unchanged") == total - 10)
        #expect(count(same, "new") == 0 && count(same, "updated") == 0)
        #expect(ids(same.object["withdrawn"]).isEmpty)
        try app.database.patch(
            path: "Locations/" + key(total / 2), json: LiveApp.json(["description": "Edited"]))
        let edited = pull(app)
        #expect(count(edited, "updated") == 1)
        #expect(count(edited, "unchanged") == total - 11)
        #expect(try sandbox.posts()[key(total / 2)]?["description"] as? String == "Edited")
    }

    /// A page that comes back the same is passed over only while the workspace holds its
    /// posts as the last pull stored them: a file import of one of them in between makes
    /// the next pull store it from the location again, so that a deletion upstream then
    /// withdraws it.
    @Test(.enabled(if: LiveApp.available, LiveApp.skipReason))
    func aPostImportedFromAFileInBetweenIsPulledBack() throws {
        let app = try LiveApp()
        let records = [
            "p1": LiveApp.record("p1", description: "Cans"),
            "p2": LiveApp.record("p2", description: "Tyres"),
        ]
        try app.database.put(path: "Locations", json: LiveApp.json(records))
        #expect(pull(app).status == 0)
        let file = try sandbox.write(
            "export.json", LiveApp.json(["Locations": ["p1": records["p1"] ?? [:]]]))
        let imported = sandbox.run("import", "posts", file)
        #expect(imported.status == 0, "\(imported.stderr)")

        let back = pull(app)
        #expect(back.status == 0, "\(back.stderr)")
        try app.database.delete(path: "Locations/p1")
        let gone = pull(app)
        #expect(ids(gone.object["withdrawn"]) == ["p1"])
        #expect(try sandbox.posts()["p1"]?["status"] as? String == "withdrawn")
    }

    @Test(.enabled(if: LiveApp.available, LiveApp.skipReason))
    func pullsTheNestedUsersShape() throws {
        let tree: [String: Any] = [
            "Users": [
                "u1": [
                    "email": "ann@example.com", "password": "hunter2",
                    "TaggedLocations": [
                        "a1": LiveApp.record("a1", user: "ignored", description: "Cans"),
                        "a2": LiveApp.record("a2", description: "Tyres"),
                    ],
                ],
                "bob@example,net": [
                    "TaggedLocations": ["b1": LiveApp.record("b1", user: "x", description: "Nets")]
                ],
            ]
        ]
        let app = try LiveApp(seed: LiveApp.json(tree))
        let users = app.database.url + "/Users"
        let first = pull(app, users)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(count(first, "new") == 3)
        let posts = try sandbox.posts()
        // The Users key is the user, an address made a pseudonym.
        #expect(posts["a1"]?["user"] as? String == "u1")
        #expect((posts["b1"]?["user"] as? String)?.hasPrefix("user-") == true)
        let dropped = first.object["dropped"] as? [String: Int]
        #expect(dropped?["passwords"] == 1)
        #expect((dropped?["emails"] ?? 0) >= 2)

        try app.database.delete(path: "Users/u1/TaggedLocations/a2")
        let second = pull(app, users)
        #expect(ids(second.object["withdrawn"]) == ["a2"])
        #expect(count(second, "unchanged") == 2)
    }

    @Test(.enabled(if: LiveApp.available, LiveApp.skipReason))
    func aDatabaseThatRefusesChangesNothing() throws {
        let app = try LiveApp(requireToken: "secret")
        try app.database.put(path: "Locations/p1", json: LiveApp.json(LiveApp.record("p1")))
        // No credentials sent: 401.
        let result = sandbox.run(
            ["import", "posts", "--from", app.locations],
            environment: app.environment.merging(["CLOUDSDK_AUTH_DISABLE_CREDENTIALS": "True"]) {
                $1
            })
        #expect(result.status == 3)
        #expect(result.stderr.contains("HTTP 401"))
        #expect(result.stderr.contains("nothing was imported"))
        #expect(try sandbox.posts().isEmpty)
    }

    @Test func fromIsForLocations() {
        let both = sandbox.run(
            "import", "posts", "posts.json", "--from", "https://x.firebaseio.com/Locations")
        #expect(both.status == 2)
        #expect(both.stderr.contains("give a file or --from URL, not both"))
        let photos = sandbox.run(
            "import", "posts", "--from", "https://x.firebaseio.com/Locations", "--photos", "p")
        #expect(photos.status == 2)
        let root = sandbox.run("import", "posts", "--from", "https://x.firebaseio.com/")
        #expect(root.status == 2)
        #expect(root.stderr.contains("names the database's root"))
        let neither = sandbox.run("import", "posts")
        #expect(neither.status == 2)
    }

    @Test func aLocationIsKnownByItsURL() throws {
        let location = try LiveLocation(
            "HTTPS://Demo-default-rtdb.firebaseio.com/Locations.json?auth=SECRET&print=pretty")
        #expect(location.origin == "https://demo-default-rtdb.firebaseio.com/Locations")
        #expect(location.shape == .flat)
        let emulator = try LiveLocation("http://127.0.0.1:9000/app/Users?ns=demo")
        #expect(emulator.origin == "http://127.0.0.1:9000/app/Users?ns=demo")
        #expect(emulator.shape == .nested)
        #expect(
            emulator.restURL(["u 1"], [URLQueryItem(name: "orderBy", value: "\"$key\"")])
                == "http://127.0.0.1:9000/app/Users/u%201.json?ns=demo&orderBy=%22%24key%22")
    }
}
