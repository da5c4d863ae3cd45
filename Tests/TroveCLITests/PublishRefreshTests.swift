import Foundation
import Testing
import TroveHTTP

@testable import TroveBase
@testable import TroveCLI
@_spi(Testing) @testable import TroveKit
@_spi(Testing) @testable import TroveStore

/// How `publish --refresh` reads a target and compares what it read.
@Suite struct PublishRefreshTests {
    /// The database is read a page of children at a time, in its key order (integer keys
    /// first), through the layout's shapes, and every path is read once.
    @Test(.enabled(if: DatabaseStandIn.isAvailable, "python3 is not installed"))
    func theDatabaseIsReadInPagesAtTheLayoutsShapes() throws {
        var seed: [String: Any] = [:]
        var locations: [String: Any] = [:]
        for key in ["1", "2", "10", "a", "b", "c", "d-1", "é"] {
            locations[key] = ["g": "u4pr", "l": [1.5, 2]]
        }
        seed["treasureLocations"] = locations
        seed["users"] = [
            "u1": ["taggedLocations": ["p1": true, "p2": true], "score": 3],
            "u2": ["taggedLocations": ["p3": true]], "u3": ["score": 1],
        ]
        seed["config"] = ["version": 2]
        let text = String(decoding: try JSONSerialization.data(withJSONObject: seed), as: UTF8.self)
        let database = try DatabaseStandIn(seed: text)
        var reader = LiveDatabaseReader(
            transport: DatabaseRESTTransport(accessToken: .none), databaseURL: database.url)
        reader.pageSize = 2
        reader.pageBytes = nil
        for _ in 0..<2 {
            var read: [String] = []
            try reader.read(
                shapes: [
                    ["treasureLocations", nil], ["users", nil, "taggedLocations", nil],
                    ["config", "version"],
                ]
            ) { page in read += page.map(\.0) }
            #expect(read.count == Set(read).count)
            #expect(
                Set(read)
                    == Set(
                        locations.keys.map { "treasureLocations/\($0)" } + [
                            "users/u1/taggedLocations/p1", "users/u1/taggedLocations/p2",
                            "users/u2/taggedLocations/p3", "config/version",
                        ]))
        }
        let reads = try database.log().filter { $0["method"] as? String == "GET" }
        let pages = reads.filter { ($0["path"] as? String) == "/treasureLocations.json" }
        // 8 children, two a page: the first page and three more, each asked from the last
        // key of the page before.
        #expect(pages.count == 2 * 5, "\(pages)")
        for page in pages {
            let query = page["query"] as? [String: String] ?? [:]
            #expect(query["orderBy"] == #""$key""#)
            #expect(query["format"] == "export")
            #expect(query["limitToFirst"] == "2" || query["limitToFirst"] == "3")
        }
        #expect(
            pages.compactMap { ($0["query"] as? [String: String])?["startAt"] }.prefix(4)
                == [#""2""#, #""a""#, #""c""#, #""é""#])
        #expect(reads.contains { ($0["path"] as? String) == "/config/version.json" })
    }

    /// A value compares as the database stores it: whatever the member order, the
    /// spelling of numbers or an array for an object of indexes; a priority counts.
    @Test func valuesCompareAsTheDatabaseStoresThem() throws {
        func hash(_ text: String) throws -> UInt64? {
            var parser = JSONParser(Array(text.utf8))
            return CanonicalValue.hash(try parser.parseValue())
        }
        let rendered = try hash(#"{".priority": "u4pr", "g": "u4pr", "l": [40.7, -74]}"#)
        #expect(rendered != nil)
        #expect(try hash(#"{"l":{"0":40.70,"1":-74.0},"g":"u4pr",".priority":"u4pr"}"#) == rendered)
        #expect(try hash(#"{"g": "u4pr", "l": [40.7, -74]}"#) != rendered)
        #expect(try hash(#"{".priority": "u4pr", "g": "u4pr", "l": [40.7, -74.1]}"#) != rendered)
        #expect(try hash(#"{"a": null, "b": {}}"#) == nil)
        #expect(try hash(#"{"a": 1, "b": {"c": null}}"#) == (try hash(#"{"a": 1.0}"#)))
        #expect(try hash(#"{".priority": 3}"#) == nil)
    }

    /// Objects under the layout's prefix that another target in the bucket holds are
    /// trove's; those no target holds are named and left alone.
    @Test func objectsOfAnotherTargetInTheBucketAreNotNamed() throws {
        let fixture = try PublishFixture()
        #expect(
            fixture.run(
                "publish", "target", "add", "copy", "--database", "https://copy.firebaseio.com",
                "--bucket", "gs://\(PublishFixture.bucket)"
            ).status == 0)
        fixture.publish("game")
        fixture.publish("copy")
        try fixture.cloud.put(
            bucket: PublishFixture.bucket, name: "treasures/zz/full-00000000.jpg",
            file: try fixture.sandbox.write("zz.jpg", "zz"), tokens: "t")
        for _ in 0..<2 {
            let result = fixture.run("publish", "--target", "game", "--refresh")
            #expect(result.status == 0, "\(result.stderr)")
            #expect(
                result.stderr.contains(
                    "not published by trove, left alone: gs://trove-test/treasures/zz/full-00000000.jpg"
                ))
            #expect(
                result.stderr.contains("read 8 paths and 5 objects of game"), "\(result.stderr)")
            #expect(
                result.stderr.contains(
                    "game holds what trove recorded; 1 not published by trove, left alone"),
                "\(result.stderr)")
            #expect(result.stderr.contains("game is up to date: nothing to publish"))
        }
        #expect(fixture.objectNames.contains("treasures/zz/full-00000000.jpg"))
    }

    /// A refresh reads; it sends nothing of a dry run, and cannot be mixed with a download.
    @Test func aDryRefreshSendsNothingAndAgainstIsRefused() throws {
        let fixture = try PublishFixture()
        fixture.publish("game")
        let operations = fixture.cloud.operations
        try fixture.cloud.update(
            Array(#"{"treasureProfiles/a/name": "Edited"}"#.utf8), databaseURL: "")
        for _ in 0..<2 {
            let dry = fixture.run("publish", "--refresh", "--dry-run")
            #expect(dry.status == 1)
            #expect(dry.stdout.hasPrefix("would publish to game: 1 path set"), "\(dry.stdout)")
        }
        #expect(fixture.cloud.operations == operations + 1)
        try fixture.sandbox.write("live.json", "{}")
        let both = fixture.run("publish", "--refresh", "--against", "live.json")
        #expect(both.status == 2)
        #expect(both.stderr.contains("--refresh reads the database itself"))
    }
}
