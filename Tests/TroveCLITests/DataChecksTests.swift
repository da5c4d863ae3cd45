import Foundation
import Testing

import TroveSQLite

@testable import TroveCLI

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
            #expect(result.stderr.hasPrefix(Self.warnings.replacingOccurrences(
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
        let database = try TroveSQLite.Database(path: sandbox.workspace)
        try database.execute("UPDATE sources SET columns = NULL")
        let result = sandbox.run("export", "--layout", "layout.json")
        #expect(result.stderr.contains("did you mean 'city'?"))
    }
}
