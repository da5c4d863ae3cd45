import Foundation
import Testing

@testable import TroveBase
@testable import TroveCLI
@_spi(Testing) @testable import TroveKit
@_spi(Testing) @testable import TroveStore

/// A publish stopped at any step resumes to what a clean publish gives, never resending
/// what was done; between steps every URL in the tree resolves to an object with its
/// token; and what changes in the workspace meanwhile goes to the next publish.
@Suite struct PublishResumeTests {
    /// A published workspace, then a new image for a, a rotated token for b and c
    /// removed: one upload, one token added, one request, two deletions, one token
    /// revoked.
    static func changedFixture() throws -> PublishFixture {
        let fixture = try PublishFixture()
        fixture.publish("game")
        try fixture.setRendition("treasure", "a", "full", source: "/art/a.png", version: 2)
        #expect(fixture.run("storage", "rotate", "treasure:b").status == 0)
        #expect(fixture.run("treasures", "rm", "c").status == 0)
        return fixture
    }

    static let steps = 6

    /// What a clean publish leaves: the tree a full export writes, and exactly the objects
    /// it references, each with its current token.
    static func expectClean(
        _ fixture: PublishFixture, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let export = fixture.run("export", "--target", "game")
        #expect(export.status == 0, sourceLocation: sourceLocation)
        let tree = try JSONSerialization.jsonObject(with: Data(export.stdout.utf8))
        let text = String(
            decoding: try JSONSerialization.data(withJSONObject: tree, options: [.sortedKeys]),
            as: UTF8.self)
        #expect(fixture.cloud.treeText == text, sourceLocation: sourceLocation)
        let workspace = try Workspace(path: fixture.sandbox.workspace)
        let expected = try workspace.testDatabase.query(
            """
            SELECT r.path, t.token FROM renditions AS r JOIN treasures AS o ON o.key = r.owner_key
            JOIN bucket_tokens AS t ON t.path = r.path AND t.bucket = 'trove-test'
            WHERE r.owner_kind = 'treasure'
            """
        ) { "\(PublishFixture.bucket)/\($0.text(0) ?? "") \($0.text(1) ?? "")" }.sorted()
        let held = fixture.cloud.objectList.map {
            $0.split(separator: " ").prefix(2).joined(separator: " ")
        }
        #expect(held == expected, sourceLocation: sourceLocation)
        #expect(
            fixture.cloud.broken.isEmpty, "\(fixture.cloud.broken)", sourceLocation: sourceLocation)
    }

    @Test func aCleanPublishOfTheChangesSendsEachStepOnce() throws {
        let fixture = try Self.changedFixture()
        let before = fixture.cloud.operations
        let result = fixture.publish("game")
        #expect(
            result.stderr.contains(
                "2 paths set and 2 removed in 1 request; 1 object uploaded, 1 re-tokened, 2 deleted"
            ), "\(result.stderr)")
        #expect(fixture.cloud.operations - before == Self.steps)
        try Self.expectClean(fixture)
    }

    @Test(arguments: 0..<steps)
    func aPublishStoppedAtAnyStepResumesToTheCleanResult(step: Int) throws {
        let fixture = try Self.changedFixture()
        let cloud = fixture.cloud
        let before = (
            cloud.uploaded.count, cloud.tokened.count, cloud.deleted.count, cloud.requestSizes.count
        )
        cloud.failAt = cloud.operations + step
        let failed = fixture.run("publish", "--target", "game")
        #expect(failed.status == 1, "\(failed.stderr)")
        #expect(failed.stderr.contains("connection reset"))
        #expect(cloud.broken.isEmpty, "\(cloud.broken)")
        // Nothing is recorded as held until every step is done.
        let status = fixture.run("publish", "--dry-run", "--target", "game")
        #expect(
            status.stdout.hasPrefix("would first complete the interrupted publish to game"),
            "\(status.stdout)")
        for _ in 0..<2 {
            fixture.publish("game")
            try Self.expectClean(fixture)
        }
        // Each step went out once: none done before the failure was sent again.
        #expect(cloud.uploaded.count - before.0 == 1)
        #expect(cloud.tokened.count - before.1 == 2)
        #expect(cloud.deleted.count - before.2 == 2)
        #expect(cloud.requestSizes.count - before.3 == 1)
        #expect(fixture.run("publish", "--dry-run").stdout.contains("nothing to publish"))
    }

    /// A rotated token: the object holds old and new tokens while the tree still names
    /// the old one, then only the new one.
    @Test func aRotatedTokenKeepsTheOldURLWorkingUntilTheTreeMoves() throws {
        let fixture = try PublishFixture()
        fixture.publish("game")
        let object = try fixture.renditionPath("treasure", "b")
        let workspace = try Workspace(path: fixture.sandbox.workspace)
        let game = try PublishTargets.find("game", in: workspace)
        let old = try StorageTokens.token(of: object, target: game, in: workspace) ?? ""
        #expect(fixture.run("storage", "rotate", "treasure:b").status == 0)
        let new = try StorageTokens.token(of: object, target: game, in: workspace) ?? ""
        fixture.publish("game")
        #expect(fixture.cloud.tokened == [object, object])
        let held = fixture.cloud.objectList.first {
            $0.hasPrefix("\(PublishFixture.bucket)/\(object) ")
        }
        #expect(held?.contains(" \(new) ") == true)
        #expect(held?.contains(old) == false)
        let url = fixture.cloud.value(at: "treasureProfiles/b/imageURL") as? String
        #expect(url?.hasSuffix("&token=\(new)") == true)
        #expect(fixture.publish("game").stderr.contains("nothing to publish"))
    }

    /// A colleague's import or decision during a publish: the publish sends the plan it
    /// made, and the change goes to the next one.
    @Test func changesMadeDuringAPublishGoToTheNextOne() throws {
        let fixture = try PublishFixture()
        fixture.publish("litter")
        try fixture.setRendition("post", "ok", "full", source: "/p/ok.jpg", version: 2)
        let sandbox = fixture.sandbox
        let changed = LockedValue(false)
        fixture.cloud.beforeOperation = { _ in
            guard !changed.withLock({ $0 }) else { return }
            changed.withLock { $0 = true }
            // Another moderator, meanwhile, on the same workspace.
            let approve = sandbox.run("review", "approve", "wait")
            #expect(approve.status == 0, "\(approve.stderr)")
            let rename = sandbox.run("review", "reject", "fine", "--reason", "privacy", "--force")
            #expect(rename.status == 0, "\(rename.stderr)")
        }
        let first = fixture.publish("litter")
        #expect(
            first.stderr.contains(
                "1 path set and 0 removed in 1 request; 1 object uploaded, 0 re-tokened, 1 deleted"),
            "\(first.stderr)")
        #expect(fixture.cloud.value(at: "locations/wait") == nil)
        #expect(fixture.cloud.value(at: "locations/fine") != nil)
        let second = fixture.publish("litter")
        #expect(
            second.stderr.contains(
                "3 paths set and 3 removed in 1 request; 1 object uploaded, 0 re-tokened, 1 deleted"
            ), "\(second.stderr)")
        #expect(fixture.cloud.value(at: "locations/wait") != nil)
        #expect(fixture.cloud.value(at: "locations/fine") == nil)
        #expect(fixture.publish("litter").stderr.contains("nothing to publish"))
    }

    /// An interrupted publish does not delete an object another target in the bucket has
    /// come to reference meanwhile.
    @Test func aResumedDeletionSparesWhatAnotherTargetNowHolds() throws {
        let fixture = try PublishFixture()
        let cloud = fixture.cloud
        fixture.publish("game")
        let first = try fixture.renditionPath("treasure", "a")
        try fixture.setRendition("treasure", "a", "full", source: "/art/a.png", version: 2)
        // Upload, request, then the deletion fails.
        cloud.failAt = cloud.operations + 2
        #expect(fixture.run("publish").status == 1)
        try fixture.setRendition("treasure", "a", "full", source: "/art/a.png", version: 1)
        #expect(
            fixture.run(
                "publish", "target", "add", "mirror", "--database", "https://mirror.firebaseio.com",
                "--bucket", "gs://\(PublishFixture.bucket)"
            ).status == 0)
        fixture.publish("mirror")
        for _ in 0..<2 {
            fixture.publish("game")
            #expect(fixture.objectNames.contains(first))
            #expect(!cloud.deleted.contains(first))
        }
        #expect(cloud.broken.isEmpty)
    }
}
