import Foundation
import Testing
import TroveBase
@_spi(Testing) import TroveKit

@testable import TroveCLI
@testable import TroveCommandLine
@_spi(Testing) @testable import TroveStore

/// Layout placeholders checked against the columns the treasures really have.
@Suite struct DataChecksTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        #expect(sandbox.run("init").status == 0)
        try sandbox.write("t.csv", "name,lat,lon,city,state\nAda,40.7,-74.0,NYC,NY\n")
        #expect(sandbox.run("import", "treasures", "t.csv").status == 0)
        #expect(sandbox.run("geohash").status == 0)
        try sandbox.write(
            "layout.json",
            """
            {"records": "treasures", "paths": {"t/{key}": {
                "city": "{extra.ciyt}", "state": "{extra.State}", "n": "{name}"}}}
            """)
    }

    static let warnings = """
        layout.json: warning[T222]: {extra.ciyt} in 't/{key}' names a column no treasure has; \
        did you mean 'city'? (no record writes anything for it)
        layout.json: warning[T222]: {extra.State} in 't/{key}' names a column no treasure \
        has; did you mean 'state'? (only the case differs) (no record writes anything for it)

        """

    @Test func exportWarnsAboutColumnsNoRecordHas() throws {
        for _ in 1...2 {
            let result = sandbox.run("export", "--layout", "layout.json")
            #expect(result.status == 0)
            #expect(
                result.stderr.hasPrefix(
                    Self.warnings.replacingOccurrences(
                        of: "layout.json", with: sandbox.path("layout.json"))), "\(result.stderr)")
        }
    }

    @Test func validateWithALayoutWarnsToo() throws {
        let result = sandbox.run("validate", "--layout", "layout.json")
        #expect(result.status == 0)
        #expect(
            result.stdout
                == Self.warnings.replacingOccurrences(
                    of: "layout.json", with: sandbox.path("layout.json")))
        #expect(result.stderr == "0 errors, 2 warnings\n")
        #expect(sandbox.run("validate", "--layout", "layout.json", "--strict").status == 1)
    }

    /// A workspace from before the columns were recorded: the treasures' own extras say.
    @Test func columnsComeFromTheTreasuresWhereNoneWereRecorded() throws {
        let database = try Workspace.testDatabase(at: sandbox.workspace)
        try database.execute("UPDATE sources SET columns = NULL")
        let result = sandbox.run("export", "--layout", "layout.json")
        #expect(result.stderr.contains("did you mean 'city'?"))
    }
}

/// T203 judges a point by its neighbours: remote towns of a world file are not suspects.
@Suite struct SwappedNeighbourTests {
    @Test func aWorldFileHasNoSwappedSuspectsButAFlippedTownIsOne() throws {
        let sandbox = try Sandbox()
        // Towns on every continent, some close to where another would land exchanged.
        var rows = ["name,lat,lon"]
        let towns: [(String, Double, Double)] = [
            ("Reykjavik", 64.1466, -21.9426), ("Nuuk", 64.1814, -51.6941),
            ("Lagos", 6.5244, 3.3792), ("Accra", 5.6037, -0.1870), ("Lome", 6.1319, 1.2228),
            ("Cotonou", 6.3703, 2.3912), ("Porto-Novo", 6.4969, 2.6289),
            ("Nairobi", -1.2921, 36.8219), ("Perth", -31.9523, 115.8613),
            ("Ushuaia", -54.8019, -68.3030), ("Honolulu", 21.3069, -157.8583),
            ("Tromso", 69.6492, 18.9553), ("Longyearbyen", 78.2232, 15.6267),
        ]
        for (name, lat, lon) in towns { rows.append("\(name),\(lat),\(lon)") }
        try sandbox.write("world.csv", rows.joined(separator: "\n") + "\n")
        let clean = sandbox.run("validate", "world.csv")
        #expect(!clean.stdout.contains("T203"), "\(clean.stdout)")
        // Porto-Novo written lon,lat lands in the Gulf, far from all, next to Lome swapped
        // back: that one is reported.
        rows.append("Flipped,2.3912,6.3703")
        try sandbox.write("world.csv", rows.joined(separator: "\n") + "\n")
        let flipped = sandbox.run("validate", "world.csv")
        #expect(
            flipped.stdout.contains(
                "world.csv:15: warning[T203]: coordinates look swapped (lon/lat): [2.3912, "
                    + "6.3703] has no other treasure within 500 km"), "\(flipped.stdout)")
        #expect(flipped.stdout.components(separatedBy: "T203").count == 2)
    }
}
