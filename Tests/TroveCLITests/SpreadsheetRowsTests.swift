import Foundation
import Testing

@testable import TroveCLI
@_spi(Testing) @testable import TroveStore

/// What spreadsheets write besides the data: blank rows of delimiters, locale decimal
/// commas, yes/no words.
@Suite struct SpreadsheetRowsTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        #expect(sandbox.run("init").status == 0)
    }

    func keys() throws -> [String] {
        try Workspace.testDatabase(at: sandbox.workspace).query(
            "SELECT key FROM treasures ORDER BY key"
        ) {
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

    /// Skipped rows that name their keys keep only those treasures: --sync still removes
    /// the rows deleted from the file.
    @Test func syncRemovesWhatIsGoneWhenTheSkippedRowsHaveKeys() throws {
        try sandbox.write("k.csv", "key,name,lat,lon\na,A,40.1,-74\nb,B,40.2,-74\nc,C,40.3,-74\n")
        #expect(sandbox.run("import", "treasures", "k.csv").status == 0)
        try sandbox.write("k.csv", "key,name,lat,lon\na,A,40.1,-74\nc,C,north,-74\n")
        for run in 1...2 {
            let result = sandbox.run("import", "treasures", "k.csv", "--sync", "--skip-invalid")
            #expect(result.status == 1)
            #expect(
                result.stderr.contains(
                    "kept 1 treasure of k.csv whose row was skipped: c; fix the row and run "
                        + "--sync again"), "\(result.stderr)")
            #expect(
                result.stderr.contains("removed 1 treasure no longer in k.csv: b") == (run == 1),
                "\(result.stderr)")
            #expect(try keys() == ["a", "c"])
        }
    }

    /// A header typo drops a column from every treasure: the import says so, each time
    /// until the file has it again.
    @Test func aColumnTheLastImportHadIsNamed() throws {
        try sandbox.write("t.csv", "name,lat,lon,Points,team\nAda,40.7,-74.0,5,red\n")
        #expect(sandbox.run("import", "treasures", "t.csv").status == 0)
        try sandbox.write("t.csv", "name,lat,lon,Pionts\nAda,40.7,-74.0,5\n")
        for _ in 1...2 {
            let result = sandbox.run("import", "treasures", "t.csv", "--dry-run")
            #expect(result.status == 0)
            #expect(
                result.stderr.hasPrefix(
                    """
                    t.csv:1: warning[T221]: the column 'Points' of the file's last import is gone; \
                    did you mean 'Pionts'? (the treasures no longer have it, and layouts write \
                    nothing for {extra.Points})
                    t.csv:1: warning[T221]: the column 'team' of the file's last import is gone \
                    (the treasures no longer have it, and layouts write nothing for {extra.team})
                    would import 1 treasures (0 new, 1 updated, 0 unchanged) from t.csv

                    """), "\(result.stderr)")
        }
        try sandbox.write("t.csv", "name,lat,lon,points,team\nAda,40.7,-74.0,5,red\n")
        #expect(
            sandbox.run("import", "treasures", "t.csv").stderr == """
                t.csv:1: warning[T221]: the column 'Points' of the file's last import is gone; \
                did you mean 'points'? (only the case differs) (the treasures no longer have it, \
                and layouts write nothing for {extra.Points})
                imported 1 treasures (0 new, 1 updated, 0 unchanged) from t.csv

                """)
        #expect(
            sandbox.run("import", "treasures", "t.csv").stderr
                == "imported 1 treasures (0 new, 0 updated, 1 unchanged) from t.csv\n")
    }
}

/// Numbers and yes/no as European spreadsheets write them.
@Suite struct LocaleTests {
    let sandbox: Sandbox

    static let layout = """
        {"records": "treasures", "paths": {"t/{key}": {
            "lat": "{lat}", "points": "{extra.points:number}", "open": "{extra.open:bool}"}}}
        """

    init() throws {
        sandbox = try Sandbox()
        #expect(sandbox.run("init").status == 0)
        try sandbox.write("layout.json", Self.layout)
    }

    /// Excel's French "Unicode Text": UTF-16 LE with a BOM, tab-separated, decimal commas.
    @Test func frenchUnicodeTextImportsWithDecimalCommas() throws {
        let text =
            "name\tlat\tlon\tpoints\topen\r\nMontréal\t45,5227\t-73,5673\t12,5\tVRAI\r\n"
            + "Québec\t46,8139\t-71,2080\t3\tfaux\r\n"
        var bytes: [UInt8] = [0xFF, 0xFE]
        for unit in text.utf16 { bytes += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        try sandbox.write("villes.txt", Data(bytes))
        let result = sandbox.run("import", "treasures", "villes.txt")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(sandbox.run("geohash").status == 0)
        let export = sandbox.run("export", "--layout", "layout.json")
        #expect(export.status == 0, "\(export.stderr)")
        let tree = try ExportSupport.parse(export.stdout)
        #expect(
            tree
                == (try ExportSupport.parse(
                    """
                    {"t": {"montreal": {"lat": 45.5227, "open": true, "points": 12.5},
                           "quebec": {"lat": 46.8139, "open": false, "points": 3}}}
                    """)))
    }

    @Test(arguments: [
        ("wahr", true), ("FALSCH", false), ("sí", true), ("No", false), ("ja", true),
        ("Nein", false), ("oui", true), ("NON", false), ("yes", true), ("0", false),
    ])
    func boolTakesTheUsualWords(word: String, value: Bool) throws {
        try sandbox.write("t.csv", "name;lat;lon;points;open\nA;40,7;-74;12,5;\(word)\n")
        #expect(sandbox.run("import", "treasures", "t.csv").status == 0)
        #expect(sandbox.run("geohash").status == 0)
        let export = sandbox.run("export", "--layout", "layout.json")
        #expect(export.stdout.contains("\"open\": \(value)"), "\(export.stdout) \(export.stderr)")
        #expect(export.stdout.contains("\"points\": 12.5"))
    }

    /// Every language whose false is read has its true read too, capitals of any script
    /// included.
    @Test(arguments: [
        ("VERDADEIRO", true), ("falso", false), ("SIM", true), ("NÃO", false), ("Não", false),
        ("nao", false), ("VERO", true), ("Sì", true), ("sann", true), ("USANN", false),
        ("Nei", false), ("sant", true), ("falskt", false), ("SAND", true), ("falsk", false),
    ])
    func boolReadsEachLanguageBothWays(word: String, value: Bool) throws {
        try sandbox.write("t.csv", "name;lat;lon;points;open\nA;40,7;-74;12,5;\(word)\n")
        #expect(sandbox.run("import", "treasures", "t.csv").status == 0)
        #expect(sandbox.run("geohash").status == 0)
        let export = sandbox.run("export", "--layout", "layout.json")
        #expect(export.status == 0, "\(export.stderr)")
        #expect(export.stdout.contains("\"open\": \(value)"), "\(export.stdout) \(export.stderr)")
    }

    /// In a comma-separated file, "12,5" is not a number: a comma there may be a
    /// thousands separator.
    @Test func commaFilesKeepTheirCommasOutOfNumbers() throws {
        try sandbox.write("t.csv", "name,lat,lon,points,open\nA,40.7,-74,\"12,5\",yes\n")
        #expect(sandbox.run("import", "treasures", "t.csv").status == 0)
        #expect(sandbox.run("geohash").status == 0)
        let export = sandbox.run("export", "--layout", "layout.json")
        #expect(export.status != 0)
        #expect(export.stderr.contains("extra column 'points' holds \"12,5\", not a number"))
    }
}
