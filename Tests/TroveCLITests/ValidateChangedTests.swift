import Foundation
import Testing
import TroveBase

@testable import TroveCLI
@_spi(Testing) @testable import TroveStore

/// `validate --changed` against a full validate of the same workspace, over random edits.
@Suite struct ValidateChangedTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        #expect(sandbox.run("init").status == 0)
    }

    /// A row of a treasure file.
    struct Row {
        var key: String
        var name: String
        var latitude: Double
        var longitude: Double
        var image = ""
    }

    /// One finding as JSON gives it, less what is compared by key.
    struct Finding: Equatable, CustomStringConvertible {
        var code: String
        var message: String
        var line: Int?
        var key: String?

        var description: String { "\(key ?? "-"):\(line ?? 0) \(code) \(message)" }
    }

    static func findings(_ json: String) throws -> (findings: [Finding], errors: Int) {
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let list = try #require(object["findings"] as? [[String: Any]])
        return (
            list.map {
                Finding(
                    code: $0["code"] as? String ?? "", message: $0["message"] as? String ?? "",
                    line: $0["line"] as? Int, key: $0["key"] as? String)
            }, object["errors"] as? Int ?? -1
        )
    }

    func write(_ file: String, _ rows: [Row]) throws {
        var csv = "key,name,lat,lon,image\n"
        for row in rows {
            csv += "\(row.key),\(row.name),\(row.latitude),\(row.longitude),\(row.image)\n"
        }
        try sandbox.write(file, csv)
    }

    /// A full validate of a copy of the workspace, which leaves the original's record of
    /// the last validate alone.
    func fullValidate() throws -> [Finding] {
        let copy = sandbox.path("copy.sqlite")
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: copy + suffix)
            if FileManager.default.fileExists(atPath: sandbox.workspace + suffix) {
                try FileManager.default.copyItem(
                    atPath: sandbox.workspace + suffix, toPath: copy + suffix)
            }
        }
        let result = sandbox.run("-w", copy, "validate", "--format", "json")
        return try Self.findings(result.stdout).findings
    }

    static func distance(_ a: Row, _ b: Row) -> Double {
        greatCircleDistance(
            fromLatitude: a.latitude, longitude: a.longitude, toLatitude: b.latitude,
            longitude: b.longitude)
    }

    @Test(arguments: Array(1...12) as [UInt64])
    func changedFindingsAreTheFullValidatesForTheRowsItChecks(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let names = ["Chest", "Cave", "Tower", "Well", "Bridge", "Mill"]
        var files: [String: [Row]] = ["a.csv": [], "b.csv": []]
        var serial = 0
        func newRow() -> Row {
            serial += 1
            let base = Double(Int.random(in: 0..<12, using: &random))
            var row = Row(
                key: "t\(serial)", name: names.randomElement(using: &random)! + " \(serial % 7)",
                latitude: 40 + base * 0.001 + Double(Int.random(in: 0...3, using: &random)) * 1e-5,
                longitude: -74 + Double(Int.random(in: 0...2, using: &random)) * 1e-5)
            // Rows added later sometimes have an error, so that a validate fails and the
            // next one checks the same rows again.
            if serial > 30 && serial % 4 == 0 { row.image = "missing-\(serial).png" }
            if serial % 11 == 0 { row.key = "\(1000 + serial)" }
            return row
        }
        for file in files.keys.sorted() {
            files[file] = (0..<15).map { _ in newRow() }
            try write(file, files[file]!)
            #expect(sandbox.run("import", "treasures", file).status == 0)
        }
        // Geohashes (a write of every treasure), then a validate that passes, from which on
        // only what changes is checked.
        #expect(sandbox.run("geohash").status == 0)
        #expect(sandbox.run("validate", "--changed").status == 0)
        var touched: Set<String> = []
        var focused = 0
        for step in 0..<10 {
            let file = ["a.csv", "b.csv"].randomElement(using: &random)!
            var rows = files[file]!
            switch Int.random(in: 0..<4, using: &random) {
            case 0:  // Move a few rows, some onto another's position.
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    let index = Int.random(in: 0..<rows.count, using: &random)
                    let all = files.keys.sorted().flatMap { files[$0]! }
                    let target = all.randomElement(using: &random)!
                    // Onto where it is already, it does not change.
                    if rows[index].latitude != target.latitude + 2e-5
                        || rows[index].longitude != target.longitude
                    {
                        touched.insert(rows[index].key)
                    }
                    rows[index].latitude = target.latitude + 2e-5
                    rows[index].longitude = target.longitude
                }
                try write(file, rows)
                #expect(sandbox.run("import", "treasures", file).status == 0)
            case 1:  // Rename a few, often to a name in use.
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    let index = Int.random(in: 0..<rows.count, using: &random)
                    let all = files.keys.sorted().flatMap { files[$0]! }
                    let name = all.randomElement(using: &random)!.name
                    if rows[index].name != name { touched.insert(rows[index].key) }
                    rows[index].name = name
                }
                try write(file, rows)
                #expect(sandbox.run("import", "treasures", file).status == 0)
            case 2:  // Remove a row from the file, with --sync; add a new one.
                if rows.count > 3 {
                    let removed = rows.remove(at: Int.random(in: 0..<rows.count, using: &random))
                    touched.insert(removed.key)
                }
                let added = newRow()
                rows.insert(added, at: Int.random(in: 0...rows.count, using: &random))
                touched.insert(added.key)
                try write(file, rows)
                #expect(sandbox.run("import", "treasures", file, "--sync").status == 0)
            default:  // Remove one from the workspace; its row comes back at the next import.
                let removed = rows.remove(at: Int.random(in: 0..<rows.count, using: &random))
                touched.insert(removed.key)
                try write(file, rows)
                #expect(sandbox.run("treasures", "rm", removed.key).status == 0)
            }
            files[file] = rows

            let changed = sandbox.run("validate", "--changed", "--format", "json")
            let (reported, errors) = try Self.findings(changed.stdout)
            let full = try fullValidate()
            #expect(changed.status == (errors > 0 ? 1 : 0), "\(changed.stderr)")
            if changed.stderr.contains("checking every treasure") {
                #expect(reported == full)
            } else {
                focused += 1
                // The rows it must check: those changed since the last validate that
                // passed, those within 5 m of one, and those named like one.
                let all = files.keys.sorted().flatMap { files[$0]! }
                let changedRows = all.filter { touched.contains($0.key) }
                var expected = Set(changedRows.map(\.key))
                for row in all
                where changedRows.contains(where: {
                    $0.name == row.name || Self.distance($0, row) < 5
                }) {
                    expected.insert(row.key)
                }
                // Rows with a finding checked as well, for whatever reason.
                let keys = expected.union(reported.compactMap(\.key))
                #expect(
                    reported.filter { $0.key != nil }
                        == full.filter { $0.key.map(keys.contains) ?? false },
                    "step \(step): \(changed.stderr) touched \(touched.sorted())")
            }
            if changed.status == 0 { touched = [] }
        }
        #expect(focused >= 8)
    }

    @Test func changedSaysWhyItChecksEverythingAndThenOnlyWhatChanged() throws {
        try write(
            "t.csv",
            [
                Row(key: "a", name: "Alpha", latitude: 40, longitude: -74),
                Row(key: "b", name: "Beta", latitude: 41, longitude: -74),
                Row(key: "c", name: "Gamma", latitude: 42, longitude: -74),
            ])
        #expect(sandbox.run("import", "treasures", "t.csv").status == 0)
        let first = sandbox.run("validate", "--changed")
        #expect(first.status == 0)
        #expect(
            first.stderr
                == "checking every treasure: no validate has passed on this workspace yet\n"
                + "0 errors, 1 warning\n")
        let nothing = sandbox.run("validate", "--changed")
        #expect(nothing.stdout == "")
        #expect(
            nothing.stderr
                == "checked 0 of 3 treasures: those changed since the last validate, and those "
                + "near or named like them\n0 errors, 0 warnings\n")
        // b moves onto a: the finding lands on b, the later row; a is checked as well.
        try write(
            "t.csv",
            [
                Row(key: "a", name: "Alpha", latitude: 40, longitude: -74),
                Row(key: "b", name: "Beta", latitude: 40.00002, longitude: -74),
                Row(key: "c", name: "Gamma", latitude: 42, longitude: -74),
            ])
        #expect(sandbox.run("import", "treasures", "t.csv").status == 0)
        let moved = sandbox.run("validate", "--changed")
        #expect(
            moved.stdout
                == "workspace: warning[T130]: 2 treasures have no geohash yet (run 'trove geohash')\n"
                + "t.csv:3: warning[T205]: only 2.2 m from 'a' (t.csv:2)\n")
        #expect(moved.stderr.hasPrefix("checked 2 of 3 treasures"))
        // Settings that feed the checks make the next run check everything.
        #expect(sandbox.run("config", "set", "game.bounds", "39,-75,43,-73").status == 0)
        #expect(
            sandbox.run("validate", "--changed").stderr.hasPrefix(
                "checking every treasure: the rules, game.bounds, geohash.precision or --strict "
                    + "changed since the last validate\n"))
        #expect(sandbox.run("validate", "--changed", "t.csv").status == 2)
    }

    @Test func aFailingChangedValidateChecksTheSameRowsNextTime() throws {
        try write("t.csv", [Row(key: "a", name: "Alpha", latitude: 40, longitude: -74)])
        #expect(sandbox.run("import", "treasures", "t.csv").status == 0)
        #expect(sandbox.run("validate").status == 0)
        try write(
            "t.csv",
            [Row(key: "a", name: "Alpha", latitude: 40, longitude: -74, image: "gone.png")])
        #expect(sandbox.run("import", "treasures", "t.csv").status == 0)
        for _ in 0..<2 {
            let result = sandbox.run("validate", "--changed")
            #expect(result.status == 1)
            #expect(result.stdout.contains("error[T120]"), "\(result.stdout)")
        }
    }

    @Test func aReadOnlyWorkspaceIsCheckedAndSaysItKeepsNoRecord() throws {
        try write("t.csv", [Row(key: "a", name: "Alpha", latitude: 40, longitude: -74)])
        #expect(sandbox.run("import", "treasures", "t.csv").status == 0)
        try Workspace.testDatabase(at: sandbox.workspace).execute("PRAGMA wal_checkpoint(TRUNCATE)")
        let folder = try ReadOnlyFolder(sandbox, files: ["trove.sqlite"])
        let result = sandbox.run("-w", folder.file("trove.sqlite"), "validate", "--changed")
        #expect(result.status == 0)
        #expect(
            result.stderr.contains(
                "not recorded as the last validate: the workspace is read-only, so the next "
                    + "--changed checks these treasures again\n"), "\(result.stderr)")
    }

    /// Without game.bounds, a point far from every other that lands among others when
    /// exchanged is a swapped-coordinates suspect: --changed judges it among all the
    /// others, as a full validate does.
    @Test func aSwappedPointIsJudgedAmongEveryTreasure() throws {
        var rows = (0..<6).map {
            Row(
                key: "c\($0)", name: "Cluster \($0)", latitude: 40 + Double($0) * 0.01,
                longitude: -74)
        }
        rows.append(Row(key: "far", name: "Far", latitude: 10, longitude: 10))
        try write("t.csv", rows)
        #expect(sandbox.run("import", "treasures", "t.csv").status == 0)
        #expect(sandbox.run("validate", "--changed").status == 0)
        rows[6] = Row(key: "far", name: "Far", latitude: -74.005, longitude: 40.02)
        rows[2].name = "Renamed"
        try write("t.csv", rows)
        #expect(sandbox.run("import", "treasures", "t.csv").status == 0)
        let full = try fullValidate().filter { ["far", "c2"].contains($0.key ?? "") }
        let changed = sandbox.run("validate", "--changed", "--format", "json")
        let reported = try Self.findings(changed.stdout).findings.filter { $0.key != nil }
        #expect(reported.contains { $0.code == "T203" }, "\(changed.stdout)")
        #expect(reported == full)
    }
}
