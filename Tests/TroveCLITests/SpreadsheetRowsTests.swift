import Foundation
import Testing
import TroveSQLite

@testable import TroveCLI

/// What spreadsheets write besides the data: blank rows of delimiters, locale decimal
/// commas, yes/no words.
@Suite struct SpreadsheetRowsTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        #expect(sandbox.run("init").status == 0)
    }

    func keys() throws -> [String] {
        try Database(path: sandbox.workspace).query("SELECT key FROM treasures ORDER BY key") {
            $0.text(0) ?? ""
        }
    }

    @Test func rowsOfOnlyDelimitersAreSkippedAndCounted() throws {
        try sandbox.write(
            "t.csv",
            "name,lat,lon,points\r\nAda,40.7,-74.0,5\r\n,,,\r\nBo,40.71,-74.01,6\r\n,,,\r\n,,,\r\n")
        for _ in 1...2 {
            let result = sandbox.run("import", "treasures", "t.csv")
            #expect(result.status == 0)
            #expect(
                result.stderr.hasSuffix(
                    "from t.csv; skipped 3 blank rows (only delimiters)\n"))
        }
        #expect(try keys() == ["ada", "bo"])
        // Bo deleted; the blank rows stay: --sync still removes.
        try sandbox.write("t.csv", "name,lat,lon,points\nAda,40.7,-74.0,5\n,,,\n")
        let synced = sandbox.run("import", "treasures", "t.csv", "--sync")
        #expect(synced.status == 0)
        #expect(
            synced.stderr == """
                imported 1 treasures (0 new, 0 updated, 1 unchanged) from t.csv; skipped 1 blank \
                row (only delimiters)
                removed 1 treasure no longer in t.csv: bo

                """)
        #expect(try keys() == ["ada"])
        #expect(sandbox.run("validate", "t.csv").status == 0)
    }
}
