import Foundation
import Testing

@_spi(Testing) @testable import TroveStore

/// A workspace of its own for one test, in a folder removed when the test is done.
final class StoreFixture {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
        "trove-store-tests-\(UUID().uuidString)", isDirectory: true)
    let workspace: Workspace

    init() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        workspace = try Workspace(
            path: folder.appendingPathComponent("trove.sqlite").path, create: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    /// Adds a treasure with `image` (nil: none).
    func addTreasure(_ key: String, image: String?) throws {
        try workspace.fixture.addTreasure(key, name: key, lat: 40.7, lon: -74.0, image: image)
    }

    /// Adds a post with `photo` (nil: none) in review state `status`.
    func addPost(_ id: String, photo: String?, status: String) throws {
        try workspace.fixture.addPost(
            id, user: nil, lat: 40.7, lon: -74.0, photo: photo, status: status, contentHash: "",
            at: "2024-05-01T00:00:00Z")
    }

    /// Records `renditions` in one write, as `images` does.
    func save(_ renditions: [Rendition]) throws {
        let store = RenditionStore(workspace)
        try workspace.write {
            for rendition in renditions {
                try store.save(rendition, madeAt: "2024-05-01T00:00:00Z")
            }
        }
    }

    /// How many rows `sql` counts.
    func count(_ sql: String) throws -> Int64 {
        try workspace.testDatabase.scalar(sql)?.int64 ?? -1
    }
}

/// A rendition of `kind` `key` named `name`, its path and hash made from them.
func rendition(
    _ kind: RenditionOwner, _ key: String, _ name: String = "full", path: String? = nil
) -> Rendition {
    Rendition(
        kind: kind, key: key, name: name, source: "/photos/\(key).jpg",
        sourceHash: "source-\(key)", settings: "1024x1024:fit:q80:v1",
        path: path ?? "\(kind == .treasure ? "treasures" : "posts")/\(key)/\(name)-0123abcd.jpg",
        width: 1024, height: 768, bytes: 52_000, hash: "hash-\(key)-\(name)")
}

@Suite struct RenditionStoreTests {
    let fixture: StoreFixture
    let store: RenditionStore

    init() throws {
        fixture = try StoreFixture()
        store = RenditionStore(fixture.workspace)
    }

    func all() throws -> [Rendition] {
        var renditions: [Rendition] = []
        try store.forEachRendition { renditions.append($0) }
        return renditions.sorted { ($0.key, $0.name) < ($1.key, $1.name) }
    }

    @Test func savedRenditionsReadBackAsSaved() throws {
        let saved = [rendition(.treasure, "hairy-harry"), rendition(.post, "p1", "thumb")]
        try fixture.save(saved)
        #expect(try all() == saved.sorted { $0.key < $1.key })
        #expect(try store.paths() == Set(saved.map(\.path)))
    }

    @Test func savingAgainReplacesTheOwnersRenditionOfThatName() throws {
        try fixture.save([rendition(.treasure, "a"), rendition(.treasure, "a", "thumb")])
        var again = rendition(.treasure, "a", path: "treasures/a/full-99999999.jpg")
        again.width = 640
        try fixture.save([again])
        #expect(try all() == [again, rendition(.treasure, "a", "thumb")])
        #expect(try store.path(of: .treasure, "a", name: "full") == again.path)
        #expect(try fixture.count("SELECT count(*) FROM renditions") == 2)
    }

    @Test func pathOfARenditionNeverMadeIsNil() throws {
        try fixture.save([rendition(.treasure, "a")])
        #expect(try store.path(of: .treasure, "a", name: "pin") == nil)
        #expect(try store.path(of: .post, "a", name: "full") == nil)
        #expect(try store.path(of: .treasure, "b", name: "full") == nil)
    }

    @Test func treasureImagesAreTheLocalOnesInKeyOrder() throws {
        try fixture.addTreasure("b", image: "/photos/b.png")
        try fixture.addTreasure("a", image: "/photos/a.jpg")
        try fixture.addTreasure("c", image: "https://example.com/c.jpg")
        try fixture.addTreasure("d", image: "http://example.com/d.jpg")
        try fixture.addTreasure("e", image: nil)
        var images: [RenditionStore.SourceImage] = []
        try store.forEachTreasureImage { images.append($0) }
        #expect(
            images == [
                .init(kind: .treasure, key: "a", source: "/photos/a.jpg"),
                .init(kind: .treasure, key: "b", source: "/photos/b.png"),
            ])
        #expect(try store.remoteTreasureImageCount() == 2)
    }

    @Test func postPhotosAreTheApprovedPostsOnesInIDOrder() throws {
        try fixture.addPost("p2", photo: "/photos/p2.jpg", status: "approved")
        try fixture.addPost("p1", photo: "/photos/p1.jpg", status: "approved")
        try fixture.addPost("p3", photo: "/photos/p3.jpg", status: "pending")
        try fixture.addPost("p4", photo: nil, status: "approved")
        try fixture.addPost("p5", photo: "/photos/p5.jpg", status: "rejected")
        var photos: [RenditionStore.SourceImage] = []
        try store.forEachApprovedPostPhoto { photos.append($0) }
        #expect(photos.map(\.key) == ["p1", "p2"])
        #expect(photos.allSatisfy { $0.kind == .post && $0.source == "/photos/\($0.key).jpg" })
    }

    @Test func localImageCountsLeaveOutRemoteAndEmptyPaths() throws {
        #expect(try store.localImageCounts(approvedPostsOnly: false) == (0, 0))
        try fixture.addTreasure("a", image: "/photos/a.jpg")
        try fixture.addTreasure("b", image: "")
        try fixture.addTreasure("c", image: "https://example.com/c.jpg")
        try fixture.addTreasure("d", image: nil)
        try fixture.addPost("p1", photo: "/photos/p1.jpg", status: "approved")
        try fixture.addPost("p2", photo: "/photos/p2.jpg", status: "pending")
        try fixture.addPost("p3", photo: "", status: "approved")
        #expect(try store.localImageCounts(approvedPostsOnly: false) == (1, 2))
        #expect(try store.localImageCounts(approvedPostsOnly: true) == (1, 1))
        #expect(try store.remoteTreasureImageCount() == 1)
    }

    @Test func unpublishedPostRenditionsAreThoseOfPostsNotApprovedWithAPhoto() throws {
        try fixture.addPost("approved", photo: "/photos/approved.jpg", status: "approved")
        try fixture.addPost("pending", photo: "/photos/pending.jpg", status: "pending")
        try fixture.addPost("photoless", photo: nil, status: "approved")
        let kept = [rendition(.post, "approved"), rendition(.treasure, "gone")]
        let withdrawn = [
            rendition(.post, "gone"), rendition(.post, "pending"), rendition(.post, "photoless"),
        ]
        try fixture.save(kept + withdrawn)
        let unpublished = try store.unpublishedPostRenditions()
        #expect(unpublished.sorted { $0.key < $1.key } == withdrawn.sorted { $0.key < $1.key })
        try fixture.workspace.write { try store.deleteUnpublishedPostRenditions() }
        #expect(try all() == kept)
        #expect(try store.unpublishedPostRenditions().isEmpty)
    }

    @Test func failuresAreRememberedOncePerOwnerAndForgotten() throws {
        let failure = RenditionFailure(
            kind: .treasure, key: "a", source: "/photos/a.jpg", reason: "no such file")
        try fixture.workspace.write {
            #expect(try store.forgetFailures(of: .treasure, keys: ["a"]).isEmpty)
            try store.remember(failure)
            var again = failure
            again.reason = "not an image"
            try store.remember(again)
        }
        #expect(
            try fixture.workspace.testDatabase.query(
                "SELECT owner_kind, owner_key, source, reason FROM rendition_failures"
            ) {
                [$0.text("owner_kind"), $0.text("owner_key"), $0.text("source"), $0.text("reason")]
            }
                == [["treasure", "a", "/photos/a.jpg", "not an image"]])
        let forgotten = try fixture.workspace.write {
            [
                try store.forgetFailures(of: .post, keys: ["a"]),
                try store.forgetFailures(of: .treasure, keys: ["b", "a"]),
                try store.forgetFailures(of: .treasure, keys: ["a"]),
            ]
        }
        #expect(forgotten == [[], ["a"], []])
        #expect(try fixture.count("SELECT count(*) FROM rendition_failures") == 0)
    }
}

@Suite struct StorageTokenStoreTests {
    let fixture: StoreFixture
    let store: StorageTokenStore

    init() throws {
        fixture = try StoreFixture()
        store = StorageTokenStore(fixture.workspace)
    }

    @Test func aSavedRenditionsPathGetsAToken() throws {
        let saved = rendition(.treasure, "a")
        try fixture.save([saved])
        let token = try #require(try store.token(of: saved.path))
        #expect(token.path == saved.path)
        #expect(token.token.count == 36)
        #expect(try store.token(of: "treasures/a/thumb-0123abcd.jpg") == nil)
        #expect(try store.tokenPaths() == [saved.path])
        #expect(try store.pathsWithoutToken().isEmpty)
    }

    @Test func missingTokensAreMadeForEachPathOnce() throws {
        let shared = "treasures/shared/full-0123abcd.jpg"
        try fixture.save([
            rendition(.treasure, "b", path: shared), rendition(.treasure, "a", path: shared),
            rendition(.post, "p1"),
        ])
        // SQL: renditions without tokens, which their triggers never leave behind.
        try fixture.workspace.write {
            _ = try fixture.workspace.testDatabase.execute("DELETE FROM storage_tokens", [])
        }
        #expect(try store.pathsWithoutToken() == ["posts/p1/full-0123abcd.jpg", shared])
        try fixture.workspace.write { try store.makeMissingTokens() }
        #expect(try store.pathsWithoutToken().isEmpty)
        #expect(try store.tokenPaths().sorted() == ["posts/p1/full-0123abcd.jpg", shared])
    }

    @Test func rotatingGivesOnlyThatObjectANewToken() throws {
        let first = rendition(.treasure, "a")
        let second = rendition(.treasure, "b")
        try fixture.save([first, second])
        let before = try store.token(of: first.path)?.token
        let other = try store.token(of: second.path)?.token
        try fixture.workspace.write { try store.rotateToken(of: first.path) }
        let after = try store.token(of: first.path)?.token
        #expect(after != nil && after != before)
        #expect(try store.token(of: second.path)?.token == other)
    }

    @Test func ownersAndPathsAnswerBothWays() throws {
        let shared = "treasures/shared/full-0123abcd.jpg"
        try fixture.save([
            rendition(.treasure, "a", path: shared), rendition(.treasure, "a", "thumb"),
            rendition(.post, "p1", path: shared),
        ])
        let owners = try store.owners(of: shared).map { "\($0.kind.rawValue):\($0.key)" }
        #expect(owners.sorted() == ["post:p1", "treasure:a"])
        #expect(try store.owners(of: "nothing/here.jpg").isEmpty)
        #expect(
            try store.paths(of: .treasure, "a").sorted()
                == ["treasures/a/thumb-0123abcd.jpg", shared])
        #expect(try store.paths(of: .post, "p1") == [shared])
        #expect(try store.paths(of: .post, "a").isEmpty)
    }
}
