import Foundation
import Testing
import TroveBase
import TroveStore

@testable import TroveCLI
@testable import TroveKit

/// The live loop (#33) against a Storage emulator and a database stand-in: what a target
/// really holds is read, differences are named, and the publish repairs what trove owns.
/// Every scenario runs twice; the second run changes and reports nothing more.
@Suite(.enabled(if: LivePublish.isAvailable, LivePublish.skipReason))
struct PublishLiveTests {

    /// An object deleted in the bucket by hand: a refresh finds it and the publish uploads
    /// it again. Deleted again and its token rotated, the publish's token change meets the
    /// missing object and uploads it with the new token: nothing wedges the target.
    @Test func anObjectDeletedByHandIsUploadedAgainAndARotationOfItGoesThrough() throws {
        let live = try LivePublish()
        let object = try live.object("treasure", "lx-002")
        try live.removeByHand(object)
        // The record alone cannot know.
        #expect(
            live.run("publish", "--dry-run").stdout == "game is up to date: nothing to publish\n")
        for run in 0..<2 {
            let check = live.run("publish", "--refresh", "--dry-run")
            #expect(check.status == (run == 0 ? 1 : 0), "\(check.stderr)")
            #expect(check.stderr.contains("read 8 paths and \(run == 0 ? 3 : 4) objects of game"))
            #expect(
                check.stderr.contains(
                    "missing from gs://\(LivePublish.bucket): \(object) (the publish would upload it again)"
                )
                    == (run == 0), "\(check.stderr)")
            let repair = live.publish("--refresh")
            #expect(
                repair.stderr.contains(
                    run == 0
                        ? "published to game: 0 paths set and 0 removed in 0 requests; 1 object uploaded, 0 re-tokened, 0 deleted"
                        : "game is up to date: nothing to publish"), "\(repair.stderr)")
            #expect(repair.stderr.contains("game holds what trove recorded") == (run == 1))
            try live.expectURLsResolve()
        }

        try live.removeByHand(object)
        let rotated = live.run("storage", "rotate", object)
        #expect(rotated.status == 0)
        #expect(
            rotated.stderr.contains("rotated 1 token; next: trove publish"), "\(rotated.stderr)")
        let old = try live.token(at: "treasureProfiles/lx-002/imageURL")
        for run in 0..<2 {
            let result = live.publish()
            #expect(
                result.stderr.contains(
                    run == 0
                        ? "published to game: 1 path set and 0 removed in 1 request; 0 objects uploaded, 1 re-tokened, 0 deleted"
                        : "game is up to date: nothing to publish"), "\(result.stderr)")
            try live.expectURLsResolve()
        }
        let new = try live.token(at: "treasureProfiles/lx-002/imageURL")
        #expect(new != nil && new != old)
        // The object holds the new token alone: the leaked URL is over.
        let held = try live.emulator.objects(in: LivePublish.bucket)[object]
        #expect(held?.downloadToken == new)
        #expect(live.run("publish", "--refresh", "--dry-run").status == 0)
    }

    /// A value edited in the console, a path deleted, and a node someone else seeded at
    /// the layout's shapes: the refresh names all three; the publish restores trove's two
    /// and leaves the seeded one alone. A token changed by hand is set again beside it.
    @Test func valuesEditedByHandAreRestoredAndOthersLeftAlone() throws {
        let live = try LivePublish()
        try live.database.patch(
            path: "/",
            json: """
                {"treasureProfiles/lx-001/name": "Edited", "treasureLocations/lx-003": null,
                 "treasureProfiles/zz": {"name": "Seeded"}, "users/u1": {"score": 3}}
                """)
        let object = try live.object("treasure", "lx-004")
        try live.gcloud(
            "storage", "objects", "update", "gs://\(LivePublish.bucket)/\(object)",
            "--custom-metadata=firebaseStorageDownloadTokens=made-by-hand")
        for run in 0..<2 {
            let check = live.run("publish", "--refresh", "--dry-run")
            #expect(check.status == (run == 0 ? 1 : 0), "\(check.stderr)")
            let named = [
                "another value in the database: treasureProfiles/lx-001 (the publish would restore it)",
                "missing from the database: treasureLocations/lx-003 (the publish would set it again)",
                "token missing: \(object) lacks the token its URL carries (the publish would set it again)",
            ]
            for line in named {
                #expect(check.stderr.contains(line) == (run == 0), "\(line): \(check.stderr)")
            }
            #expect(
                check.stderr.contains("not published by trove, left alone: treasureProfiles/zz"))
            #expect(!check.stderr.contains("users/u1"))
            #expect(
                check.stderr.contains(
                    run == 0
                        ? "game differs from what trove recorded in 3 places; 1 not published by trove, left alone"
                        : "game holds what trove recorded; 1 not published by trove, left alone"))
            let json = live.run("publish", "--refresh", "--dry-run", "--format", "json")
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            let refresh = try #require(object["refresh"] as? [String: Any])
            #expect(refresh["not_published_paths"] as? [String] == ["treasureProfiles/zz"])
            #expect((refresh["differ"] as? [String])?.count == (run == 0 ? 1 : 0))

            let repair = live.publish("--refresh")
            #expect(
                repair.stderr.contains(
                    run == 0
                        ? "published to game: 2 paths set and 0 removed in 1 request; 0 objects uploaded, 1 re-tokened, 0 deleted"
                        : "game is up to date: nothing to publish"), "\(repair.stderr)")
            #expect(try live.value(at: "treasureProfiles/lx-001/name") as? String == "Treasure 1")
            #expect(try live.value(at: "treasureLocations/lx-003/g") != nil)
            #expect(try live.value(at: "treasureProfiles/zz/name") as? String == "Seeded")
            #expect(try live.value(at: "users/u1/score") as? Int == 3)
            try live.expectURLsResolve()
        }
        // The hand-made token stays: trove adds its own and removes no one else's.
        let tokens = try live.listing(LivePublish.bucket)[object] ?? ""
        #expect(tokens.hasPrefix("made-by-hand,"))
    }

    /// `target set` moves the target: the next publish sends the whole tree to the new
    /// database and says so. `target rm` of a target with removals not published refuses
    /// without --force, and with it says what stays live; the default is not handed on.
    @Test func targetsAreChangedAndRemovedSayingWhatStaysLive() throws {
        let live = try LivePublish()
        #expect(live.run("treasures", "rm", "lx-003").status == 0)
        let object = try live.objectPath("lx-003")
        for _ in 0..<2 {
            let refused = live.run("publish", "target", "rm", "game")
            #expect(refused.status == 1)
            #expect(
                refused.stderr.contains(
                    "target game has unpublished changes (2 paths to remove, which stay live in "
                        + "the database; 1 object nothing references, which stays in the bucket)"),
                "\(refused.stderr)")
            #expect(refused.stderr.contains("or remove it anyway with --force"))
        }
        // Moved to another database: it holds nothing of the tree yet.
        let other = try DatabaseStandIn()
        for run in 0..<2 {
            let moved = live.run("publish", "target", "set", "game", "--database", other.url)
            #expect(moved.status == 0, "\(moved.stderr)")
            #expect(
                moved.stderr.contains(
                    run == 0
                        ? "game: database \(live.database.url) -> \(other.url); the next publish sends the whole tree there (\(live.database.url) keeps the 8 paths published to it)"
                        : "target game is unchanged"), "\(moved.stderr)")
        }
        let added = live.run(
            "publish", "target", "add", "game", "--database", other.url, "--bucket", "gs://x-bucket"
        )
        #expect(added.status == 2)
        #expect(added.stderr.contains("change it with 'trove publish target set game"))
        for run in 0..<2 {
            let result = live.publish()
            #expect(
                result.stderr.contains(
                    run == 0
                        ? "published to game: 6 paths set and 0 removed in 1 request; 0 objects uploaded, 0 re-tokened, 1 deleted"
                        : "game is up to date: nothing to publish"), "\(result.stderr)")
        }
        #expect(
            try live.value(at: "treasureProfiles/lx-001/name", in: other) as? String == "Treasure 1"
        )
        #expect(try live.value(at: "treasureProfiles/lx-003", in: other) == nil)
        // The old database keeps what was published to it.
        #expect(try live.value(at: "treasureProfiles/lx-003/name") as? String == "Treasure 3")
        #expect(try live.listing(LivePublish.bucket)[object] == nil)
        try live.expectURLsResolve(in: other)

        // Another removal, then the target removed anyway: what stays live is said.
        #expect(live.run("treasures", "rm", "lx-002").status == 0)
        let forced = live.run("publish", "target", "rm", "game", "--force")
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(
            forced.stderr.contains(
                "removed target game; \(other.url) keeps the 6 paths and gs://\(LivePublish.bucket) the 3 objects published to them"
            ),
            "\(forced.stderr)")
        #expect(
            forced.stderr.contains(
                "warning: not sent, and staying as they are: 2 paths to remove, which stay live "
                    + "in the database; 1 object nothing references, which stays in the bucket"))
        #expect(forced.stderr.contains("game was the default target; there is none now"))
        #expect(
            try live.value(at: "treasureProfiles/lx-002/name", in: other) as? String == "Treasure 2"
        )
        let again = live.run("publish", "target", "rm", "game", "--force")
        #expect(again.status == 2)
    }

    /// Two targets of the same layout in two buckets: each one's URLs carry tokens of its
    /// own, which its bucket's objects hold and the other's do not; `export --target`
    /// previews exactly what each got, and a rotation for one leaves the other alone.
    /// A target moved to another bucket uploads every object there and rewrites the URLs;
    /// one given another layout writes that layout's paths and removes the old layout's.
    /// The old bucket keeps what was published to it. Each step run twice.
    @Test func aTargetMovedToAnotherBucketOrLayoutIsPublishedWhole() throws {
        let live = try LivePublish()
        for run in 0..<2 {
            let moved = live.run(
                "publish", "target", "set", "game", "--bucket", "gs://\(LivePublish.stageBucket)")
            #expect(moved.status == 0, "\(moved.stderr)")
            #expect(
                moved.stderr.contains(
                    run == 0
                        ? "game: bucket gs://\(LivePublish.bucket) -> gs://\(LivePublish.stageBucket); the next publish uploads every object there and rewrites every image URL (gs://\(LivePublish.bucket) keeps the 4 objects published to it)"
                        : "target game is unchanged"), "\(moved.stderr)")
        }
        for run in 0..<2 {
            let result = live.publish()
            #expect(
                result.stderr.contains(
                    run == 0
                        ? "4 objects uploaded" : "game is up to date: nothing to publish"),
                "\(result.stderr)")
        }
        #expect(try live.listing(LivePublish.stageBucket).count == 4)
        #expect(try live.listing(LivePublish.bucket).count == 4)
        try live.expectURLsResolve(bucket: LivePublish.stageBucket)

        try live.sandbox.write(
            "spots.json",
            """
            {"records": "treasures", "paths": {"spots/{key}": {
                "name": "{name}", "imageURL": "{image.full.url}"}}}
            """)
        let changed = live.run("publish", "target", "set", "game", "--layout", "spots.json")
        #expect(changed.status == 0, "\(changed.stderr)")
        #expect(changed.stderr.contains("game: layout flatirongo -> "), "\(changed.stderr)")
        for run in 0..<2 {
            let result = live.publish()
            #expect(
                result.stderr.contains(
                    run == 0
                        ? "published to game: 4 paths set and 8 removed in 1 request; 0 objects uploaded"
                        : "game is up to date: nothing to publish"), "\(result.stderr)")
        }
        #expect(try live.value(at: "spots/lx-002/name") as? String == "Treasure 2")
        #expect(try live.value(at: "treasureProfiles") == nil)
        #expect(try live.value(at: "treasureLocations") == nil)
        try live.expectURLsResolve(bucket: LivePublish.stageBucket)
    }

    @Test func everyTargetHasItsOwnDownloadTokens() throws {
        let live = try LivePublish()
        let stage = try DatabaseStandIn()
        #expect(
            live.run(
                "publish", "target", "add", "stage", "--database", stage.url, "--bucket",
                "gs://\(LivePublish.stageBucket)", "--layout", "flatirongo"
            ).status == 0)
        for run in 0..<2 {
            let result = live.publish("--target", "stage")
            #expect(result.stderr.contains(run == 0 ? "4 objects uploaded" : "nothing to publish"))
        }
        let prodObjects = try live.listing(LivePublish.bucket)
        let stageObjects = try live.listing(LivePublish.stageBucket)
        #expect(Set(prodObjects.keys) == Set(stageObjects.keys))
        for index in 1...4 {
            let path = "treasureProfiles/\(LivePublish.key(index))/imageURL"
            let prod = try #require(try live.token(at: path))
            let staging = try #require(try live.token(at: path, in: stage))
            #expect(prod != staging)
            let name = try live.object("treasure", LivePublish.key(index))
            #expect(prodObjects[name] == prod)
            #expect(stageObjects[name] == staging)
        }
        try live.expectURLsResolve()
        try live.expectURLsResolve(in: stage, bucket: LivePublish.stageBucket)
        // The preview names the target's bucket and tokens: what the database holds.
        let preview = live.run("export", "--target", "stage")
        #expect(preview.status == 0, "\(preview.stderr)")
        let tree = try JSONSerialization.jsonObject(with: Data(preview.stdout.utf8))
        let held = try stage.tree()
        #expect(
            try JSONSerialization.data(withJSONObject: tree, options: [.sortedKeys])
                == JSONSerialization.data(
                    withJSONObject: held as Any, options: [.sortedKeys]))
        // A token leaked from the staging build: staging alone gets a new one.
        let rotated = live.run("storage", "rotate", "treasure:lx-001", "--target", "stage")
        #expect(rotated.stderr.contains("next: trove publish --target stage"), "\(rotated.stderr)")
        #expect(live.publish().stderr.contains("game is up to date"))
        for run in 0..<2 {
            let result = live.publish("--target", "stage")
            #expect(result.stderr.contains(run == 0 ? "1 re-tokened" : "nothing to publish"))
        }
        try live.expectURLsResolve(in: stage, bucket: LivePublish.stageBucket)
    }

    /// A post approved after `trove images` ran has no rendition: the publish renders it
    /// and publishes it with the others.
    @Test func aPostApprovedBetweenImagesAndPublishIsRenderedByThePublish() throws {
        let live = try LivePublish()
        try live.writePosts(["p1", "p2", "p3"])
        #expect(live.run("import", "posts", "posts.csv", "--photos", "photos").status <= 1)
        #expect(live.run("review", "approve", "p1").status == 0)
        #expect(live.run("images", "--posts").status == 0)
        #expect(
            live.run(
                "publish", "target", "add", "litter", "--database", live.database.url,
                "--bucket", "gs://\(LivePublish.bucket)", "--layout", "trashmapper"
            ).status == 0)
        // A moderator approves p2 meanwhile.
        #expect(live.run("review", "approve", "p2").status == 0)
        for run in 0..<2 {
            let result = live.publish("--target", "litter")
            #expect(
                result.stderr.contains("rendered what these lacked: post p2") == (run == 0),
                "\(result.stderr)")
            #expect(
                result.stderr.contains(
                    run == 0 ? "2 objects uploaded" : "litter is up to date: nothing to publish"),
                "\(result.stderr)")
        }
        #expect(try live.value(at: "locations/p2/photoURL") != nil)
        #expect(try live.value(at: "locations/p3") == nil)
        try live.expectURLsResolve()
    }

    /// A treasure whose image is gone and was never rendered cannot be published: it is
    /// named and left out, and the rest (a treasure rendered by the publish itself) goes.
    @Test func aRecordWhoseImageIsGoneIsLeftOutAndTheRestPublished() throws {
        let live = try LivePublish()
        try live.sandbox.write("art/lx-005.png", Data(try LivePublish.png(seed: 5)))
        try live.sandbox.write(
            "more.csv",
            "key,name,lat,lon,image\nlx-005,Treasure 5,40.8,-74.05,art/lx-005.png\n"
                + "lx-006,Treasure 6,40.9,-74.06,art/gone.png\n")
        #expect(live.run("import", "treasures", "more.csv").status == 0)
        #expect(live.run("geohash").status == 0)
        for run in 0..<2 {
            let result = live.run("publish")
            #expect(result.status == 1, "\(result.stderr)")
            #expect(
                result.stderr.contains(
                    "warning: left out of this publish: treasure lx-006: \(live.sandbox.path("art/gone.png")): no such file"
                ),
                "\(result.stderr)")
            #expect(
                result.stderr.contains(
                    run == 0
                        ? "published to game: 2 paths set and 0 removed in 1 request; 1 object uploaded"
                        : "game is up to date: nothing to publish"), "\(result.stderr)")
            #expect(
                result.stderr.contains("rendered what these lacked: treasure lx-005") == (run == 0))
        }
        #expect(try live.value(at: "treasureProfiles/lx-005/imageURL") != nil)
        #expect(try live.value(at: "treasureProfiles/lx-006") == nil)
        try live.expectURLsResolve()
        // Its image back, the next publish takes it up.
        try live.sandbox.write("art/gone.png", Data(try LivePublish.png(seed: 6)))
        let back = live.publish()
        #expect(
            back.stderr.contains("rendered what these lacked: treasure lx-006"), "\(back.stderr)")
        #expect(try live.value(at: "treasureProfiles/lx-006/imageURL") != nil)
    }
}

extension LivePublish {
    /// The object path of a treasure's full rendition, as it was published.
    func objectPath(_ key: String) throws -> String {
        let names = try listing(LivePublish.bucket).keys
        return names.first { $0.hasPrefix("treasures/\(key)/full-") } ?? ""
    }

    /// Posts with photos in `photos/`, in `posts.csv`, all pending.
    func writePosts(_ ids: [String]) throws {
        var rows = "id,user,lat,lon,description,date,photo\n"
        for (index, id) in ids.enumerated() {
            try sandbox.write(
                "photos/\(id).jpg", try PostPhotos.jpeg(width: 320, height: 240, seed: index + 3))
            rows +=
                "\(id),u\(index),40.7\(index),-74.0\(index),Litter \(index),2024-01-2\(index),\(id).jpg\n"
        }
        try sandbox.write("posts.csv", rows)
    }
}
