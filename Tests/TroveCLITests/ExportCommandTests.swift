import Foundation
import Testing

@testable import TroveBase
@testable import TroveCLI
@_spi(Testing) @testable import TroveStore

@Suite struct ExportCommandTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        try ExportSupport.makeWorkspace(sandbox)
    }

    // MARK: - Golden files

    @Test func flatirongoWritesTheGoldenTree() throws {
        let result = sandbox.run("export", "--layout", "flatirongo", "--out", "firebase.json")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try ExportSupport.read(sandbox.path("firebase.json")) == Golden.flatirongo)
    }

    @Test func trashmapperWritesOnlyApprovedPostsAsTheGoldenTree() throws {
        let result = sandbox.run("export", "--layout", "trashmapper")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == Golden.trashmapper)
        #expect(!result.stdout.contains("Secret") && !result.stdout.contains("Spam"))
    }

    @Test func rulesAreCompleteWhenNewAndIndexEveryGeoFireNodeOnG() throws {
        let complete = """
            {
              "rules": {
                ".read": false,
                ".write": false,
                "locationIndex": {
                  ".indexOn": ["g"],
                  ".read": true
                },
                "locations": {
                  ".read": true
                },
                "users": {
                  ".read": true
                }
              }
            }

            """
        for _ in 0..<2 {
            let result = sandbox.run("export", "--layout", "trashmapper", "--rules", "rules.json")
            #expect(result.status == 0)
            #expect(try ExportSupport.read(sandbox.path("rules.json")) == complete)
        }
    }

    @Test func anExistingRulesFileIsLeftAloneWithWhatToMerge() throws {
        let own =
            #"{"rules": {".read": "auth != null", "treasureLocations": {".indexOn": "name"}}}"#
        try sandbox.write("database.rules.json", own)
        let result = sandbox.run(
            "export", "--layout", "flatirongo", "--rules", "database.rules.json")
        #expect(result.status == 0)
        #expect(try ExportSupport.read(sandbox.path("database.rules.json")) == own)
        #expect(result.stderr.contains("is your own and was left alone; merge into it:"))
        #expect(result.stderr.contains(#""rules" > "treasureLocations": add ".indexOn": ["g"]"#))
        try sandbox.write(
            "database.rules.json",
            #"{"rules": {".read": "auth != null", "treasureLocations": {".indexOn": ["g", "name"]}}}"#
        )
        let merged = sandbox.run(
            "export", "--layout", "flatirongo", "--rules", "database.rules.json")
        #expect(!merged.stderr.contains("merge into it"))
        #expect(merged.stderr.contains("database.rules.json is unchanged"))
    }

    /// flatirongo with a `byCategory` node of its own.
    private func writeLayoutThatAddsANode() throws {
        try sandbox.write(
            "cat.json",
            """
            {"records": "treasures", "paths": {
              "treasureLocations/{key}": {"g": "{geohash}", "l": ["{lat}", "{lon}"]},
              "treasureProfiles/{key}": {"name": "{name}"},
              "byCategory/{key}": {"name": "{name}"}}}
            """)
    }

    @Test func rulesAnExportWroteGainTheNodesALaterLayoutAdds() throws {
        #expect(sandbox.run("export", "--layout", "flatirongo", "--rules", "r.json").status == 0)
        let first = try ExportSupport.read(sandbox.path("r.json"))
        #expect(!first.contains("byCategory"))
        try writeLayoutThatAddsANode()
        let updated = sandbox.run("export", "--layout", "./cat.json", "--rules", "r.json")
        #expect(updated.status == 0, "\(updated.stderr)")
        #expect(updated.stderr.contains("wrote \(sandbox.path("r.json"))"))
        #expect(!updated.stderr.contains("is your own"))
        let rules = try ExportSupport.read(sandbox.path("r.json"))
        #expect(rules.contains("\"byCategory\": {\n      \".read\": true\n    }"))
        // What the first layout needed stays.
        #expect(rules.contains("\"treasureLocations\": {\n      \".indexOn\": [\"g\"],"))
        // Run twice: the second run has nothing to add and says so once.
        let again = sandbox.run("export", "--layout", "./cat.json", "--rules", "r.json")
        #expect(try ExportSupport.read(sandbox.path("r.json")) == rules)
        #expect(again.stderr.components(separatedBy: "r.json").count == 2, "\(again.stderr)")
        #expect(again.stderr.contains("r.json is unchanged"))
    }

    @Test func ownRulesThatReadNothingAreToldEveryReadTheLayoutNeedsOnce() throws {
        let own = #"{"rules": {".read": false, "treasureLocations": {".indexOn": "g"}}}"#
        try sandbox.write("own.json", own)
        try writeLayoutThatAddsANode()
        for _ in 0..<2 {
            let result = sandbox.run("export", "--layout", "./cat.json", "--rules", "own.json")
            #expect(result.status == 0)
            #expect(try ExportSupport.read(sandbox.path("own.json")) == own)
            let lines = result.stderr.split(separator: "\n").map(String.init)
            let told = lines.filter { $0.contains("own.json") }
            #expect(
                told == [
                    "\(sandbox.path("own.json")) is your own and was left alone; merge into it:"
                ])
            #expect(lines.contains(#"  "rules" > "byCategory": add ".read": true"#))
            #expect(lines.contains(#"  "rules" > "treasureLocations": add ".read": true"#))
            #expect(lines.contains(#"  "rules" > "treasureProfiles": add ".read": true"#))
            #expect(!result.stderr.contains(".indexOn"))
        }
    }

    @Test func exportPrintsAJSONSummaryWithFormatJSON() throws {
        for run in 0..<2 {
            let result = sandbox.run(
                "export", "--layout", "flatirongo", "--out", "out.json", "--rules", "r.json",
                "--format", "json")
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.isEmpty)
            let summary = try #require(
                JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            #expect(summary["layout"] as? String == "flatirongo")
            #expect(summary["records"] as? Int == 3)
            #expect(summary["recorded"] as? Bool == true)
            #expect(summary["changed"] as? Int == (run == 0 ? summary["paths"] as? Int : 0))
            let written = summary["written"] as? [String] ?? []
            let unchanged = summary["unchanged"] as? [String] ?? []
            let out = sandbox.path("out.json")
            #expect((run == 0 ? written : unchanged).contains(out))
            #expect((run == 0 ? written : unchanged).contains(sandbox.path("r.json")))
            #expect((summary["storage"] as? [String: Any])?["objects"] is Int)
        }
        let dry = sandbox.run("export", "--layout", "flatirongo", "--dry-run", "--format", "json")
        #expect(dry.status == 0)
        #expect(dry.stdout.hasPrefix("{\"layout\": \"flatirongo\", \"dryRun\": true"))
        let toStdout = sandbox.run("export", "--layout", "flatirongo", "--format", "json")
        #expect(toStdout.status == 2)
        #expect(toStdout.stdout.isEmpty)
        #expect(toStdout.stderr.contains("--format json needs --out FILE or --dry-run"))
    }

    // MARK: - GeoFire

    @Test(arguments: ["flatirongo", "trashmapper"])
    func geoFireNodesHoldExactlyTheGeohashOfTheirStoredPosition(layout: String) throws {
        let workspace = try Workspace(path: sandbox.workspace)
        let fixture = workspace.fixture
        try fixture.addTreasure("odd", name: "Odd", lat: 0.1 + 0.2, lon: -179.99999999999997)
        try fixture.addTreasure("tiny", name: "Tiny", lat: 1e-7, lon: 5e-324)
        try fixture.addPost(
            "p9", user: "carol", lat: -33.868820000000014, lon: 151.20929, status: "approved")
        #expect(sandbox.run("geohash", "--precision", "12").status == 0)
        let result = sandbox.run("export", "--layout", layout)
        #expect(result.status == 0, "\(result.stderr)")
        let tree = try ExportSupport.parse(result.stdout)
        let node = layout == "flatirongo" ? "treasureLocations" : "locationIndex"
        let table = layout == "flatirongo" ? "treasures" : "posts"
        let keyColumn = layout == "flatirongo" ? "key" : "id"
        let locations = try #require(tree.objectValue?[node]?.objectValue)
        #expect(!locations.isEmpty)
        for (key, location) in locations {
            let members = try #require(location.objectValue)
            #expect(Set(members.keys) == ["g", "l", ".priority"])
            guard case .array(let pair) = members["l"], pair.count == 2,
                case .number(let lat) = pair[0], case .number(let lon) = pair[1],
                case .string(let g) = members["g"]
            else {
                Issue.record("\(key): malformed GeoFire node \(location)")
                continue
            }
            let stored = try workspace.testDatabase.query(
                "SELECT lat, lon FROM \(table) WHERE \(keyColumn) = ?", [.text(key)]
            ) { ($0.double(0) ?? .nan, $0.double(1) ?? .nan) }
            #expect(lat.bitPattern == stored.first?.0.bitPattern, "\(key) latitude")
            #expect(lon.bitPattern == stored.first?.1.bitPattern, "\(key) longitude")
            #expect(g == Geohash.encode(latitude: lat, longitude: lon, precision: 12))
            #expect(members[".priority"] == .string(g))
        }
    }

    // MARK: - Deltas

    @Test func anUnchangedWorkspaceGivesAnEmptyUpdate() {
        #expect(sandbox.run("export", "--layout", "flatirongo", "-o", "full.json").status == 0)
        let result = sandbox.run("export", "--layout", "flatirongo", "--update")
        #expect(result.status == 0)
        #expect(result.stdout == "{}\n")
    }

    @Test(arguments: [1, 2, 3, 4, 5])
    func updatesApplyToThePreviousExportToGiveTheNextOne(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let workspace = try Workspace(path: sandbox.workspace)
        #expect(sandbox.run("export", "--layout", "flatirongo", "--out", "base.json").status == 0)
        var previous = try ExportSupport.parse(
            try ExportSupport.read(sandbox.path("base.json")))
        for round in 0..<6 {
            try mutate(sandbox, workspace, round: round, random: &random)
            #expect(sandbox.run("geohash").status == 0)
            // A preview on stdout between two updates: it must hide nothing from the next.
            if round % 2 == 1 {
                #expect(sandbox.run("export", "--layout", "flatirongo").status == 0)
            }
            let update = sandbox.run(
                "export", "--layout", "flatirongo", "--update", "--out", "update.json")
            #expect(update.status == 0, "\(update.stderr)")
            let full = sandbox.run("export", "--layout", "flatirongo")
            #expect(full.status == 0, "\(full.stderr)")
            let expected = try ExportSupport.parse(full.stdout)
            let written = try ExportSupport.read(sandbox.path("update.json"))
            let applied = ExportSupport.apply(try ExportSupport.parse(written), to: previous)
            #expect(applied == expected, "seed \(seed) round \(round)")
            previous = expected
        }
        #expect(sandbox.run("export", "--layout", "flatirongo", "--update").stdout == "{}\n")
    }

    @Test func postsThatLeaveApprovalAreRemovedByTheUpdate() throws {
        #expect(sandbox.run("export", "--layout", "trashmapper", "-o", "map.json").status == 0)
        #expect(
            sandbox.run("review", "flag", "p4", "--note", "second look", "--force").status
                == 0)
        let result = sandbox.run("export", "--layout", "trashmapper", "--update")
        #expect(
            result.stdout == """
                {
                  "locationIndex/p4": null,
                  "locations/p4": null,
                  "users/bob/taggedLocations/p4": null
                }

                """)
    }

    @Test func chunksStayUnderTheLimitAndTogetherEqualTheUpdate() throws {
        // Two identical workspaces take the same changes: one writes the update whole,
        // the other in parts.
        let other = try Sandbox()
        try ExportSupport.makeWorkspace(other)
        var bases: [ExportJSON] = []
        var updates: [RunResult] = []
        for (index, box) in [sandbox, other].enumerated() {
            let workspace = try Workspace(path: box.workspace)
            var random = SeededGenerator(seed: 42)
            try mutate(box, workspace, round: 0, random: &random)
            #expect(box.run("geohash").status == 0)
            #expect(box.run("export", "--layout", "flatirongo", "-o", "base.json").status == 0)
            bases.append(try ExportSupport.parse(try ExportSupport.read(box.path("base.json"))))
            try mutate(box, workspace, round: 1, random: &random)
            try mutate(box, workspace, round: 2, random: &random)
            #expect(box.run("geohash").status == 0)
            let arguments =
                index == 0
                ? ["export", "--layout", "flatirongo", "--update"]
                : [
                    "export", "--layout", "flatirongo", "--update", "--max-bytes", "400", "-o",
                    "out/update.json",
                ]
            updates.append(box.run(arguments))
        }
        #expect(bases[0] == bases[1])
        #expect(updates[1].status == 0, "\(updates[1].stderr)")
        let unchunked = try ExportSupport.parse(updates[0].stdout)
        let manifest = try ExportSupport.parse(
            try ExportSupport.read(other.path("out/update.manifest.json")))
        guard case .array(let parts) = manifest.objectValue?["parts"] else {
            Issue.record("manifest without parts")
            return
        }
        #expect(parts.count > 1)
        let names = parts.compactMap { part -> String? in
            guard case .string(let name) = part else { return nil }
            return name
        }
        #expect(
            try ExportSupport.read(other.path("out/update.manifest.json"))
                == "{\n  \"layout\": \"flatirongo\",\n  \"parts\": [\n"
                + names.map { "    \"\($0)\"" }.joined(separator: ",\n") + "\n  ]\n}\n")
        var merged = bases[1]
        var combined: [String: ExportJSON] = [:]
        for case .string(let name) in parts {
            let text = try ExportSupport.read(other.path("out/" + name))
            #expect(text.utf8.count < 400, "\(name) is \(text.utf8.count) bytes")
            let part = try ExportSupport.parse(text)
            combined.merge(part.objectValue ?? [:]) { first, _ in first }
            merged = ExportSupport.apply(part, to: merged)
        }
        #expect(ExportJSON.object(combined) == unchunked)
        let full = try ExportSupport.parse(other.run("export", "--layout", "flatirongo").stdout)
        #expect(merged == full)
    }

    @Test func aRecordLargerThanMaxBytesIsNamed() {
        let result = sandbox.run(
            "export", "--layout", "flatirongo", "--max-bytes", "100", "-o", "parts.json")
        #expect(result.status == 1)
        #expect(result.stderr.contains("treasure hairy-harry: treasureProfiles/hairy-harry"))
        #expect(!FileManager.default.fileExists(atPath: sandbox.path("parts.manifest.json")))
    }

    // MARK: - Determinism

    @Test func exportingTwiceIsByteIdenticalAndLeavesTheFileAlone() throws {
        #expect(sandbox.run("export", "--layout", "flatirongo", "-o", "f.json").status == 0)
        let path = sandbox.path("f.json")
        let old = Date(timeIntervalSince1970: 1_000_000)
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: path)
        let first = try ExportSupport.read(path)
        let second = sandbox.run("export", "--layout", "flatirongo", "-o", "f.json")
        #expect(second.status == 0)
        #expect(second.stderr.contains("is unchanged"))
        #expect(try ExportSupport.read(path) == first)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect(attributes[.modificationDate] as? Date == old)
    }

    // MARK: - Refusals

    @Test func anIllegalKeyIsRefusedBeforeAnyFileIsWritten() throws {
        try Workspace(path: sandbox.workspace).fixture.addTreasure(
            "bad.key", name: "B", lat: 1, lon: 2)
        #expect(sandbox.run("geohash").status == 0)
        let result = sandbox.run("export", "--layout", "flatirongo", "-o", "f.json")
        #expect(result.status == 1)
        #expect(result.stderr.contains("treasure bad.key: key \"bad.key\" contains '.'"))
        #expect(!FileManager.default.fileExists(atPath: sandbox.path("f.json")))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: sandbox.folder.path)
                .allSatisfy { !$0.contains("f.json") })
    }

    @Test func aLayoutPathFromDataThatBreaksALimitIsRefused() throws {
        try sandbox.write(
            "deep.json", #"{"records": "posts", "paths": {"byUser/{user}/{key}": true}}"#)
        let fixture = try Workspace(path: sandbox.workspace).fixture
        for (id, user) in [("p5", "a#b"), ("p6", String(repeating: "u", count: 769))] {
            try fixture.addPost(id, user: user, lat: 40.7, lon: -74.0, status: "approved")
        }
        #expect(sandbox.run("geohash").status == 0)
        let result = sandbox.run("export", "--layout", "deep.json", "-o", "f.json")
        #expect(result.status == 1)
        #expect(result.stderr.contains("post p5: key \"a#b\" contains '#'"))
        #expect(result.stderr.contains("post p6: key"))
        #expect(result.stderr.contains("769 bytes long"))
        #expect(!FileManager.default.fileExists(atPath: sandbox.path("f.json")))
    }

    @Test func numericSiblingKeysAreRefusedAsFirebaseWouldMakeAnArray() throws {
        #expect(sandbox.run("treasures", "rm", "hairy-harry", "bull", "plain", "-q").status == 0)
        let fixture = try Workspace(path: sandbox.workspace).fixture
        for (key, name) in [("0", "A"), ("1", "B"), ("2", "C")] {
            try fixture.addTreasure(key, name: name, lat: 1, lon: 2)
        }
        #expect(sandbox.run("geohash").status == 0)
        let result = sandbox.run("export", "--layout", "flatirongo", "-o", "f.json")
        #expect(result.status == 1)
        #expect(result.stderr.contains("treasureLocations: every key is an array index"))
        #expect(!FileManager.default.fileExists(atPath: sandbox.path("f.json")))
    }

    @Test func missingAndStaleGeohashesAreRefusedByName() throws {
        // Added after the last 'geohash', and moved since it.
        let fixture = try Workspace(path: sandbox.workspace).fixture
        try fixture.addTreasure("new", name: "New", lat: 1, lon: 2)
        try fixture.editTreasure("plain", lat: 10)
        let result = sandbox.run("export", "--layout", "flatirongo", "-o", "f.json")
        #expect(result.status == 1)
        #expect(result.stderr.contains("treasures without a geohash (run 'trove geohash')"))
        #expect(result.stderr.contains("  treasure new\n"))
        #expect(result.stderr.contains("treasures with a stale geohash (run 'trove geohash')"))
        #expect(result.stderr.contains("  treasure plain: sbj4ugp29n should be"))
        #expect(!result.stderr.contains("hairy-harry"))
        #expect(!FileManager.default.fileExists(atPath: sandbox.path("f.json")))
    }

    @Test func aMissingRenditionIsRefusedByName() throws {
        // An approved post whose photo 'images' has not made yet, and a treasure whose
        // image changed since it ran.
        let fixture = try Workspace(path: sandbox.workspace).fixture
        try fixture.addPost(
            "p5", user: "cy", lat: 40.7, lon: -74.0, photo: "/photos/p5.jpg", status: "approved")
        try fixture.editTreasure("hairy-harry", image: "/art/new-harry.png")
        #expect(sandbox.run("geohash").status == 0)
        for (layout, record) in [
            ("flatirongo", "treasure hairy-harry"), ("trashmapper", "post p5"),
        ] {
            let result = sandbox.run("export", "--layout", layout, "-o", "f.json")
            #expect(result.status == 1)
            #expect(result.stderr.contains("(run 'trove images')"))
            #expect(result.stderr.contains("\(record): no 'full' rendition of"))
            #expect(!FileManager.default.fileExists(atPath: sandbox.path("f.json")))
        }
    }

    @Test func renditionsAndGeohashesMatchTheirOwnRecordsWhateverTheKeysBytes() throws {
        let fixture = try Workspace(path: sandbox.workspace).fixture
        // Keys whose byte order differs from other orders, renditions of records that do
        // not exist, and a post sharing a treasure's key; all share one artwork. 'ab' comes
        // after the 'geohash' run, so it has none.
        let keys = ["Z", "a", "a-b", "ab", "é", "日本"]
        func addTreasure(_ index: Int) throws {
            try fixture.addTreasure(
                keys[index], name: "T " + keys[index], lat: Double(index), lon: 2.5,
                image: "/art/shared.png")
        }
        for index in keys.indices where keys[index] != "ab" {
            try addTreasure(index)
        }
        func addRendition(kind: String, key: String, source: String = "/art/shared.png") throws {
            try fixture.setRendition(
                kind, key, "full", source: source, path: "r/\(key).png", width: 1, height: 1,
                bytes: 1, hash: "h")
        }
        for key in ["a-a", "aa", "zz", "ü"] {
            try addRendition(kind: "treasure", key: key)
        }
        try addRendition(kind: "post", key: "a")
        try addRendition(kind: "treasure", key: "a-b")
        try addRendition(kind: "treasure", key: "é", source: "/art/old.png")
        try addRendition(kind: "treasure", key: "日本")
        #expect(sandbox.run("geohash").status == 0)
        try addTreasure(keys.firstIndex(of: "ab")!)

        let refused = sandbox.run("export", "--layout", "flatirongo", "-o", "f.json")
        #expect(refused.status == 1)
        let missing = refused.stderr.split(separator: "\n").filter {
            $0.contains("no 'full' rendition")
        }
        #expect(
            missing.map { $0.split(separator: ":")[0].trimmingCharacters(in: .whitespaces) } == [
                "treasure Z", "treasure a", "treasure ab", "treasure é",
            ])
        #expect(refused.stderr.contains("treasures without a geohash"))
        #expect(refused.stderr.contains("  treasure ab\n"))

        for key in ["Z", "a", "ab"] {
            try addRendition(kind: "treasure", key: key)
        }
        try addRendition(kind: "treasure", key: "é")
        #expect(sandbox.run("geohash").status == 0)
        let exported = sandbox.run("export", "--layout", "flatirongo", "-o", "f.json")
        #expect(exported.status == 0, "\(exported.stderr)")
        let tree = try ExportSupport.parse(try ExportSupport.read(sandbox.path("f.json")))
        let profiles = tree.objectValue?["treasureProfiles"]?.objectValue ?? [:]
        let locations = tree.objectValue?["treasureLocations"]?.objectValue ?? [:]
        for key in keys {
            let url = profiles[key]?.objectValue?["imageURL"]
            #expect(
                url
                    == .string(
                        StorageURL(bucket: "flatiron-go.appspot.com", template: nil)
                            .url(for: "r/\(key).png")!), "\(key)")
            #expect(locations[key]?.objectValue?["g"] != nil, "\(key)")
        }
    }

    @Test func aRefusedExportRecordsNoState() throws {
        #expect(sandbox.run("export", "--layout", "flatirongo", "-o", "full.json").status == 0)
        let workspace = try Workspace(path: sandbox.workspace)
        try workspace.fixture.editTreasure("hairy-harry", name: "Harry")
        // Added after the last 'geohash': the export is refused.
        try workspace.fixture.addTreasure("new", name: "New", lat: 1, lon: 2)
        #expect(sandbox.run("export", "--layout", "flatirongo", "-o", "full.json").status == 1)
        #expect(sandbox.run("geohash").status == 0)
        let update = sandbox.run("export", "--layout", "flatirongo", "--update")
        #expect(update.stdout.contains("\"name\": \"Harry\""))
    }

    @Test func anUnknownPlaceholderIsAUsageErrorNamingIt() throws {
        try sandbox.write(
            "layout.json",
            #"{"records": "treasures", "paths": {"t/{key}": {"n": "{nmae}", "x": "{name}"}}}"#)
        let result = sandbox.run("export", "--layout", "layout.json")
        #expect(result.status == 2)
        #expect(result.stderr.contains("unknown placeholder '{nmae}' in \"t/{key}\""))
        #expect(result.stdout.isEmpty)
    }

    @Test func anUnknownLayoutNameSuggestsABuiltIn() {
        let result = sandbox.run("export", "--layout", "flatirogno")
        #expect(result.status == 2)
        #expect(result.stderr.contains("did you mean 'flatirongo'?"))
    }

    @Test func placeholdersWithoutValuesRemoveTheirFields() throws {
        try sandbox.write(
            "layout.json",
            """
            {"records": "treasures", "paths": {"t/{key}": {
              "about": {"text": "{description}", "points": "{extra.points}"},
              "label": "{name} ({extra.points} points)",
              "size": ["{image.full.width}", "{image.full.height}"],
              "flag": true
            }}}
            """)
        let result = sandbox.run("export", "--layout", "layout.json")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout == """
                {
                  "t": {
                    "bull": {"flag": true},
                    "hairy-harry": {"about": {"points": "10", "text": "A bull"}, "flag": true, "label": "Hairy Harry (10 points)", "size": [1024, 768]},
                    "plain": {"flag": true}
                  }
                }

                """)
    }

    // MARK: - Helpers

    /// Adds, changes and deletes a few treasures at random.
    private func mutate(
        _ box: Sandbox, _ workspace: Workspace, round: Int, random: inout SeededGenerator
    ) throws {
        let fixture = workspace.fixture
        let keys = try workspace.testDatabase.query("SELECT key FROM treasures ORDER BY key") {
            $0.text(0) ?? ""
        }
        // As a writer does: what it inserts it marks itself (updates and deletions are
        // marked by the workspace's triggers).
        try workspace.write {
            for index in 0..<Int(random.next() % 4) {
                let key = "t\(round)-\(index)-\(random.next() % 1000)"
                try fixture.addTreasure(
                    key, name: "N\(random.next() % 9)",
                    lat: Double(random.next() % 180_000) / 1000 - 90,
                    lon: Double(random.next() % 360_000) / 1000 - 180)
                workspace.markChanged(.treasure, key)
            }
        }
        var removed: [String] = []
        for key in keys {
            switch random.next() % 6 {
            case 0: removed.append(key)
            case 1: try fixture.editTreasure(key, name: "Renamed \(random.next() % 100)")
            case 2: try fixture.editTreasure(key, lat: Double(random.next() % 1000) / 17)
            default: continue
            }
        }
        if !removed.isEmpty {
            #expect(box.run(["treasures", "rm", "-q"] + removed).status == 0)
        }
    }
}

enum Golden {
    static let flatirongo = """
        {
          "treasureLocations": {
            "bull": {".priority": "dr5ref1ngh", "g": "dr5ref1ngh", "l": [40.70553, -74.01339]},
            "hairy-harry": {".priority": "dr5regw3pp", "g": "dr5regw3pp", "l": [40.7128, -74.006]},
            "plain": {".priority": "sbj4ugp29n", "g": "sbj4ugp29n", "l": [0.5, 41]}
          },
          "treasureProfiles": {
            "bull": {"imageURL": "https://example.com/bull.jpg", "name": "Bull"},
            "hairy-harry": {"imageURL": "https://firebasestorage.googleapis.com/v0/b/flatiron-go.appspot.com/o/treasures%2Fhairy-harry%2Ffull-3fa2c9e1.png?alt=media", "name": "Hairy Harry"},
            "plain": {"name": "Plain \\"quoted\\" ✓"}
          }
        }

        """

    static let trashmapper = """
        {
          "locationIndex": {
            "p1": {".priority": "dr5rs14yej", "g": "dr5rs14yej", "l": [40.7, -74]},
            "p4": {".priority": "gcpuvpkcpr", "g": "gcpuvpkcpr", "l": [51.5, -0.125]}
          },
          "locations": {
            "p1": {"date": "2024-01-24T10:00:00Z", "description": "Bottles", "lat": 40.7, "lon": -74, "photoURL": "https://firebasestorage.googleapis.com/v0/b/flatiron-go.appspot.com/o/posts%2Fp1%2Ffull-0badf00d.jpg?alt=media", "user": "alice"},
            "p4": {"date": "2024-02-01T08:30:00Z", "lat": 51.5, "lon": -0.125, "user": "bob"}
          },
          "users": {
            "alice": {
              "taggedLocations": {
                "p1": true
              }
            },
            "bob": {
              "taggedLocations": {
                "p4": true
              }
            }
          }
        }

        """
}
