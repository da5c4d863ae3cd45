import Foundation
import Testing

@testable import TroveCLI
@_spi(Testing) @testable import TroveStore

/// A designer's file edited over time: renames, deletions, moves and additions reach the
/// workspace with `--sync` and Firebase with `export --update`.
@Suite struct SyncTests {
    let sandbox: Sandbox

    /// Treasure profiles, GeoFire locations and a nested per-team index, so removals must
    /// reach paths two levels down too.
    static let layout = """
        {
          "records": "treasures",
          "paths": {
            "treasureLocations/{key}": {"g": "{geohash}", "l": ["{lat}", "{lon}"]},
            "treasureProfiles/{key}": {"name": "{name}", "points": "{extra.points}"},
            "teams/{extra.team}/members/{key}": true
          }
        }
        """

    static let original = """
        name,lat,lon,points,team
        Hairy Harry,40.705576,-74.013421,50,red
        Flatiron Fred,40.741061,-73.989699,30,blue
        Wall Street Wanda,40.706,-74.009,20,red
        Battery Bella,40.703,-74.017,10,blue
        Empire Eddie,40.748,-73.985,5,red
        Chelsea Chad,40.746,-74.001,15,blue

        """

    /// Harry renamed to Harriet (no key column: the row keeps Harry's key, as it stands where
    /// Harry stood with his image), Wanda and Eddie deleted, Bella moved, Nora added; Fred
    /// and Chad untouched but on other lines now.
    static let edited = """
        name,lat,lon,points,team
        Flatiron Fred,40.741061,-73.989699,30,blue
        Hairy Harriet,40.705576,-74.013421,50,red
        Battery Bella,40.713,-74.017,10,blue
        Chelsea Chad,40.746,-74.001,15,blue
        Nolita Nora,40.723,-73.996,25,red

        """

    init() throws {
        sandbox = try Sandbox()
        #expect(sandbox.run("init").status == 0)
        try sandbox.write("layout.json", Self.layout)
        try sandbox.write("treasures.csv", Self.original)
        #expect(sandbox.run("import", "treasures", "treasures.csv").status == 0)
        #expect(sandbox.run("geohash").status == 0)
        #expect(sandbox.run("export", "--layout", "layout.json", "--out", "full.json").status == 0)
    }

    func exportTree() throws -> ExportJSON {
        let result = sandbox.run("export", "--layout", "layout.json")
        #expect(result.status == 0, "\(result.stderr)")
        return try ExportSupport.parse(result.stdout)
    }

    func keys() throws -> [String] {
        try Workspace.testDatabase(at: sandbox.workspace).query(
            "SELECT key FROM treasures ORDER BY key"
        ) {
            $0.text(0) ?? ""
        }
    }

    @Test func editedFileWithoutSyncSaysWhatIsNoLongerInIt() throws {
        try sandbox.write("treasures.csv", Self.edited)
        let result = sandbox.run("import", "treasures", "treasures.csv")
        #expect(result.status == 0)
        #expect(
            result.stderr == """
                imported 5 treasures (1 new, 2 updated, 2 unchanged) from treasures.csv
                2 treasures of treasures.csv are no longer in it (empire-eddie, \
                wall-street-wanda); run 'trove import treasures treasures.csv --sync' to remove \
                them

                """)
        // Nothing removed, but the gone treasures no longer claim a line of the file.
        #expect(try keys().count == 7)
        let lines = try Workspace.testDatabase(at: sandbox.workspace).query(
            "SELECT key, source_line FROM treasures ORDER BY key"
        ) { "\($0.text(0) ?? ""):\($0.int64(1).map(String.init) ?? "-")" }
        #expect(
            lines == [
                "battery-bella:4", "chelsea-chad:5", "empire-eddie:-", "flatiron-fred:2",
                "hairy-harry:3", "nolita-nora:6", "wall-street-wanda:-",
            ])
        // The second run says the same about what is gone.
        let again = sandbox.run("import", "treasures", "treasures.csv", "--format", "json")
        #expect(
            again.stdout
                == "{\"new\": 0, \"updated\": 0, \"unchanged\": 5, \"skipped\": 0, "
                + "\"removed\": 0, \"no_longer_in_file\": 2}\n")
    }

    @Test func syncedEditReachesFirebaseAsExactlyTheChangesAndNulls() throws {
        let before = try ExportSupport.parse(try ExportSupport.read(sandbox.path("full.json")))
        try sandbox.write("treasures.csv", Self.edited)

        let dryRun = sandbox.run("import", "treasures", "treasures.csv", "--sync", "--dry-run")
        #expect(dryRun.status == 0)
        #expect(
            dryRun.stderr.hasSuffix(
                """
                would remove 2 treasures no longer in treasures.csv:
                  empire-eddie
                  wall-street-wanda

                """))
        #expect(try keys().count == 6)

        let synced = sandbox.run("import", "treasures", "treasures.csv", "--sync")
        #expect(synced.status == 0)
        #expect(!synced.stderr.contains("looks like a rename"))
        #expect(
            synced.stderr.hasSuffix(
                "removed 2 treasures no longer in treasures.csv: empire-eddie, "
                    + "wall-street-wanda\n"))
        #expect(
            try keys() == [
                "battery-bella", "chelsea-chad", "flatiron-fred", "hairy-harry", "nolita-nora",
            ])
        #expect(sandbox.run("geohash").status == 0)

        let export = sandbox.run(
            "export", "--layout", "layout.json", "--update", "--out", "update.json")
        #expect(export.status == 0, "\(export.stderr)")
        let update = try ExportSupport.parse(try ExportSupport.read(sandbox.path("update.json")))
        let members = try #require(update.objectValue)
        let values = members.filter { $0.value != .null }.keys.sorted()
        let nulls = members.filter { $0.value == .null }.keys.sorted()
        #expect(
            values == [
                "teams/red/members/nolita-nora", "treasureLocations/battery-bella",
                "treasureLocations/nolita-nora", "treasureProfiles/hairy-harry",
                "treasureProfiles/nolita-nora",
            ])
        #expect(
            nulls == [
                "teams/red/members/empire-eddie", "teams/red/members/wall-street-wanda",
                "treasureLocations/empire-eddie", "treasureLocations/wall-street-wanda",
                "treasureProfiles/empire-eddie", "treasureProfiles/wall-street-wanda",
            ])
        // Applied the way Firebase applies it, the update turns the old tree into the new.
        #expect(ExportSupport.apply(update, to: before) == (try exportTree()))

        // Second run: nothing left to sync, nothing left to update.
        let resynced = sandbox.run("import", "treasures", "treasures.csv", "--sync")
        #expect(
            resynced.stderr
                == "imported 5 treasures (0 new, 0 updated, 5 unchanged) from treasures.csv\n")
        #expect(
            sandbox.run("export", "--layout", "layout.json", "--update", "--out", "update.json")
                .status == 0)
        #expect(try ExportSupport.read(sandbox.path("update.json")) == "{}\n")
    }

    @Test func treasureMovedToAnotherFileIsNotGoneFromTheFirst() throws {
        try sandbox.write(
            "treasures.csv",
            Self.original.replacingOccurrences(
                of: "Chelsea Chad,40.746,", with: "X,40.7465,"))
        try sandbox.write("more.csv", "name,lat,lon\nChelsea Chad,40.746,-74.001\n")
        let result = sandbox.run(
            "import", "treasures", "treasures.csv", "more.csv", "--sync", "--format", "json")
        #expect(result.status == 0, "\(result.stderr)")
        // Chad now belongs to more.csv: not removed. X, elsewhere, is a treasure of its own.
        #expect(result.stdout.contains("\"removed\": 0"))
        #expect(try keys().contains("chelsea-chad"))
        #expect(try keys().contains("x"))
    }

    @Test func syncKeepsTreasuresWhenRowsOfTheFileWereSkipped() throws {
        try sandbox.write(
            "treasures.csv",
            Self.edited.replacingOccurrences(of: "40.723,", with: "north,"))
        let result = sandbox.run(
            "import", "treasures", "treasures.csv", "--sync", "--skip-invalid")
        #expect(result.status == 1)
        #expect(
            result.stderr.contains("kept 2 treasures of treasures.csv that are no longer in it"))
        #expect(try keys().count == 6)
    }

    @Test func importFromAnotherFolderIsTheSameFile() throws {
        try FileManager.default.createDirectory(
            atPath: sandbox.path("sub"), withIntermediateDirectories: true)
        try sandbox.write("treasures.csv", Self.edited)
        let result = sandbox.run(
            "-w", sandbox.workspace, "import", "treasures", "./sub/../treasures.csv", "--sync")
        #expect(result.status == 0)
        #expect(result.stderr.contains("removed 2 treasures no longer in ./sub/../treasures.csv"))
    }

    @Test func findingsPointAtTheCurrentLineAndNameAGoneRowByItsKey() throws {
        try sandbox.write("spots.csv", "name,lat,lon\nAda,40.7,-74.0\n Bo ,40.71,-74.01\nCy,0,0\n")
        #expect(sandbox.run("import", "treasures", "spots.csv").status == 0)
        #expect(sandbox.run("geohash").status == 0)
        #expect(
            sandbox.run("validate").stdout == """
                spots.csv:3: warning[T201]: name has surrounding spaces
                spots.csv:4: warning[T202]: position is (0, 0), "Null Island": usually a missing value

                """)
        // A row added above moves Bo down; Cy's row is deleted but not synced.
        try sandbox.write(
            "spots.csv", "name,lat,lon\nNew,40.72,-74.02\nAda,40.7,-74.0\n Bo ,40.71,-74.01\n")
        #expect(sandbox.run("import", "treasures", "spots.csv").status == 0)
        #expect(sandbox.run("geohash").status == 0)
        #expect(
            sandbox.run("validate").stdout == """
                cy: warning[T202]: position is (0, 0), "Null Island": usually a missing value
                spots.csv:4: warning[T201]: name has surrounding spaces

                """)
        #expect(sandbox.run("import", "treasures", "spots.csv", "--sync").status == 0)
        #expect(
            sandbox.run("validate").stdout
                == "spots.csv:4: warning[T201]: name has surrounding spaces\n")
    }

    /// A feature of a FeatureCollection has no line of its own: findings name its index,
    /// as the import's do, and follow it when features are added before it.
    @Test func findingsNameTheFeatureOfAFeatureCollection() throws {
        func collection(_ names: [String]) -> String {
            let features = names.enumerated().map { index, name in
                "{\"type\": \"Feature\", \"geometry\": {\"type\": \"Point\", "
                    + "\"coordinates\": [\(2 + Double(index) / 10), 48.8]}, "
                    + "\"properties\": {\"name\": \"\(name)\"}}"
            }
            return "{\"type\": \"FeatureCollection\", \"features\": [\n"
                + features.joined(separator: ",\n") + "\n]}\n"
        }
        try sandbox.write("spots.geojson", collection(["Ada", " Bo "]))
        #expect(sandbox.run("import", "treasures", "spots.geojson").status == 0)
        #expect(sandbox.run("geohash").status == 0)
        #expect(
            sandbox.run("validate").stdout
                == "spots.geojson:feature 1: warning[T201]: name has surrounding spaces\n")
        try sandbox.write("spots.geojson", collection(["New", "Ada", " Bo "]))
        #expect(sandbox.run("import", "treasures", "spots.geojson").status == 0)
        #expect(sandbox.run("geohash").status == 0)
        #expect(
            sandbox.run("validate").stdout
                == "spots.geojson:feature 2: warning[T201]: name has surrounding spaces\n")
    }
}
