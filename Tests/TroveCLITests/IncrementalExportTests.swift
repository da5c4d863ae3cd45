import Foundation
import Testing
import TroveImaging

@_spi(Testing) @testable import TroveKit
@_spi(Testing) @testable import TroveStore

/// `export --update` renders only the records changed since its base. Whatever the edits,
/// the update must be exactly the difference between the tree before and a full render of
/// the tree now: every changed path with its value, every gone path as null, nothing else.
@Suite struct IncrementalExportTests {
    static let layout = """
        {
          "records": "treasures",
          "paths": {
            "treasureLocations/{key}": {"g": "{geohash}", "l": ["{lat}", "{lon}"]},
            "treasureProfiles/{key}": {"name": "{name}", "points": "{extra.points:int}"}
          }
        }
        """

    /// A little generator that gives the same edits for the same seed.
    struct Random {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    struct Row {
        var key: String
        var name: String
        var lat: Double
        var lon: Double
        var points: Int
    }

    static func csv(_ rows: [Row]) -> String {
        "key,name,lat,lon,points\n"
            + rows.map { "\($0.key),\($0.name),\($0.lat),\($0.lon),\($0.points)\n" }.joined()
    }

    /// The paths (template level) whose value differs between two trees, with the new
    /// value or null.
    static func difference(from old: ExportJSON, to new: ExportJSON) -> [String: ExportJSON] {
        var result: [String: ExportJSON] = [:]
        for top in ["treasureLocations", "treasureProfiles"] {
            let before = old.objectValue?[top]?.objectValue ?? [:]
            let after = new.objectValue?[top]?.objectValue ?? [:]
            for key in Set(before.keys).union(after.keys) where before[key] != after[key] {
                result["\(top)/\(key)"] = after[key] ?? .null
            }
        }
        return result
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func updatesEqualTheFullDifferenceOverRandomEdits(seed: UInt64) throws {
        let sandbox = try Sandbox()
        #expect(sandbox.run("init").status == 0)
        try sandbox.write("layout.json", Self.layout)
        var random = Random(state: seed)
        var rows = (0..<30).map { index in
            Row(
                key: "k\(index)", name: "Treasure \(index)", lat: 40.7 + Double(index) / 1000,
                lon: -74.0 + Double(index) / 1000, points: index)
        }
        var next = rows.count
        func importRows() {
            try? sandbox.write("treasures.csv", Self.csv(rows))
            let result = sandbox.run("import", "treasures", "treasures.csv", "--sync", "-q")
            #expect(result.status == 0, "\(result.stderr)")
        }
        importRows()
        #expect(sandbox.run("geohash", "-q").status == 0)
        let first = sandbox.run("export", "--layout", "layout.json", "--out", "full.json")
        #expect(first.status == 0, "\(first.stderr)")
        var tree = try ExportSupport.parse(ExportSupport.read(sandbox.path("full.json")))
        for step in 0..<12 {
            // A handful of edits of every kind a designer makes, then the pipeline's steps.
            for _ in 0..<(1 + random.next(4)) {
                guard !rows.isEmpty else { break }
                let index = random.next(rows.count)
                switch random.next(6) {
                case 0: rows[index].name = "Renamed \(step)-\(index)"
                case 1: rows[index].lat += 0.01
                case 2: rows[index].points += 1
                case 3: rows.remove(at: index)
                case 4:
                    rows.append(
                        Row(
                            key: "n\(next)", name: "New \(next)", lat: 40.6, lon: -73.9,
                            points: next))
                    next += 1
                default:
                    let key = rows[index].key
                    rows.remove(at: index)
                    try sandbox.write("treasures.csv", Self.csv(rows))
                    #expect(sandbox.run("treasures", "rm", key, "-q").status == 0)
                }
            }
            importRows()
            #expect(sandbox.run("geohash", "-q").status == 0)
            let update = sandbox.run(
                "export", "--layout", "layout.json", "--update", "--out", "update.json")
            #expect(update.status == 0, "\(update.stderr)")
            #expect(
                !update.stderr.contains("every record was rendered"),
                "step \(step) rendered everything: \(update.stderr)")
            let full = sandbox.run("export", "--layout", "layout.json")
            #expect(full.status == 0)
            let fullTree = try ExportSupport.parse(full.stdout)
            let applied = try ExportSupport.parse(
                ExportSupport.read(sandbox.path("update.json")))
            #expect(
                applied.objectValue ?? [:] == Self.difference(from: tree, to: fullTree),
                "step \(step): the update is not the difference")
            #expect(ExportSupport.apply(applied, to: tree) == fullTree, "step \(step)")
            tree = fullTree
        }
    }

    @Test func aChangedSettingOrLayoutRendersEverythingAndSaysSo() throws {
        let sandbox = try Sandbox()
        #expect(sandbox.run("init").status == 0)
        try sandbox.write("layout.json", Self.layout)
        try sandbox.write(
            "treasures.csv",
            Self.csv([Row(key: "a", name: "A", lat: 40.7, lon: -74, points: 1)]))
        #expect(sandbox.run("import", "treasures", "treasures.csv", "-q").status == 0)
        #expect(sandbox.run("geohash", "-q").status == 0)
        #expect(sandbox.run("export", "--layout", "layout.json", "--out", "f.json").status == 0)
        let quiet = sandbox.run("export", "--layout", "layout.json", "--update", "--out", "u.json")
        #expect(quiet.status == 0)
        #expect(!quiet.stderr.contains("every record was rendered"), "\(quiet.stderr)")
        #expect(try ExportSupport.read(sandbox.path("u.json")) == "{}\n")

        #expect(sandbox.run("geohash", "--precision", "6", "-q").status == 0)
        let moved = sandbox.run("export", "--layout", "layout.json", "--update", "--out", "u.json")
        #expect(moved.status == 0)
        #expect(
            moved.stderr.contains(
                "note: every record was rendered: the layout or the settings it uses changed since"
            ), "\(moved.stderr)")
        let update = try ExportSupport.parse(ExportSupport.read(sandbox.path("u.json")))
        #expect(update.objectValue?.keys.sorted() == ["treasureLocations/a"])

        try sandbox.write(
            "layout.json", Self.layout.replacingOccurrences(of: "points", with: "score"))
        let edited = sandbox.run("export", "--layout", "layout.json", "--update", "--out", "u.json")
        #expect(edited.stderr.contains("note: every record was rendered"), "\(edited.stderr)")
        let renamed = try ExportSupport.parse(ExportSupport.read(sandbox.path("u.json")))
        #expect(renamed.objectValue?.keys.sorted() == ["treasureProfiles/a"])
    }

    /// The objects the plan beside `output` lists: path and state.
    static func listed(_ sandbox: Sandbox, _ manifest: String) throws -> [String] {
        let data = try Data(contentsOf: URL(fileURLWithPath: sandbox.path(manifest)))
        let document = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        let objects = document["objects"] as? [[String: Any]] ?? []
        return objects.map { "\($0["path"] as? String ?? "") \($0["state"] as? String ?? "")" }
    }

    static func deleted(_ sandbox: Sandbox, _ manifest: String) throws -> [String] {
        let data = try Data(contentsOf: URL(fileURLWithPath: sandbox.path(manifest)))
        let document = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        return document["delete"] as? [String] ?? []
    }

    @Test func theStoragePlanOfAnUpdateListsOnlyTheObjectsThatChange() throws {
        let sandbox = try Sandbox()
        #expect(sandbox.run("init").status == 0)
        #expect(sandbox.run("config", "set", "storage.bucket", "game.appspot.com").status == 0)
        for name in ["a", "b", "c", "d"] {
            try sandbox.write(
                "art/\(name).png",
                Data(
                    try PNG.encode(
                        ImagesTests.photo(width: 40 + Int(name.utf8.first! % 7), height: 30))))
        }
        func importRows(_ rows: [(String, String)]) {
            let csv =
                "key,name,lat,lon,image\n"
                + rows.map { "\($0.0),\($0.1),40.7,-74,art/\($0.0 == "c" ? "d" : $0.0).png\n" }
                .joined()
            try? sandbox.write("t.csv", csv)
            #expect(sandbox.run("import", "treasures", "t.csv", "--sync", "-q").status == 0)
            #expect(sandbox.run("geohash", "-q").status == 0)
            #expect(sandbox.run("images", "-q").status == 0)
        }
        importRows([("a", "A"), ("b", "B")])
        let export = ["export", "--layout", "flatirongo", "--update", "--out", "f.json"]
        let first = sandbox.run(export)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try Self.listed(sandbox, "f.storage.json").count == 2)

        // A new name changes no object; a new treasure brings one; a rotated token is
        // re-tokened; a removed treasure's object is deleted after the update.
        importRows([("a", "A2"), ("b", "B"), ("c", "C")])
        let rotated = sandbox.run("storage", "rotate", "treasure:b")
        #expect(rotated.status == 0, "\(rotated.stderr)")
        let second = sandbox.run(export)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(!second.stderr.contains("every record was rendered"), "\(second.stderr)")
        let listed = try Self.listed(sandbox, "f.storage.json")
        #expect(listed.count == 2, "\(listed)")
        #expect(listed.contains { $0.hasPrefix("treasures/b/") && $0.hasSuffix(" rotated") })
        #expect(listed.contains { $0.hasPrefix("treasures/c/") && $0.hasSuffix(" new") })
        #expect(second.stderr.contains("storage: 3 objects referenced, 2 to upload, 0 to delete"))

        importRows([("b", "B"), ("c", "C")])
        let third = sandbox.run(export)
        #expect(third.status == 0, "\(third.stderr)")
        #expect(try Self.listed(sandbox, "f.storage.json").isEmpty)
        let gone = try Self.deleted(sandbox, "f.storage.json")
        #expect(gone.count == 1 && gone[0].hasPrefix("treasures/a/"), "\(gone)")
        #expect(third.stderr.contains("storage: 2 objects referenced, 0 to upload, 1 to delete"))

        // Every object, on request, is what the tree's URLs reference.
        let all = sandbox.run(
            "export", "--layout", "flatirongo", "--out", "all.json", "--all-objects")
        #expect(all.status == 0, "\(all.stderr)")
        let everything = try Self.listed(sandbox, "all.storage.json")
        #expect(everything.count == 2)
        #expect(everything.allSatisfy { $0.hasSuffix(" unchanged") }, "\(everything)")
    }

    /// Marks go once every consumer has taken them in, and not before: an update against
    /// an earlier export (`--since`) still finds every change since that one.
    @Test func marksGoOnceEveryConsumerTookThemInAndSinceStillSeesThem() throws {
        let sandbox = try Sandbox()
        #expect(sandbox.run("init").status == 0)
        try sandbox.write("layout.json", Self.layout)
        var rows = (0..<5).map {
            Row(key: "k\($0)", name: "T\($0)", lat: 40.7, lon: -74 + Double($0) / 100, points: $0)
        }
        func importRows() {
            try? sandbox.write("t.csv", Self.csv(rows))
            #expect(sandbox.run("import", "treasures", "t.csv", "-q").status == 0)
            #expect(sandbox.run("geohash", "-q").status == 0)
        }
        func marks() throws -> Int64 {
            try Workspace.testDatabase(at: sandbox.workspace).scalar(
                "SELECT count(*) FROM record_changes")?.int64 ?? -1
        }
        importRows()
        let update = ["export", "--layout", "layout.json", "--update", "--out", "u.json"]
        #expect(sandbox.run(update).status == 0)
        let first = try ExportSupport.parse(sandbox.run("export", "--layout", "layout.json").stdout)
        rows[1].name = "Renamed"
        importRows()
        #expect(try marks() == 1)
        #expect(sandbox.run(update).status == 0)
        // The first export can still be followed: its marks stay.
        #expect(try marks() == 1)
        rows[2].points = 99
        importRows()
        #expect(sandbox.run(update).status == 0)
        let log = sandbox.run("export", "log")
        #expect(log.status == 0)
        let since = sandbox.run(
            "export", "--layout", "layout.json", "--update", "--since", "1", "--out", "s.json")
        #expect(since.status == 0, "\(since.stderr)")
        #expect(!since.stderr.contains("every record was rendered"), "\(since.stderr)")
        let now = try ExportSupport.parse(sandbox.run("export", "--layout", "layout.json").stdout)
        let applied = try ExportSupport.parse(ExportSupport.read(sandbox.path("s.json")))
        #expect(applied.objectValue ?? [:] == Self.difference(from: first, to: now))
        // Once only the latest export is kept for --since, its marks are all taken in.
        for _ in 0..<ExportOptions.keptStates { #expect(sandbox.run(update).status == 0) }
        #expect(try marks() == 0)
    }
}
