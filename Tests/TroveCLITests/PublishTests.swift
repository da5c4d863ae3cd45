import Foundation
import Testing

@testable import TroveBase
@testable import TroveCLI
@_spi(Testing) @testable import TroveKit
@_spi(Testing) @testable import TroveStore

/// `trove publish`: targets, plans, the order of the steps, and what the target holds.
@Suite struct PublishTests {
    let fixture: PublishFixture
    var cloud: FakeCloud { fixture.cloud }

    init() throws {
        fixture = try PublishFixture()
    }

    @Test func targetsAreListedWithTheFirstAsDefault() throws {
        let list = fixture.run("publish", "target", "list")
        #expect(list.status == 0)
        #expect(
            list.stdout.contains(
                "* game  flatirongo  https://game-test.firebaseio.com  gs://trove-test  never published"
            ))
        // The trailing slash is dropped.
        #expect(
            list.stdout.contains(
                "  litter  trashmapper  https://litter-test.firebaseio.com  gs://trove-test"))
        let json = fixture.run("publish", "target", "list", "--format", "json")
        #expect(json.stdout.contains(#""name": "game""#))
        #expect(json.stdout.contains(#""default": true"#))
    }

    @Test func badTargetsAreRefusedAndChangeNothing() throws {
        for arguments in [
            ["game", "--database", "https://x.firebaseio.com", "--bucket", "gs://other"],
            ["new", "--database", "ftp://x", "--bucket", "gs://other"],
            ["new", "--database", "https://x.firebaseio.com/.json", "--bucket", "gs://other"],
            ["new", "--database", "https://x.firebaseio.com", "--bucket", "not a bucket"],
            ["bad name", "--database", "https://x.firebaseio.com", "--bucket", "gs://other"],
            [
                "new", "--database", "https://x.firebaseio.com", "--bucket", "gs://other",
                "--layout", "nolayout",
            ],
        ] {
            for _ in 0..<2 {
                let result = fixture.run(["publish", "target", "add"] + arguments)
                #expect(result.status == 2, "\(arguments): \(result.stderr)")
                #expect(result.stderr.hasPrefix("error: "))
            }
        }
        #expect(
            fixture.run(
                "publish", "target", "add", "game", "--database", "https://x.firebaseio.com",
                "--bucket", "gs://other"
            ).stderr.contains("a publish target named 'game' exists"))
        let targets = try PublishTargets.all(in: Workspace(path: fixture.sandbox.workspace))
        #expect(targets.map(\.name) == ["game", "litter"])
        // An emulator's URL names its database with ns.
        let emulator = fixture.run(
            "publish", "target", "add", "emu", "--database", "http://127.0.0.1:9000/?ns=trove-test",
            "--bucket", "gs://trove-test")
        #expect(emulator.status == 0, "\(emulator.stderr)")
        #expect(
            emulator.stderr.contains("to http://127.0.0.1:9000?ns=trove-test and gs://trove-test"))
        #expect(
            fixture.run(
                "publish", "target", "add", "emu2", "--database", "http://127.0.0.1:9000/?auth=x",
                "--bucket", "gs://trove-test"
            ).status == 2)
    }

    @Test func removingTheDefaultLeavesNoneUntilOneIsMade() throws {
        #expect(
            fixture.run(
                "publish", "target", "add", "stage", "--database", "https://s.firebaseio.com",
                "--bucket", "gs://stage-bucket", "--default"
            ).status == 0)
        var targets = try PublishTargets.all(in: Workspace(path: fixture.sandbox.workspace))
        #expect(targets.filter(\.isDefault).map(\.name) == ["stage"])
        let removed = fixture.run("publish", "target", "rm", "stage")
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(
            removed.stderr.contains(
                "stage was the default target; there is none now: give --target NAME, or make "
                    + "one the default with 'trove publish target set NAME --default'"))
        targets = try PublishTargets.all(in: Workspace(path: fixture.sandbox.workspace))
        #expect(targets.filter(\.isDefault).isEmpty)
        for _ in 0..<2 {
            // Nothing is chosen for the user.
            let publish = fixture.run("publish", "--dry-run")
            #expect(publish.status == 2)
            #expect(
                publish.stderr.contains(
                    "no default publish target (targets: game, litter); give --target NAME, "
                        + "or make one the default with 'trove publish target set NAME --default'"))
        }
        let again = fixture.run("publish", "target", "rm", "stage")
        #expect(again.status == 2)
        #expect(again.stderr.contains("no publish target 'stage' (targets: game, litter)"))
        let made = fixture.run("publish", "target", "set", "litter", "--default")
        #expect(made.stderr.contains("litter is the default target now"), "\(made.stderr)")
        #expect(fixture.run("publish", "--dry-run").stdout.hasPrefix("would publish to litter"))
        // Adding a target makes it the default only when asked, now that targets exist.
        #expect(
            fixture.run(
                "publish", "target", "add", "third", "--database", "https://t.firebaseio.com",
                "--bucket", "gs://third-bucket"
            ).status == 0)
        targets = try PublishTargets.all(in: Workspace(path: fixture.sandbox.workspace))
        #expect(targets.filter(\.isDefault).map(\.name) == ["litter"])
    }

    /// `export --target` previews what the target gets, its bucket and tokens in the URLs,
    /// and records nothing: it takes no output file.
    @Test func anExportPreviewsATargetsTree() throws {
        fixture.publish("game")
        for _ in 0..<2 {
            let preview = fixture.run("export", "--target", "game")
            #expect(preview.status == 0, "\(preview.stderr)")
            let tree = try JSONSerialization.jsonObject(with: Data(preview.stdout.utf8))
            let text = String(
                decoding: try JSONSerialization.data(withJSONObject: tree, options: [.sortedKeys]),
                as: UTF8.self)
            #expect(text == cloud.treeText)
            // Without a target: the tokens of exports, not the target's.
            let plain = fixture.run("export", "--layout", "flatirongo")
            #expect(plain.stdout != preview.stdout)
        }
        let written = fixture.run("export", "--target", "game", "--out", "build/g.json")
        #expect(written.status == 2)
        #expect(written.stderr.contains("--target previews a target's tree on stdout"))
        let neither = fixture.run("export")
        #expect(neither.status == 2)
        #expect(
            neither.stderr.contains("give the layout to export with --layout (or --target NAME)"))
    }

    @Test func firstPublishSendsEverythingThenNothing() throws {
        let result = fixture.publish("game")
        #expect(
            result.stderr.contains(
                "published to game: 8 paths set and 0 removed in 1 request; 4 objects uploaded, 0 re-tokened, 0 deleted"
            ))
        #expect(Set(cloud.uploaded) == fixture.objectNames)
        #expect(cloud.uploaded.count == 4)
        let url = try #require(cloud.value(at: "treasureProfiles/a/imageURL") as? String)
        #expect(
            url.hasPrefix(
                "https://firebasestorage.googleapis.com/v0/b/trove-test/o/treasures%2Fa%2Ffull-"))
        #expect(cloud.value(at: "treasureLocations/a/g") != nil)
        let tree = cloud.treeText
        for _ in 0..<2 {
            let again = fixture.publish("game")
            #expect(again.stderr.contains("game is up to date: nothing to publish"))
            #expect(cloud.uploaded.count == 4)
            #expect(cloud.requestSizes.count == 1)
            #expect(cloud.treeText == tree)
        }
        let log = try Workspace(path: fixture.sandbox.workspace).testDatabase.scalar(
            "SELECT count(*) FROM publish_log WHERE target = 'game'")?.int64
        #expect(log == 1)
    }

    @Test func dryRunPrintsThePlanAndChangesNothing() throws {
        for _ in 0..<2 {
            let text = fixture.run("publish", "--dry-run")
            #expect(text.status == 0, "\(text.stderr)")
            #expect(
                text.stdout
                    == "would publish to game: 8 paths set and 0 removed in 1 request; 4 objects uploaded, 0 re-tokened, 0 deleted\n"
            )
            let json = fixture.run("publish", "--target", "litter", "--dry-run", "--format", "json")
            #expect(json.status == 0, "\(json.stderr)")
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            #expect(object["target"] as? String == "litter")
            #expect(object["uploads"] as? Int == 2)
            #expect((object["set_paths"] as? [String])?.contains("locations/ok") == true)
            #expect(
                (object["set_paths"] as? [String])?.contains("users/ann/taggedLocations/ok") == true
            )
            #expect((object["upload_objects"] as? [String])?.count == 2)
        }
        #expect(cloud.operations == 0)
        let workspace = try Workspace(path: fixture.sandbox.workspace)
        #expect(try workspace.testDatabase.scalar("SELECT count(*) FROM publish_state")?.int64 == 0)
        #expect(try workspace.testDatabase.scalar("SELECT count(*) FROM publish_plans")?.int64 == 0)
    }

    /// A rendition file gone from the images folder whose image is gone too: the publish
    /// cannot make it again, so that treasure is left out, named, and the rest goes.
    @Test func aRecordWhoseRenditionsCannotBeMadeIsLeftOutAndTheRestPublished() throws {
        let path = try fixture.renditionPath("treasure", "b")
        try FileManager.default.removeItem(atPath: fixture.sandbox.path("build/images/\(path)"))
        for run in 0..<2 {
            let result = fixture.run("publish")
            #expect(result.status == 1, "\(result.stderr)")
            #expect(
                result.stderr.contains(
                    "warning: left out of this publish: treasure b: /art/b.png: no such file; the "
                        + "target keeps what it held of it, and the next publish tries again"),
                "\(result.stderr)")
            #expect(cloud.broken.isEmpty)
            #expect(cloud.value(at: "treasureProfiles/b") == nil)
            #expect(cloud.value(at: "treasureProfiles/a/imageURL") != nil)
            #expect(fixture.objectNames.count == 3)
            #expect(
                result.stderr.contains(
                    run == 0
                        ? "published to game: 6 paths set and 0 removed in 1 request; 3 objects uploaded"
                        : "game is up to date: nothing to publish"), "\(result.stderr)")
        }
        // Its file back: the next publish sends it.
        try fixture.setRendition("treasure", "b", "full", source: "/art/b.png", version: 1)
        let back = fixture.publish("game")
        #expect(back.stderr.contains("2 paths set and 0 removed in 1 request; 1 object uploaded"))
        #expect(fixture.objectNames.count == 4)
    }

    /// Runs the command `status` names as its next step, exactly as printed.
    func runNextStep(sourceLocation: SourceLocation = #_sourceLocation) -> RunResult {
        let status = fixture.run("status")
        let line = status.stdout.split(separator: "\n").last { $0.hasPrefix("next: ") }
        let words = (line?.dropFirst("next: trove ".count) ?? "").split(separator: " ").map(
            String.init)
        #expect(!words.isEmpty, "\(status.stdout)", sourceLocation: sourceLocation)
        return fixture.run(words)
    }

    @Test func statusNamesThePublishAndItsNextStepRuns() throws {
        #expect(fixture.run("review", "approve", "wait").status == 0)
        var status = fixture.run("status")
        #expect(
            status.stdout.contains("published: game never\n           litter never\n"),
            "\(status.stdout)")
        #expect(status.stdout.hasSuffix("next: trove publish\n"))
        #expect(runNextStep().status == 0)
        status = fixture.run("status")
        #expect(status.stdout.contains("published: game at "))
        #expect(status.stdout.contains("; 'trove publish --dry-run' counts the changes since\n"))
        #expect(
            status.stdout.hasSuffix("up to date; after changes: trove publish\n"),
            "\(status.stdout)")

        // An interrupted publish of the other target comes first.
        cloud.failAt = cloud.operations + 1
        #expect(fixture.run("publish", "--target", "litter").status == 1)
        for _ in 0..<2 {
            status = fixture.run("status")
            #expect(
                status.stdout.contains(
                    "litter never; interrupted, left: 2 uploads, 0 token updates, 1 database requests, 0 deletions"
                ), "\(status.stdout)")
            #expect(status.stdout.hasSuffix("next: trove publish --target litter\n"))
            let json = fixture.run("status", "--format", "json")
            #expect(json.stdout.contains(#""target": "litter""#))
            #expect(json.stdout.contains(#""uploads": 2"#), "\(json.stdout)")
        }
        #expect(runNextStep().status == 0)
        #expect(cloud.broken.isEmpty)
        status = fixture.run("status")
        #expect(!status.stdout.contains("interrupted"))
        #expect(status.stdout.contains("litter at "))
    }

    @Test func aSecondPublishWaitsForTheFirstToEnd() throws {
        let other = LockedValue<RunResult?>(nil)
        let fixture = self.fixture
        cloud.beforeOperation = { number in
            guard number == 0 else { return }
            other.withLock { $0 = fixture.run("publish", "--target", "litter") }
        }
        fixture.publish("game")
        let second = try #require(other.withLock { $0 })
        #expect(second.status == 4)
        #expect(
            second.stderr.contains(
                "another 'trove publish' is running on \(fixture.sandbox.workspace); wait for it to end"
            ))
        // The lock goes with its holder.
        cloud.beforeOperation = nil
        fixture.publish("litter")
    }
}
