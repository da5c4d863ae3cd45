import Foundation
import Testing

@testable import TroveCLI
@_spi(Testing) @testable import TroveStore

/// Compressed and binary files: gzip read as what it holds, the others named with what
/// to do, never parsed as text.
@Suite struct FileSignatureTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        #expect(sandbox.run("init").status == 0)
    }

    /// gzip through the system's own tool, as a user's file would be made.
    func gzip(_ name: String, _ text: String) throws {
        try sandbox.write(name, text)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-f", sandbox.path(name)]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    @Test func gzipFilesAreReadAsWhatTheyHold() throws {
        var csv = "name,lat,lon\n"
        for index in 0..<5000 { csv += "Car \(index),45.\(index),-73.5\n" }
        try gzip("carshare.csv", csv)
        try gzip(
            "election.geojson",
            """
            {"type": "FeatureCollection", "features": [{"type": "Feature",
             "geometry": {"type": "Point", "coordinates": [2.35, 48.85]},
             "properties": {"name": "Paris"}}]}
            """)
        for run in 1...2 {
            let result = sandbox.run(
                "import", "treasures", "carshare.csv.gz", "election.geojson.gz")
            #expect(result.status == 0, "\(result.stderr)")
            let new = run == 1 ? 5000 : 0
            #expect(
                result.stderr == """
                    imported 5000 treasures (\(new) new, 0 updated, \(5000 - new) unchanged) \
                    from carshare.csv.gz
                    imported 1 treasures (\(run == 1 ? 1 : 0) new, 0 updated, \(run - 1) \
                    unchanged) from election.geojson.gz

                    """)
        }
        #expect(sandbox.run("validate", "carshare.csv.gz").status == 0)
    }

    @Test func rejectsOfAGzipFileHoldTheirRows() throws {
        try gzip("cars.csv", "name,lat,lon,points\nGood,45.5,-73.5,1\nBad,north,-73.5,2\n")
        let result = sandbox.run(
            "import", "treasures", "cars.csv.gz", "--skip-invalid", "--rejects", "rejects.csv")
        #expect(result.status == 1)
        let rejects = try String(contentsOfFile: sandbox.path("rejects.csv"), encoding: .utf8)
        // Records end with CRLF, as every CSV trove writes.
        #expect(
            rejects
                == "file,line,feature,code,reason,name,lat,lon,points\r\n"
                + "cars.csv.gz,3,,T103,latitude 'north' is not a number,Bad,north,-73.5,2\r\n")
    }

    @Test func truncatedGzipIsUnreadableAndChangesNothing() throws {
        var csv = "name,lat,lon\n"
        for index in 0..<3000 { csv += "Car \(index),45.\(index),-73.5\n" }
        try gzip("cars.csv", csv)
        let whole = try Data(contentsOf: URL(fileURLWithPath: sandbox.path("cars.csv.gz")))
        try sandbox.write("cars.csv.gz", whole.prefix(whole.count / 2))
        let result = sandbox.run("import", "treasures", "cars.csv.gz")
        #expect(result.status == 3)
        #expect(result.stderr.contains("the gzip data ends early"), "\(result.stderr)")
        #expect(
            try Workspace.testDatabase(at: sandbox.workspace).scalar(
                "SELECT count(*) FROM treasures")?.int64
                == 0)
    }

    static let zipHeader: [UInt8] = [0x50, 0x4B, 0x03, 0x04, 0x14, 0, 0, 0, 8, 0]

    @Test(
        arguments: [
            (
                "mtl.xlsx", zipHeader + Array("[Content_Types].xml xl/workbook.xml".utf8),
                "this is an Excel workbook (.xlsx), not a CSV or GeoJSON file (save it as CSV UTF-8"
            ),
            (
                "data.zip", zipHeader + Array("cities.csv".utf8),
                "this is a zip archive, not a CSV or GeoJSON file (unzip it"
            ),
            (
                "old.xls", [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1, 0, 0],
                "this is an Excel 97-2003 workbook (.xls), not a CSV or GeoJSON file"
            ),
            (
                "scan.csv", [0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0],
                "this is a TIFF image, not a CSV or GeoJSON file (convert it to PNG or JPEG)"
            ),
            (
                "odd.csv", Array("name,lat\u{0}\u{0}".utf8),
                "this is a binary file, not CSV or GeoJSON text"
            ),
        ] as [(String, [UInt8], String)])
    func binaryFilesAreNamed(name: String, bytes: [UInt8], message: String) throws {
        try sandbox.write(name, Data(bytes))
        let result = sandbox.run("import", "treasures", name, "--encoding", "cp1252")
        #expect(result.status == 3)
        #expect(result.stderr.hasPrefix("\(name): error[T100]: \(message)"), "\(result.stderr)")
        #expect(!result.stderr.contains("--encoding"))
        #expect(sandbox.run("validate", name).status == 3)
    }

    /// csvkit's `null_byte.csv`: one NUL inside a quoted field of an otherwise textual file
    /// is not a binary file. The field is read with its NUL, as text is stored as given;
    /// a terminal shows it escaped, JSON as \u0000.
    @Test func aNulInsideOneFieldIsReadWithTheRest() throws {
        try sandbox.write(
            "null_byte.csv", "key,name,lat,lon\na,\"Al\u{0}pha\",40.7,-74\nb,Beta,41,-74\n")
        let result = sandbox.run("import", "treasures", "null_byte.csv")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("imported 2 treasures"))
        let listing = sandbox.run("treasures", "list", "--format", "json")
        #expect(listing.stdout.contains("\"name\": \"Al\\u0000pha\""), "\(listing.stdout)")
    }
}
