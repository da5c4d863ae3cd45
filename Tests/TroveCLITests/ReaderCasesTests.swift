import Foundation
import Testing

@testable import TroveBase
@testable import TroveCLI
@_spi(Testing) @testable import TroveStore

/// Files as spreadsheets, GIS tools and exports really write them, read and exported.
@Suite struct ReaderCasesTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        sandbox.run("init")
    }

    /// Exports with a layout of `paths` (JSON text of the paths object) and returns stdout
    /// parsed, after checking that the export succeeded.
    func export(_ paths: String) throws -> ExportJSON {
        try sandbox.write("layout.json", #"{"records": "treasures", "paths": "# + paths + "}")
        #expect(sandbox.run("geohash").status == 0)
        let result = sandbox.run("export", "--layout", "layout.json")
        #expect(result.status == 0, "\(result.stderr)")
        return try ExportJSON(parsing: result.stdout)
    }

    /// The node at a slash-separated path of an exported tree.
    func node(_ tree: ExportJSON, _ path: String) -> ExportJSON? {
        var node: ExportJSON? = tree
        for segment in path.split(separator: "/") { node = node?.objectValue?[String(segment)] }
        return node
    }

    func storedExtra(_ key: String) throws -> String? {
        let database = try Workspace.testDatabase(at: sandbox.workspace)
        return try database.query("SELECT extra FROM treasures WHERE key = ?", [.text(key)]) {
            $0[0]?.string
        }.first ?? nil
    }

    static func feature(_ name: String, properties: String) -> String {
        #"{"type":"Feature","geometry":{"type":"Point","coordinates":[2.35,48.85]},"#
            + #""properties":{"name":"\#(name)",\#(properties)}}"#
    }

    // MARK: - Types survive

    @Test func geoJSONPropertiesKeepTheirJSONTypeIntoTheExport() throws {
        try sandbox.write(
            "t.geojson",
            Self.feature(
                "A",
                properties:
                    #""points":10,"ratio":1.5,"open":true,"tags":["a",2],"#
                    + #""more":{"b":1,"a":"x"},"zip":"007","gone":null"#))
        #expect(sandbox.run("import", "treasures", "t.geojson").status == 0)
        let tree = try export(
            #"{"t/{key}": {"p": "{extra.points}", "r": "{extra.ratio}", "o": "{extra.open}", "#
                + #""t": "{extra.tags}", "m": "{extra.more}", "z": "{extra.zip}", "#
                + #""g": "{extra.gone}", "s": "{extra.points} points"}}"#)
        #expect(
            node(tree, "t/a")
                == .object([
                    "p": .number(10), "r": .number(1.5), "o": .bool(true),
                    "t": .array([.string("a"), .number(2)]),
                    "m": .object(["a": .string("x"), "b": .number(1)]),
                    "z": .string("007"), "s": .string("10 points"),
                ]))
        // null is no value: not stored at all, not an empty string.
        #expect(try storedExtra("a")?.contains("gone") == false)
    }

    @Test func csvExtrasStayTextUnlessTheLayoutAsksForAType() throws {
        try sandbox.write(
            "t.csv", "key,name,lat,lon,points,zip,open\n007,A,1,2,10,007,yes\nb,B,1,2,2.50,,no\n")
        #expect(sandbox.run("import", "treasures", "t.csv").status == 0)
        let tree = try export(
            #"{"t/{key}": {"p": "{extra.points}", "i": "{extra.points:number}", "#
                + #""z": "{extra.zip}", "o": "{extra.open:bool}", "k": "{key}"}}"#)
        #expect(
            node(tree, "t/007")
                == .object([
                    "p": .string("10"), "i": .number(10), "z": .string("007"),
                    "o": .bool(true), "k": .string("007"),
                ]))
        #expect(
            node(tree, "t/b")
                == .object([
                    "p": .string("2.50"), "i": .number(2.5), "o": .bool(false),
                    "k": .string("b"),
                ]))
    }

    @Test func anIntPlaceholderExportsNumbersAndRefusesTextNamingRecordColumnAndValue() throws {
        try sandbox.write("t.csv", "key,name,lat,lon,points\na,A,1,2,10\nb,B,1,2,abc\n")
        #expect(sandbox.run("import", "treasures", "t.csv").status == 0)
        try sandbox.write(
            "layout.json", #"{"records": "treasures", "paths": {"t/{key}": "{extra.points:int}"}}"#)
        #expect(sandbox.run("geohash").status == 0)
        let refused = sandbox.run("export", "--layout", "layout.json", "--out", "out.json")
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("treasure b: extra column 'points' holds \"abc\""))
        #expect(refused.stderr.contains("not a whole number"))
        #expect(!FileManager.default.fileExists(atPath: sandbox.path("out.json")))

        try sandbox.write("t.csv", "key,name,lat,lon,points\na,A,1,2,10\nb,B,1,2,-3\n")
        #expect(sandbox.run("import", "treasures", "t.csv").status == 0)
        #expect(
            try export(#"{"t/{key}": "{extra.points:int}"}"#)
                == .object(["t": .object(["a": .number(10), "b": .number(-3)])]))
        let result = sandbox.run("export", "--layout", "layout.json")
        #expect(result.stdout.contains("\"a\": 10"), "\(result.stdout)")
    }

    // MARK: - Header names

    @Test func repeatedAndEmptyHeaderNamesAreMadeUniqueAndNothingIsDropped() throws {
        try sandbox.write(
            "t.csv", "name,lat,lon,points,dup,dup,,\nA,1,2,5,x,y,,\nB,1,2,6,u,v,w,\n")
        let imported = sandbox.run("import", "treasures", "t.csv")
        #expect(imported.status == 0, "\(imported.stderr)")
        let tree = try export(
            #"{"t/{key}": {"p": "{extra.points}", "d": "{extra.dup}", "d2": "{extra.dup_2}", "#
                + #""c": "{extra.column_7}"}}"#)
        #expect(
            node(tree, "t/a")
                == .object(["p": .string("5"), "d": .string("x"), "d2": .string("y")]))
        #expect(
            node(tree, "t/b")
                == .object([
                    "p": .string("6"), "d": .string("u"), "d2": .string("v"), "c": .string("w"),
                ]))
        // Empty values are not stored: trailing delimiters add nothing.
        #expect(try storedExtra("a") == #"{"points":"5","dup":"x","dup_2":"y"}"#)
    }

    @Test func columnNamesWithSpacesAccentsAndSlashesWorkAsPlaceholders() throws {
        try sandbox.write(
            "t.csv", "name,lat,lon,State Name,Café,a/b,time:zone\nA,1,2,New York,Flore,x,EST\n")
        #expect(sandbox.run("import", "treasures", "t.csv").status == 0)
        let tree = try export(
            #"{"t/{key}": {"s": "{extra.State Name}", "c": "in {extra.Café}", "#
                + #""ab": "{extra.a/b}", "tz": "{extra.time:zone}"}, "#
                + #""by/{extra.State Name}/{key}": "{extra.a/b}"}"#)
        #expect(
            node(tree, "t/a")
                == .object([
                    "s": .string("New York"), "c": .string("in Flore"), "ab": .string("x"),
                    "tz": .string("EST"),
                ]))
        #expect(node(tree, "by/New York/a") == .string("x"))
    }

    // MARK: - GeoJSON text forms

    @Test func aBrokenLineOfNewlineDelimitedGeoJSONIsOneInvalidRow() throws {
        let lines = [
            Self.feature("A", properties: #""n":1"#), #"{"type":"Feature","geometry":"#,
            Self.feature("C", properties: #""n":3"#),
        ]
        try sandbox.write("t.geojsonl", lines.joined(separator: "\n") + "\n")
        let refused = sandbox.run("import", "treasures", "t.geojsonl")
        #expect(refused.status == 3)
        #expect(refused.stderr.contains("t.geojsonl:2:"), "\(refused.stderr)")
        let skipped = sandbox.run("import", "treasures", "t.geojsonl", "--skip-invalid")
        #expect(skipped.status == 1)
        #expect(skipped.stderr.contains("t.geojsonl:2:"))
        #expect(skipped.stderr.contains("imported 2 treasures"))
    }

    @Test func rfc8142TextSequencesAreRead() throws {
        let text =
            "\u{1E}" + Self.feature("A", properties: #""n":1"#) + "\n\u{1E}"
            + Self.feature("B", properties: #""n":2"#) + "\n"
        try sandbox.write("t.geojsons", text)
        let result = sandbox.run("import", "treasures", "t.geojsons", "--from", "geojson")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("imported 2 treasures"))
        #expect(
            try export(#"{"t/{key}": "{extra.n}"}"#)
                == .object(["t": .object(["a": .number(1), "b": .number(2)])]))
    }

    // MARK: - UTF-16

    @Test(arguments: [false, true])
    func excelUnicodeTextIsRead(bigEndian: Bool) throws {
        let text = "name\tlat\tlon\tCafé\nÉtoile 🌟\t1\t2\tcrème\n"
        var bytes: [UInt8] = bigEndian ? [0xFE, 0xFF] : [0xFF, 0xFE]
        for unit in text.utf16 {
            bytes +=
                bigEndian
                ? [UInt8(unit >> 8), UInt8(unit & 0xFF)] : [UInt8(unit & 0xFF), UInt8(unit >> 8)]
        }
        try sandbox.write("t.txt", Data(bytes))
        let result = sandbox.run("import", "treasures", "t.txt")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            node(try export(#"{"t/{key}": {"n": "{name}", "c": "{extra.Café}"}}"#), "t/etoile")
                == .object(["n": .string("Étoile 🌟"), "c": .string("crème")]))
    }

    // MARK: - Messages

    @Test func controlCharactersInMessagesReadAsTyped() throws {
        try sandbox.write("t.csv", "key,name,lat,lon\n\"a\tb\",A,1,2\n")
        let result = sandbox.run("import", "treasures", "t.csv")
        #expect(result.status == 3)
        #expect(result.stderr.contains(#"key 'a\tb'"#), "\(result.stderr)")
        #expect(!result.stderr.contains("\\u{"))
    }

    // MARK: - Rejects

    @Test func rejectsHoldTheRowsThemselvesAndADryRunWritesNone() throws {
        try sandbox.write(
            "a.csv", "name,lat,lon,note,note\nGood,1,2,x,y\n\"Bad, row\",95,2,\"multi\nline\",z\n")
        try sandbox.write(
            "b.geojsonl",
            Self.feature("Fine", properties: #""n":1"#) + "\n" + #"{"type":"Feature","geometry":"#
                + "\n")
        let dry = sandbox.run(
            "import", "treasures", "a.csv", "b.geojsonl", "--skip-invalid", "--rejects", "r.csv",
            "--dry-run")
        #expect(dry.status == 1)
        #expect(!FileManager.default.fileExists(atPath: sandbox.path("r.csv")))

        let result = sandbox.run(
            "import", "treasures", "a.csv", "b.geojsonl", "--skip-invalid", "--rejects", "r.csv")
        #expect(result.status == 1)
        let path = sandbox.path("r.csv")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(
            text.hasPrefix("file,line,feature,code,reason,name,lat,lon,note,note_2,geojson\r\n"))
        // Read back as CSV: the rejected rows are there, field for field, to be fixed.
        var reader = try CSVReader(path: path)
        var records: [[String]] = []
        while let record = try reader.next() { records.append(record.fields) }
        #expect(records.count == 3)
        #expect(records[1].prefix(2) == ["a.csv", "3"])
        #expect(Array(records[1].suffix(6)) == ["Bad, row", "95", "2", "multi\nline", "z", ""])
        #expect(records[2].prefix(2) == ["b.geojsonl", "2"])
        #expect(records[2].last == #"{"type":"Feature","geometry":"#)
    }
}
