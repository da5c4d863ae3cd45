import Foundation
import Testing
import TroveSQLite

@testable import TroveBase
@testable import TroveCLI
@_spi(Testing) @testable import TroveStore

@Suite struct ImportTreasuresTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        sandbox.run("init")
    }

    /// Everything a treasure row stores, for before/after comparisons.
    func snapshot() throws -> [String] {
        let database = try Workspace.testDatabase(at: sandbox.workspace)
        return try database.query(
            """
            SELECT t.key, name, lat, lon, description, image, extra, geohash
            FROM treasures AS t LEFT JOIN treasure_geohashes AS g ON g.key = t.key
            ORDER BY t.key
            """
        ) { row in (0..<8).map { plain(row[$0]) }.joined(separator: "|") }
    }

    @Test func importsCSVAndReportsTheSummary() throws {
        try sandbox.write(
            "treasures.csv",
            "key,name,lat,lon,image,description,points\n"
                + "hairy-harry,Hairy Harry,40.705576,-74.013421,art/harry.png,"
                + "\"Guards the bull, \"\"mostly\"\"\",50\n"
                + "007,  Spaced Name ,40.7,-74.0,,,7\n")
        let result = sandbox.run("import", "treasures", "treasures.csv")
        #expect(result.status == 0)
        #expect(
            result.stderr == """
                treasures.csv:3: warning[T207]: 1 key is all digits (007); Firebase turns an \
                object whose keys are all such numbers into an array (prefix them, e.g. 't007', \
                give a key column, or import with --ignore-numeric-ids to key those rows by \
                their names)
                imported 2 treasures (2 new, 0 updated, 0 unchanged) from treasures.csv

                """)
        let rows = try snapshot()
        #expect(rows.count == 2)
        #expect(rows[0] == "007|  Spaced Name |40.7|-74.0|NULL|NULL|{\"points\":\"7\"}|NULL")
        let harry = sandbox.path("art/harry.png")
        #expect(
            rows[1]
                == "hairy-harry|Hairy Harry|40.705576|-74.013421|Guards the bull, \"mostly\"|"
                + "\(harry)|{\"points\":\"50\"}|NULL")
    }

    @Test func reimportingChangesNothingAndCountsUpdates() throws {
        try sandbox.write("a.csv", "name,lat,lon\nHairy Harry,40.7,-74.0\nHairy Harry,40.8,-74.1\n")
        #expect(sandbox.run("import", "treasures", "a.csv").status == 0)
        let again = sandbox.run("import", "treasures", "a.csv", "--format", "json")
        #expect(
            again.stdout
                == "{\"new\": 0, \"updated\": 0, \"unchanged\": 2, \"skipped\": 0, "
                + "\"removed\": 0, \"no_longer_in_file\": 0}\n")
        #expect(
            try snapshot().map { $0.split(separator: "|")[0] } == ["hairy-harry", "hairy-harry-2"])
        try sandbox.write("a.csv", "name,lat,lon\nHairy Harry,40.7,-74.0\nHairy Harry,40.9,-74.1\n")
        let changed = sandbox.run("import", "treasures", "a.csv", "--format", "json")
        #expect(
            changed.stdout
                == "{\"new\": 0, \"updated\": 1, \"unchanged\": 1, \"skipped\": 0, "
                + "\"removed\": 0, \"no_longer_in_file\": 0}\n")
    }

    @Test func aKeyRepeatedInTheFirstImportKeepsItsLastRowAndCountsAnUpdate() throws {
        // Into an empty workspace the first use of a key is a plain insert; its second use
        // in the same file must still update, and a second file still upserts.
        try sandbox.write(
            "a.csv", "key,name,lat,lon\nk,First,1,1\nm,Other,2,2\nk,Second,3,3\n")
        let first = sandbox.run("import", "treasures", "a.csv", "--format", "json")
        #expect(first.status == 0)
        #expect(first.stdout.hasPrefix("{\"new\": 2, \"updated\": 1, \"unchanged\": 0,"))
        #expect(
            try snapshot() == [
                "k|Second|3.0|3.0|NULL|NULL|NULL|NULL", "m|Other|2.0|2.0|NULL|NULL|NULL|NULL",
            ])
        try sandbox.write("b.csv", "key,name,lat,lon\nm,Other,2,2\nn,New,4,4\n")
        let second = sandbox.run("import", "treasures", "b.csv", "--format", "json")
        #expect(second.stdout.hasPrefix("{\"new\": 1, \"updated\": 0, \"unchanged\": 1,"))
        #expect(try snapshot().count == 3)
    }

    @Test func aBigFirstImportStoresEveryRowWithItsLine() throws {
        // More rows than one chunk of inserts, with a repeated key between two chunks.
        var lines = ["key,name,lat,lon,description"]
        for index in 0..<100 {
            lines.append("k\(index),Name \(index),\(Double(index) / 10),1.5,d\(index)")
            if index == 40 { lines.append("k7,Seven Again,7,7,") }
        }
        try sandbox.write("big.csv", lines.joined(separator: "\n") + "\n")
        let result = sandbox.run("import", "treasures", "big.csv", "--format", "json")
        #expect(result.stdout.hasPrefix("{\"new\": 100, \"updated\": 1, \"unchanged\": 0,"))
        let database = try Workspace.testDatabase(at: sandbox.workspace)
        let rows = try database.query(
            "SELECT key, name, lat, description, source_line FROM treasures ORDER BY source_line"
        ) { row in (0..<5).map { plain(row[$0]) }.joined(separator: "|") }
        var expected: [String] = []
        for index in 0..<100 where index != 7 {
            let line = index + 2 + (index > 40 ? 1 : 0)
            expected.append("k\(index)|Name \(index)|\(Double(index) / 10)|d\(index)|\(line)")
        }
        expected.insert("k7|Seven Again|7.0|NULL|43", at: 40)
        #expect(rows == expected)
        let sources = try database.query("SELECT DISTINCT source FROM treasures") { plain($0[0]) }
        #expect(sources.count == 1 && sources[0] != "NULL")
    }

    @Test func twoFilesOfTheFirstImportShareTheirKeys() throws {
        try sandbox.write("a.csv", "key,name,lat,lon\nk,First,1,1\n")
        try sandbox.write("b.csv", "key,name,lat,lon\nk,Moved,5,5\nn,New,4,4\n")
        let result = sandbox.run("import", "treasures", "a.csv", "b.csv", "--format", "json")
        #expect(result.status == 0)
        #expect(try snapshot().first == "k|Moved|5.0|5.0|NULL|NULL|NULL|NULL")
        #expect(try snapshot().count == 2)
    }

    @Test func movingATreasureMakesItsGeohashStale() throws {
        try sandbox.write("a.csv", "key,name,lat,lon\nk,A,50,50\nm,B,1,1\n")
        sandbox.run("import", "treasures", "a.csv")
        sandbox.run("geohash")
        #expect(try snapshot()[0].hasSuffix("|v0gs3y0zh7"))
        try sandbox.write("a.csv", "key,name,lat,lon\nk,A,50,50.1\nm,B Renamed,1,1\n")
        sandbox.run("import", "treasures", "a.csv")
        #expect(sandbox.run("status", "--format", "json").stdout.contains("\"geohash_stale\": 1"))
        #expect(sandbox.run("validate").stdout.contains("a.csv:2: warning[T131]"))
        let again = sandbox.run("geohash", "--format", "json")
        #expect(again.stdout == "{\"treasures\": 1, \"posts\": 0}\n")
        let moved = Geohash.encode(latitude: 50, longitude: 50.1, precision: 10)
        #expect(moved != "v0gs3y0zh7")
        #expect(try snapshot()[0].hasSuffix("|" + moved))
    }

    @Test(arguments: [
        ("k,A,140.2,3\n", "bad.csv:3:", "T101"),
        ("k,A,40,-190\n", "bad.csv:3:", "T102"),
        ("k,A,NaN,3\n", "bad.csv:3:", "T103"),
        ("k,A,north,3\n", "bad.csv:3:", "T103"),
        ("k,,40,3\n", "bad.csv:3:", "T104"),
        ("k,A,,3\n", "bad.csv:3:", "T105"),
        ("a.b,A,40,3\n", "bad.csv:3:", "T106"),
        ("k,A,40,3,extra\n", "bad.csv:3:", "T108"),
        ("j,\"B,40,3\nk,A,1,2\n", "bad.csv:3:", "T109"),
    ])
    func badCSVRowsStopTheImportAndChangeNothing(row: String, location: String, code: String)
        throws
    {
        try sandbox.write("good.csv", "key,name,lat,lon\nkeep,Keep,1,2\n")
        sandbox.run("import", "treasures", "good.csv")
        let before = try snapshot()
        try sandbox.write("bad.csv", "key,name,lat,lon\nfine,Fine,3,4\n" + row)
        let result = sandbox.run("import", "treasures", "bad.csv")
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stderr.hasPrefix(location), "\(result.stderr)")
        #expect(result.stderr.contains(code), "\(result.stderr)")
        #expect(result.stderr.contains("nothing was imported"))
        #expect(try snapshot() == before)
    }

    @Test func aMissingColumnNamesTheFile() throws {
        try sandbox.write("bad.csv", "key,name,lat\nk,A,40\n")
        let result = sandbox.run("import", "treasures", "bad.csv")
        #expect(result.status == 3)
        #expect(result.stderr.hasPrefix("bad.csv:1"), "\(result.stderr)")
        #expect(result.stderr.contains("T107"))
        #expect(try snapshot().isEmpty)
    }

    @Test func nonUTF8TextIsRefusedUnlessAnEncodingIsGiven() throws {
        var bytes = Array("key,name,lat,lon\nk,Caf".utf8)
        bytes += [0xE9]
        bytes += Array(",40,3\n".utf8)
        try sandbox.write("cp.csv", Data(bytes))
        let refused = sandbox.run("import", "treasures", "cp.csv")
        #expect(refused.status == 3)
        #expect(refused.stderr.hasPrefix("cp.csv:2"))
        #expect(refused.stderr.contains("--encoding"))
        #expect(try snapshot().isEmpty)
        #expect(sandbox.run("import", "treasures", "cp.csv", "--encoding", "cp1252").status == 0)
        #expect(try snapshot()[0].hasPrefix("k|Café|"))
    }

    @Test(arguments: [
        (
            #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"LineString","coordinates":[[1,2],[3,4]]},"properties":{"name":"A"}}]}"#,
            "T111"
        ),
        (
            #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"name":"A"}},"#,
            "T112"
        ),
        (
            #"{"type":"Feature","geometry":{"type":"Point","coordinates":[200,2]},"properties":{"name":"A"}}"#,
            "T102"
        ),
    ])
    func badGeoJSONStopsTheImport(text: String, code: String) throws {
        try sandbox.write("bad.geojson", text)
        let result = sandbox.run("import", "treasures", "bad.geojson")
        #expect(result.status == 3)
        #expect(result.stderr.hasPrefix("bad.geojson:"), "\(result.stderr)")
        #expect(result.stderr.contains(code), "\(result.stderr)")
        #expect(try snapshot().isEmpty)
    }

    @Test func importsGeoJSONVariants() throws {
        try sandbox.write(
            "one.geojson",
            #"{"type":"Feature","id":"bull","geometry":{"type":"Point","coordinates":[-74.013421,40.705576]},"properties":{"title":"Bull","points":5}}"#
        )
        try sandbox.write(
            "lines.geojson",
            #"{"type":"Feature","geometry":{"type":"Point","coordinates":[1.5,2.5]},"properties":{"name":"Line One"}}"#
                + "\n"
                + #"{"type":"Feature","geometry":{"type":"Point","coordinates":[3.5,4.5]},"properties":{"name":"Line Two"}}"#
                + "\n")
        let result = sandbox.run("import", "treasures", "one.geojson", "lines.geojson")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            try snapshot() == [
                "bull|Bull|40.705576|-74.013421|NULL|NULL|{\"points\":5}|NULL",
                "line-one|Line One|2.5|1.5|NULL|NULL|NULL|NULL",
                "line-two|Line Two|4.5|3.5|NULL|NULL|NULL|NULL",
            ])
    }

    @Test func skipInvalidImportsTheRestWritesRejectsAndExitsOne() throws {
        try sandbox.write("mixed.csv", "name,lat,lon\nGood,1,2\nBad,95,2\nAlso Good,3,4\n")
        let result = sandbox.run(
            "import", "treasures", "mixed.csv", "--skip-invalid", "--rejects", "rejects.csv")
        #expect(result.status == 1)
        #expect(result.stderr.contains("mixed.csv:3:"))
        #expect(result.stderr.contains("skipped 1 invalid rows"))
        #expect(try snapshot().count == 2)
        let rejects = try String(contentsOfFile: sandbox.path("rejects.csv"), encoding: .utf8)
        #expect(
            rejects.hasPrefix("file,line,feature,code,reason,name,lat,lon\r\nmixed.csv,3,,T101,"))
        #expect(rejects.hasSuffix(",Bad,95,2\r\n"))
    }

    @Test func dryRunReportsButWritesNothing() throws {
        try sandbox.write("a.csv", "name,lat,lon\nA,1,2\n")
        let result = sandbox.run("import", "treasures", "a.csv", "--dry-run")
        #expect(result.status == 0)
        #expect(result.stderr.hasPrefix("would import 1 treasures (1 new"))
        #expect(try snapshot().isEmpty)
    }

    @Test func readsStandardInputWithFrom() throws {
        let missing = sandbox.run("import", "treasures", "-", stdin: "name,lat,lon\nA,1,2\n")
        #expect(missing.status == 2)
        let result = sandbox.run(
            "import", "treasures", "-", "--from", "csv", stdin: "name,lat,lon\nA,1,2\n")
        #expect(result.status == 0)
        #expect(result.stderr.hasSuffix("from <stdin>\n"))
        #expect(try snapshot().count == 1)
        // Standard input is one source, whatever the run: the same rows again change nothing.
        let again = sandbox.run(
            "import", "treasures", "-", "--from", "csv", "--format", "json",
            stdin: "name,lat,lon\nA,1,2\n")
        #expect(again.stdout.hasPrefix("{\"new\": 0, \"updated\": 0, \"unchanged\": 1,"))
        let geojson = sandbox.run(
            "import", "treasures", "-", "--from", "geojson",
            stdin: #"{"type":"Feature","geometry":{"type":"Point","coordinates":[3,4]},"#
                + #""properties":{"name":"B","image":"art/b.png"}}"#)
        #expect(geojson.status == 0)
        #expect(
            try snapshot().last
                == "b|B|4.0|3.0|NULL|\(sandbox.path("art/b.png"))|NULL|NULL")
    }

    @Test func semicolonFilesWithDecimalCommas() throws {
        try sandbox.write("eu.csv", "\u{FEFF}name;lat;lon\r\nKöln;50,9375;6,9603\r\n")
        #expect(sandbox.run("import", "treasures", "eu.csv").status == 0)
        #expect(try snapshot() == ["koln|Köln|50.9375|6.9603|NULL|NULL|NULL|NULL"])
    }
}

/// A stored value as plain text, NULL for null.
func plain(_ value: SQLiteValue?) -> String {
    switch value {
    case nil: return "NULL"
    case .text(let text): return text
    case .real(let double): return "\(double)"
    case .integer(let int): return "\(int)"
    case .blob(let bytes): return "blob(\(bytes.count))"
    }
}
