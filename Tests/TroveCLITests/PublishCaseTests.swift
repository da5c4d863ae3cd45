import Foundation
import Testing

@testable import TroveBase
@testable import TroveCLI
@_spi(Testing) @testable import TroveKit
@_spi(Testing) @testable import TroveStore

/// The ways exports lost work or leaked data, each run twice: the published state moves
/// only with a completed publish, so the next plan holds every change not yet published.
@Suite struct PublishCaseTests {
    let fixture: PublishFixture
    var cloud: FakeCloud { fixture.cloud }
    var sandbox: Sandbox { fixture.sandbox }

    init() throws {
        fixture = try PublishFixture()
    }

    /// 1. A re-run of the export no longer throws away an unpublished update.
    @Test func aReRunKeepsTheUnpublishedUpdate() throws {
        fixture.publish("game")
        for round in 2...3 {
            let old = try fixture.renditionPath("treasure", "a")
            try fixture.setRendition("treasure", "a", "full", source: "/art/a.png", version: round)
            let new = try fixture.renditionPath("treasure", "a")
            // The pipeline runs twice before anything is published: the second update is {}.
            for _ in 0..<2 {
                #expect(
                    fixture.run(
                        "export", "--layout", "flatirongo", "--update", "--out",
                        "build/firebase.update.json"
                    ).status == 0)
            }
            #expect(try ExportSupport.read(sandbox.path("build/firebase.update.json")) == "{}\n")
            let plan = fixture.run("publish", "--dry-run", "--format", "json")
            #expect(plan.stdout.contains(#""set_paths": ["treasureProfiles/a"]"#), "\(plan.stdout)")
            #expect(plan.stdout.contains(#""upload_objects": ["\#(new)"]"#))
            #expect(plan.stdout.contains(#""delete_objects": ["\#(old)"]"#))
            let result = fixture.publish("game")
            #expect(
                result.stderr.contains(
                    "1 path set and 0 removed in 1 request; 1 object uploaded, 0 re-tokened, 1 deleted"
                ))
            let url = try #require(cloud.value(at: "treasureProfiles/a/imageURL") as? String)
            #expect(url.contains(StorageURL.percentEncode(new)))
            #expect(fixture.objectNames.contains(new) && !fixture.objectNames.contains(old))
            #expect(fixture.publish("game").stderr.contains("nothing to publish"))
        }
    }

    /// 2. A second `--out` of the same layout no longer breaks deletion.
    @Test func aSecondOutDoesNotBreakDeletion() throws {
        fixture.publish("game")
        for key in ["b", "c"] {
            let object = try fixture.renditionPath("treasure", key)
            #expect(
                fixture.run("export", "--layout", "flatirongo", "--update", "--out", "build/u.json")
                    .status == 0)
            #expect(
                fixture.run("export", "--layout", "flatirongo", "--out", "build/look.json").status
                    == 0)
            #expect(fixture.run("treasures", "rm", key).status == 0)
            #expect(
                fixture.run("export", "--layout", "flatirongo", "--update", "--out", "build/u.json")
                    .status == 0)
            let result = fixture.publish("game")
            #expect(
                result.stderr.contains(
                    "0 paths set and 2 removed in 1 request; 0 objects uploaded, 0 re-tokened, 1 deleted"
                ), "\(result.stderr)")
            #expect(cloud.value(at: "treasureProfiles/\(key)") == nil)
            #expect(cloud.value(at: "treasureLocations/\(key)") == nil)
            #expect(!fixture.objectNames.contains(object))
            #expect(cloud.deleted.last == object)
        }
        #expect(fixture.objectNames.count == 2)
        #expect(fixture.publish("game").stderr.contains("nothing to publish"))
    }

    /// 3. A privacy takedown leaves the tree and the bucket at the next publish, however
    /// many exports come between.
    @Test func aPrivacyTakedownIsNeverLost() throws {
        fixture.publish("litter")
        let photo = try fixture.renditionPath("post", "ok")
        #expect(cloud.value(at: "locations/ok") != nil)
        #expect(cloud.value(at: "users/ann/taggedLocations/ok") as? Bool == true)
        let reject = fixture.run("review", "reject", "ok", "--reason", "privacy", "--force")
        #expect(reject.status == 0, "\(reject.stderr)")
        for _ in 0..<2 {
            #expect(
                fixture.run(
                    "export", "--layout", "trashmapper", "--update", "--out", "build/l.json"
                ).status == 0)
            #expect(fixture.run("images").status != 4)
        }
        #expect(try ExportSupport.read(sandbox.path("build/l.json")) == "{}\n")
        let result = fixture.publish("litter")
        #expect(
            result.stderr.contains(
                "0 paths set and 3 removed in 1 request; 0 objects uploaded, 0 re-tokened, 1 deleted"
            ), "\(result.stderr)")
        for path in ["locations/ok", "locationIndex/ok", "users/ann"] {
            #expect(cloud.value(at: path) == nil, "\(path)")
        }
        #expect(!fixture.objectNames.contains(photo))
        #expect(cloud.value(at: "locations/fine") != nil)
        #expect(fixture.publish("litter").stderr.contains("nothing to publish"))
        #expect(!fixture.objectNames.contains(photo))
    }

    /// 4. Deleting is idempotent and re-runnable: an object already gone counts as
    /// deleted, and a run stopped among the deletions sends only those left.
    @Test func deletionIsReRunnable() throws {
        fixture.publish("game")
        let objects = try ["a", "b", "c"].map { try fixture.renditionPath("treasure", $0) }
        #expect(fixture.run("treasures", "rm", "a", "b", "c").status == 0)
        cloud.remove(bucket: PublishFixture.bucket, name: objects[0])
        // The database request is operation 0 of this run; the second delete fails.
        cloud.failAt = cloud.operations + 2
        let failed = fixture.run("publish")
        #expect(failed.status == 1)
        #expect(
            failed.stderr.contains("error: Storage delete to gs://trove-test: connection reset"),
            "\(failed.stderr)")
        #expect(failed.stderr.contains("the next 'trove publish' resumes from there"))
        #expect(cloud.deleted == [objects[0]])
        for _ in 0..<2 {
            let resumed = fixture.publish("game")
            #expect(cloud.deleted == objects)
            #expect(fixture.objectNames == [try fixture.renditionPath("treasure", "d")])
            _ = resumed
        }
        #expect(cloud.broken.isEmpty)
    }

    /// 5. Objects go to the transport in batches, and the database update in requests
    /// under the size limit, in order.
    @Test func objectsGoInBatchesAndRequestsStayUnderTheLimit() throws {
        let workspace = try Workspace(path: sandbox.workspace)
        let name = String(repeating: "n", count: 600)
        try workspace.write {
            for index in 0..<8000 {
                try workspace.fixture.addTreasure(
                    "k\(index)", name: "\(name) \(index)", lat: 40.7, lon: -74.0)
            }
        }
        #expect(fixture.run("geohash").status == 0)
        for _ in 0..<2 {
            let result = fixture.publish("game")
            _ = result
        }
        #expect(cloud.requestSizes.count >= 2)
        #expect(cloud.requestSizes.allSatisfy { $0 <= PublishLimits.requestBytes })
        #expect(cloud.objectCalls == [4])
        #expect((cloud.value(at: "treasureProfiles") as? [String: Any])?.count == 8004)
        #expect((cloud.value(at: "treasureLocations") as? [String: Any])?.count == 8004)
    }
}
