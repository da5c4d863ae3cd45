import Foundation
import Testing

@testable import TroveCLI
@_spi(Testing) @testable import TroveKit
@_spi(Testing) @testable import TroveStore

/// `publish --mark-applied`: a plan written by `export --update --out` and applied with
/// one's own tooling becomes what the target holds.
@Suite struct PublishMarkAppliedTests {
    let fixture: PublishFixture
    var sandbox: Sandbox { fixture.sandbox }

    init() throws {
        fixture = try PublishFixture()
    }

    /// Applies an export's update and Storage plan the way its script and firebase-tools
    /// would.
    func applyByHand(_ output: String) throws {
        let manifestPath = StoragePlan.paths(output: sandbox.path(output)).manifest
        let manifest = try #require(
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: manifestPath)))
                as? [String: Any])
        for case let object as [String: Any] in manifest["objects"] as? [Any] ?? [] {
            guard object["state"] as? String != "unchanged", let path = object["path"] as? String
            else {
                continue
            }
            let token = (object["metadata"] as? [String: String])?[StoragePlan.tokenMetadataKey]
            try fixture.cloud.put(
                bucket: PublishFixture.bucket, name: path,
                file: sandbox.path("build/images/\(path)"), tokens: token)
        }
        try fixture.cloud.apply(updateFile: sandbox.path(output))
        for case let path as String in manifest["delete"] as? [Any] ?? [] {
            fixture.cloud.remove(bucket: PublishFixture.bucket, name: path)
        }
    }

    @Test func aPlanAppliedByHandIsRecordedAsWhatTheTargetHolds() throws {
        for round in 1...2 {
            if round == 2 {
                try fixture.setRendition("treasure", "a", "full", source: "/art/a.png", version: 2)
            }
            #expect(
                fixture.run("export", "--layout", "flatirongo", "--update", "--out", "build/u.json")
                    .status == 0)
            try applyByHand("build/u.json")
            for _ in 0..<2 {
                let marked = fixture.run("publish", "--mark-applied", "build/u.json")
                #expect(marked.status == 0, "\(marked.stderr)")
                #expect(
                    marked.stderr.contains(
                        "recorded build/u.json (export \(round)) as applied to game: 8 paths, 4 objects"
                    ), "\(marked.stderr)")
                let plan = fixture.run("publish", "--dry-run")
                #expect(plan.stdout == "game is up to date: nothing to publish\n", "\(plan.stdout)")
            }
        }
        // The next change goes through publish, from what was marked.
        #expect(fixture.run("treasures", "rm", "d").status == 0)
        let result = fixture.publish("game")
        #expect(
            result.stderr.contains(
                "0 paths set and 2 removed in 1 request; 0 objects uploaded, 0 re-tokened, 1 deleted"
            ), "\(result.stderr)")
        try PublishResumeTests.expectClean(fixture)
        let log = try Workspace(path: sandbox.workspace).testDatabase.scalar(
            "SELECT count(*) FROM publish_log WHERE kind = 'mark-applied'")?.int64
        #expect(log == 4)
    }

    @Test func plansThatCannotBeMarkedAreRefusedAndChangeNothing() throws {
        #expect(
            fixture.run("export", "--layout", "flatirongo", "--update", "--out", "build/u.json")
                .status == 0)
        for _ in 0..<2 {
            let unknown = fixture.run("publish", "--mark-applied", "build/other.json")
            #expect(unknown.status == 3)
            #expect(
                unknown.stderr.contains(
                    "no recorded export wrote \(sandbox.path("build/other.json"))"))
            let layout = fixture.run(
                "publish", "--target", "litter", "--mark-applied", "build/u.json")
            #expect(layout.status == 2)
            #expect(
                layout.stderr.contains(
                    "was exported with layout flatirongo, but target litter publishes trashmapper"))
            let dry = fixture.run("publish", "--mark-applied", "build/u.json", "--dry-run")
            #expect(dry.status == 2)
        }
        let workspace = try Workspace(path: sandbox.workspace)
        #expect(try workspace.testDatabase.scalar("SELECT count(*) FROM publish_state")?.int64 == 0)
        #expect(try workspace.testDatabase.scalar("SELECT count(*) FROM publish_log")?.int64 == 0)
    }
}
