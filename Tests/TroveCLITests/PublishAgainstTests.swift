import Foundation
import Testing

@testable import TroveCLI

/// `publish --against live.json`: plans against what the database really holds, and
/// says what differs.
@Suite struct PublishAgainstTests {
    let fixture: PublishFixture
    var sandbox: Sandbox { fixture.sandbox }

    init() throws {
        fixture = try PublishFixture()
    }

    /// Writes the fake database as `firebase database:get /` prints it: without
    /// priorities.
    func download(_ name: String) throws -> String {
        func strip(_ node: Any) -> Any {
            guard let object = node as? [String: Any] else { return node }
            var kept: [String: Any] = [:]
            for (key, value) in object where key != ".priority" { kept[key] = strip(value) }
            return kept
        }
        let tree = try JSONSerialization.jsonObject(with: Data(fixture.cloud.treeText.utf8))
        let data = try JSONSerialization.data(
            withJSONObject: strip(tree), options: [.prettyPrinted])
        return try sandbox.write(name, data)
    }

    @Test func driftIsNamedAndRepaired() throws {
        fixture.publish("game")
        // A console edit, a lost update, a node someone else seeded, and data of the app's
        // own that no layout path covers.
        try fixture.cloud.update(
            Array(
                #"""
                {"treasureProfiles/a/name": "Edited", "treasureLocations/b": null,
                 "treasureProfiles/zz": {"name": "Seeded"}, "users/u1": {"score": 3}}
                """#.utf8), databaseURL: "")
        try download("live.json")
        for _ in 0..<2 {
            let plan = fixture.run("publish", "--dry-run", "--against", "live.json")
            #expect(plan.status == 0, "\(plan.stderr)")
            #expect(
                plan.stderr.contains(
                    "another value in the database at 1 path (edited in the console, or changes not published yet): treasureProfiles/a"
                ), "\(plan.stderr)")
            #expect(
                plan.stderr.contains(
                    "missing from the database: 1 path of the tree (a lost update, or never published): treasureLocations/b"
                ))
            #expect(plan.stderr.contains("recorded as published by trove: 2 of these"))
            #expect(
                plan.stderr.contains(
                    "not in the tree: 1 path at the layout's paths (a database seeded by someone else, or removals not published yet), set to null: treasureProfiles/zz"
                ))
            #expect(
                plan.stdout
                    == "would publish to game: 2 paths set and 1 removed in 1 request; 0 objects uploaded, 0 re-tokened, 0 deleted\n",
                "\(plan.stdout)")
            let json = fixture.run(
                "publish", "--dry-run", "--against", "live.json", "--format", "json")
            #expect(
                json.stdout.contains(#""removed_paths": ["treasureProfiles/zz"]"#), "\(json.stdout)"
            )
            #expect(json.stdout.contains(#""differ": ["treasureProfiles/a"]"#))
        }
        let result = fixture.run("publish", "--against", "live.json")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(fixture.cloud.value(at: "treasureProfiles/a/name") as? String == "A")
        #expect(fixture.cloud.value(at: "treasureLocations/b/g") != nil)
        #expect(fixture.cloud.value(at: "treasureProfiles/zz") == nil)
        #expect(fixture.cloud.value(at: "users/u1/score") as? Int == 3)
        #expect(fixture.cloud.broken.isEmpty)
        try download("live2.json")
        for _ in 0..<2 {
            let again = fixture.run("publish", "--against", "live2.json")
            #expect(again.status == 0)
            #expect(
                again.stderr.contains("the database holds exactly the tree at the layout's paths"))
            #expect(again.stderr.contains("game is up to date: nothing to publish"))
        }
    }

    /// A first publish onto a database someone else filled: only what differs is sent.
    @Test func aFirstPublishOntoASeededDatabaseSendsOnlyTheDifference() throws {
        fixture.publish("game")
        try download("seeded.json")
        #expect(
            fixture.run(
                "publish", "target", "add", "copy", "--database", "https://copy.firebaseio.com",
                "--bucket", "gs://\(PublishFixture.bucket)"
            ).status == 0)
        let plan = fixture.run(
            "publish", "--target", "copy", "--dry-run", "--against", "seeded.json")
        #expect(
            plan.stdout
                == "would publish to copy: 0 paths set and 0 removed in 0 requests; 4 objects uploaded, 0 re-tokened, 0 deleted\n",
            "\(plan.stdout) \(plan.stderr)")
        #expect(plan.stderr.contains("the database holds exactly the tree"))
    }

    @Test func anUnreadableDownloadIsRefused() throws {
        try sandbox.write("bad.json", "{\"a\": \n  [1, }")
        for _ in 0..<2 {
            let result = fixture.run("publish", "--dry-run", "--against", "bad.json")
            #expect(result.status == 3)
            #expect(result.stderr.contains("\(sandbox.path("bad.json")):2:"), "\(result.stderr)")
            #expect(result.stderr.contains("expected the output of 'firebase database:get /'"))
        }
        #expect(fixture.run("publish", "--dry-run", "--against", "none.json").status == 3)
    }
}
