import Foundation
import Testing
import TroveSQLite

@testable import TroveCLI
@_spi(Testing) @testable import TroveKit
@_spi(Testing) @testable import TroveStore

/// `status` answers from counters and change marks; after every kind of write it must say
/// what a count of the whole workspace says, and `check` must find nothing drifted.
@Suite struct StatusCountersTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        #expect(sandbox.run("init").status == 0)
        for index in 0..<4 {
            try sandbox.write(
                "art/a\(index).jpg", PostPhotos.jpeg(width: 40, height: 30, seed: index))
        }
        for index in 0..<6 {
            try sandbox.write(
                "in/photos/q\(index).jpg", PostPhotos.jpeg(width: 40, height: 30, seed: index + 9))
        }
    }

    /// A small deterministic generator, so that a failing seed can be replayed.
    struct Generator {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        mutating func chance(_ percent: Int) -> Bool { next(100) < percent }
    }

    /// The counts from the counters, and from a scan.
    func statuses() throws -> (counted: WorkspaceStatus, recounted: WorkspaceStatus) {
        let workspace = try Workspace(path: sandbox.workspace)
        return (
            try WorkspaceStatus(workspace: workspace), try WorkspaceStatus(recounting: workspace)
        )
    }

    func treasuresCSV(_ random: inout Generator) -> String {
        var csv = "key,name,lat,lon,image\n"
        for index in 0..<10 where random.chance(70) {
            let image: String
            switch random.next(6) {
            case 0, 1: image = "art/a\(random.next(4)).jpg"
            case 2: image = "art/missing\(index).png"
            case 3: image = "https://example.com/\(index).png"
            case 4: image = "HTTP://EXAMPLE.COM/\(index).png"
            default: image = ""
            }
            let lat = 40 + Double(random.next(1000)) / 1000
            csv += "k\(index),Treasure \(index),\(lat),-74.\(random.next(100)),\(image)\n"
        }
        return csv
    }

    func postsExport(_ random: inout Generator) -> String {
        var entries: [String] = []
        for index in 0..<6 where random.chance(75) {
            let photo = random.chance(70) ? ", \"photoURL\": \"q\(index).jpg\"" : ""
            let lat = 40 + Double(random.next(1000)) / 1000
            entries.append(
                "\"q\(index)\": {\"Latitude\": \(lat), \"Longitude\": -74.01, "
                    + "\"Date\": \"2022-01-2\(index)\", "
                    + "\"LocationDescription\": \"litter \(random.next(3))\"\(photo)}")
        }
        return "{\"Users\": {\"ann\": {\"TaggedLocations\": {\(entries.joined(separator: ", "))}}}}"
    }

    // Seeds whose sequences move every count (those of 2 and 3 approve no post with a photo).
    @Test(arguments: [1, 4, 5, 6, 7, 8, 9, 10])
    func statusAgreesWithACountAfterEveryKindOfWrite(seed: Int) throws {
        var random = Generator(state: UInt64(seed) &* 0x9E37_79B9_7F4A_7C15)
        var done: [String] = []
        // The most each count reached: the sequence must have moved every one of them.
        var seen = (
            treasures: 0, imagesCurrent: 0, imagesStale: 0, geohashStale: 0, photosToPublish: 0
        )
        for _ in 0..<40 {
            var arguments: [String]
            switch random.next(11) {
            case 0, 1:
                let file = random.chance(50) ? "a.csv" : "b.csv"
                try sandbox.write(file, treasuresCSV(&random))
                arguments = ["import", "treasures", file, "--skip-invalid"]
                if random.chance(40) { arguments.append("--sync") }
            case 2:
                arguments = ["treasures", "rm", "k\(random.next(10))"]
            case 3:
                arguments = ["geohash"]
            case 4, 5:
                arguments = ["images", "--out", "out"]
                if random.chance(30) {
                    arguments.append(random.chance(50) ? "--posts" : "--treasures")
                }
            case 6:
                try sandbox.write("in/export.json", postsExport(&random))
                arguments = ["import", "posts", "in/export.json", "--photos", "in/photos"]
            case 7, 8, 9:
                let decision = ["approve", "reject", "reopen", "approve"][random.next(4)]
                arguments = ["review", decision, "q\(random.next(6))", "--as", "ann", "--force"]
                if decision == "reject" { arguments += ["--reason", "spam"] }
            default:
                arguments = ["config", "set", "geohash.precision", "\(5 + random.next(5))"]
            }
            // Refusals (an unknown key, a post not there) are writes that change nothing.
            let result = sandbox.run(arguments)
            done.append(arguments.joined(separator: " ") + " → \(result.status)")
            let (counted, recounted) = try statuses()
            seen.treasures = max(seen.treasures, counted.treasures)
            seen.imagesCurrent = max(seen.imagesCurrent, counted.imagesCurrent)
            seen.imagesStale = max(seen.imagesStale, counted.imagesStale)
            seen.geohashStale = max(seen.geohashStale, counted.geohashStale)
            seen.photosToPublish = max(seen.photosToPublish, counted.photosToPublish)
            #expect(counted == recounted, "after: \(done.joined(separator: "; "))")
            let check = sandbox.run("check")
            #expect(check.status == 0, "\(check.stdout) after: \(done.joined(separator: "; "))")
        }
        #expect(seen.treasures > 0 && seen.imagesCurrent > 0 && seen.imagesStale > 0)
        #expect(seen.geohashStale > 0 && seen.photosToPublish > 0)
    }

    @Test func statusAnswersTheSameWhileAnotherWriterHoldsTheLock() throws {
        try sandbox.write("a.csv", "key,name,lat,lon,image\nk1,One,40.1,-74,art/a0.jpg\n")
        #expect(sandbox.run("import", "treasures", "a.csv").status == 0)
        let writer = try Workspace.testDatabase(at: sandbox.workspace)
        try writer.execute("BEGIN IMMEDIATE")
        let started = Date()
        let locked = sandbox.run("status", "--format", "json")
        // It counts without waiting for the lock it would record its count under.
        #expect(Date().timeIntervalSince(started) < 4)
        try writer.execute("ROLLBACK")
        #expect(locked.status == 0, "\(locked.stderr)")
        #expect(locked.stdout.contains("\"geohash_stale\": 1"))
        #expect(locked.stdout.contains("\"images\": {\"current\": 0, \"stale\": 1}"))
        for _ in 0..<2 {
            #expect(sandbox.run("status", "--format", "json").stdout == locked.stdout)
        }
    }

    @Test func checkNamesACountThatDrifted() throws {
        try sandbox.write("a.csv", "key,name,lat,lon\nk1,One,40.1,-74\nk2,Two,40.2,-74\n")
        #expect(sandbox.run("import", "treasures", "a.csv").status == 0)
        #expect(sandbox.run("check").status == 0)
        let database = try Workspace.testDatabase(at: sandbox.workspace)
        // SQL: a count that drifted, which only a write outside trove makes.
        try database.execute("UPDATE status_counters SET treasures = treasures + 1")
        let check = sandbox.run("check")
        #expect(check.status == 1)
        #expect(
            check.stdout
                == "status count of treasures is 3, but the workspace holds 2: it was written "
                + "outside trove\n")
    }

    @Test func aWorkspaceFromBeforeTheCountersIsCountedOnceWhenItIsMigrated() throws {
        let older = try Sandbox()
        let database = try Workspace.testDatabase(at: older.workspace)
        try Migrator(Schema.migrator.migrations.filter { !$0.name.hasPrefix("017-") })
            .migrate(database)
        // SQL: rows in the schema before 017, which no command writes now.
        try database.execute(
            """
            PRAGMA application_id = \(Workspace.applicationID);
            INSERT INTO treasures (key, name, lat, lon, image) VALUES
              ('a', 'A', 40.1, -74, '/art/a.png'), ('b', 'B', 40.2, -74, 'https://x/b.png'),
              ('c', 'C', 40.3, -74, '');
            INSERT INTO posts (id, lat, lon, photo, content_hash, status, imported_at, updated_at)
            VALUES ('p1', 40.7, -74, '/photos/p1.jpg', 'h', 'approved', 'x', 'x'),
                   ('p2', 40.7, -74, NULL, 'h', 'pending', 'x', 'x');
            INSERT INTO decisions (post_id, at, moderator, from_status, to_status)
            VALUES ('p1', '2026-01-01T00:00:00Z', 'ann', 'pending', 'approved');
            """)
        let status = older.run("status", "--format", "json")
        #expect(status.status == 0, "\(status.stderr)")
        #expect(
            status.stdout.hasPrefix(
                "{\"treasures\": 3, \"posts\": {\"pending\": 1, \"approved\": 1, \"rejected\": 0, "
                    + "\"flagged\": 0}, \"images\": {\"current\": 0, \"stale\": 3}, "
                    + "\"photos\": {\"to_publish\": 1, \"total\": 1}, \"geohash_stale\": 5"))
        let check = older.run("check")
        #expect(check.stdout == "ok\n", "\(check.stdout)")
    }
}
