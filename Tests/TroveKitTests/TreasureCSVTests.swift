import Foundation
import Testing

@testable import TroveBase
@testable import TroveKit
@testable import TroveStore

@Suite struct TreasureCSVTests {
    let folder = TemporaryFolder()

    func rows(_ text: String, name: String = "treasures.csv", encoding: TextEncoding = .utf8)
        throws -> [TreasureRow]
    {
        let path = try folder.write(text, to: name)
        return try readTreasures(path, displayPath: name, encoding: encoding)
    }

    // MARK: - Mapping

    @Test func mapsColumnsToTreasures() throws {
        let rows = try rows(
            #"""
            key,name,lat,lon,image,description,points,colour
            007,"Hairy Harry, the first",40.7128,-74.0060,art/harry.png,"He says ""boo""",10,red

            """#)
        let expected = TreasureInput(
            key: "007", name: "Hairy Harry, the first", latitude: 40.7128, longitude: -74.0060,
            image: "art/harry.png", description: "He says \"boo\"",
            extra: [
                ExtraField(name: "points", value: "10"), ExtraField(name: "colour", value: "red"),
            ],
            location: .init(file: "treasures.csv", line: 2, key: "007"))
        #expect(rows == [.treasure(expected)])
    }

    /// Image paths are kept absolute and tidy, worked out from the file's folder as text:
    /// the same answer `URL.standardized` gives, for files that exist or not.
    @Test(arguments: [
        ("art/harry.png", "/data/game/art/harry.png"),
        ("./art//harry.png", "/data/game/art/harry.png"),
        ("../shared/art/harry.png", "/data/shared/art/harry.png"),
        ("../../../../harry.png", "/harry.png"),
        ("/srv/./art/../art/harry.png", "/srv/art/harry.png"),
        ("art/", "/data/game/art"),
        ("HTTPS://cdn.example.com/a/../harry.png", "HTTPS://cdn.example.com/a/../harry.png"),
    ])
    func imagePathsResolveAgainstTheFilesFolder(image: String, resolved: String) throws {
        let source = TreasureFileImport.Source(
            path: "/data/game/t.csv", displayPath: "t.csv", baseFolder: "/data/game",
            format: .csv)
        #expect(TreasureFileImport.resolveImage(image, in: source) == resolved)
        if !image.lowercased().hasPrefix("https:") {
            let url =
                image.hasPrefix("/")
                ? URL(fileURLWithPath: image)
                : URL(fileURLWithPath: "/data/game").appendingPathComponent(image)
            #expect(url.standardizedFileURL.path == resolved)
        }
        #expect(TreasureFileImport.resolveImage("", in: source) == nil)
    }

    @Test(arguments: [
        "id,title,latitude,longitude,image_path,description",
        "ID,Title,Y,X,imageURL,Description",
        "key,NAME,Lat,Lng,photo,description",
        "key,name,lat,long,Image,description",
        " key , name ,lat,lon,image,description",
    ])
    func headerAliasesAreMatchedCaseInsensitively(header: String) throws {
        let rows = try rows(header + "\nk1,Name,1.5,2.5,a.png,About\n")
        let treasure = try #require(rows.first?.treasure)
        #expect(treasure.key == "k1")
        #expect(treasure.name == "Name")
        #expect(treasure.latitude == 1.5)
        #expect(treasure.longitude == 2.5)
        #expect(treasure.image == "a.png")
        #expect(treasure.description == "About")
        #expect(treasure.extra.isEmpty)
    }

    @Test func textStaysExactlyAsWritten() throws {
        let rows = try rows("key,name,lat,lon,note\n  007 ,  Café\u{301} ,1,2, x \n")
        let treasure = try #require(rows.first?.treasure)
        #expect(treasure.key == "  007 ")
        #expect(treasure.name == "  Café\u{301} ")
        #expect(treasure.name.unicodeScalars.count == 8)
        #expect(treasure.extra == [ExtraField(name: "note", value: " x ")])
    }

    @Test func emptyOptionalValuesAreAbsentButExtrasAreKept() throws {
        let rows = try rows("key,name,lat,lon,image,description,extra\n,N,1,2,,,\n")
        let treasure = try #require(rows.first?.treasure)
        #expect(treasure.key == nil)
        #expect(treasure.image == nil)
        #expect(treasure.description == nil)
        #expect(treasure.extra == [ExtraField(name: "extra", value: "")])
        #expect(treasure.location == Diagnostic.Location(file: "treasures.csv", line: 2))
    }

    @Test func keyColumnBeatsIdAlias() throws {
        let rows = try rows("id,name,lat,lon,key\nfrom-id,N,1,2,from-key\n")
        let treasure = try #require(rows.first?.treasure)
        #expect(treasure.key == "from-key")
        #expect(treasure.extra == [ExtraField(name: "id", value: "from-id")])
    }

    @Test func semicolonFilesReadDecimalCommas() throws {
        let rows = try rows("name;lat;lon\nA;40,7128;-74,0060\nB;1.25;-2.5\n")
        #expect(rows.map { $0.treasure?.latitude } == [40.7128, 1.25])
        #expect(rows.map { $0.treasure?.longitude } == [-74.0060, -2.5])
    }

    @Test func decimalCommaIsAnErrorInCommaFiles() throws {
        // A comma file has no decimal commas: quoted to stay one field, `40,7` is text.
        let rows = try rows("name,lat,lon\nA,\"40,7\",1\n")
        #expect(rows.first?.diagnostic?.code == DiagnosticCode.notANumber)
    }

    @Test func tabSeparatedFilesAreRead() throws {
        let rows = try rows("name\tlat\tlon\nA, B\t1\t2\n", name: "t.tsv")
        #expect(rows.first?.treasure?.name == "A, B")
    }

    @Test func cp1252TextIsTranscodedWhenAsked() throws {
        let bytes = Array("name,lat,lon\nCaf".utf8) + [0xE9, 0x20, 0x80] + Array(",1,2\n".utf8)
        let path = try folder.write(bytes, to: "w.csv")
        let rows = try readTreasures(path, encoding: .cp1252)
        #expect(rows.first?.treasure?.name == "Café €")
    }

    @Test func invalidUTF8IsAFileErrorNamingTheLine() throws {
        let bytes = Array("name,lat,lon\nok,1,2\nCaf".utf8) + [0xE9] + Array(",1,2\n".utf8)
        let path = try folder.write(bytes, to: "w.csv")
        let error = #expect(throws: TreasureFileError.self) {
            try readTreasures(path, displayPath: "w.csv")
        }
        #expect(error?.code == DiagnosticCode.invalidEncoding)
        #expect(error?.location == Diagnostic.Location(file: "w.csv", line: 3))
        #expect(error?.description.contains("--encoding cp1252") == true)
    }

    @Test func readsStandardInputStyleDescriptors() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let text = Array("name,lat,lon\nA,1,2\n".utf8)
        _ = text.withUnsafeBytes { Foundation.write(ends[1], $0.baseAddress, $0.count) }
        close(ends[1])
        defer { close(ends[0]) }
        var reader = try TreasureReader(
            fileDescriptor: ends[0], format: .csv, displayPath: "<stdin>")
        let treasure = try #require(try reader.next()?.treasure)
        #expect(treasure.location == Diagnostic.Location(file: "<stdin>", line: 2))
        #expect(try reader.next() == nil)
    }

    @Test func treasuresReadTheSameWhateverTheChunkSize() throws {
        var text = "key;name;lat;lon;note\r\n"
        for row in 0..<50 {
            text += "k\(row);\"Name\n\(row); \"\"quoted\"\"\";\(row % 90),5;-\(row),25;x\r\n"
        }
        let path = try folder.write(text, to: "c.csv")
        let expected = try readTreasures(path, displayPath: "c.csv")
        #expect(expected.count == 50)
        #expect(expected.last?.treasure?.location.line == 100)
        for chunkSize in [1, 7, 64] {
            let descriptor = open(path, O_RDONLY)
            defer { close(descriptor) }
            var reader = try TreasureReader(
                fileDescriptor: descriptor, format: .csv, displayPath: "c.csv", chunkSize: chunkSize
            )
            var rows: [TreasureRow] = []
            while let row = try reader.next() { rows.append(row) }
            #expect(rows == expected, "chunk \(chunkSize)")
        }
    }

    // MARK: - Row problems

    static let badRows: [(String, String, Int?)] = [
        ("k,,1,2", DiagnosticCode.missingName, 2),
        ("k,N,,2", DiagnosticCode.missingPosition, 3),
        ("k,N,1,", DiagnosticCode.missingPosition, 4),
        ("k,N,abc,2", DiagnosticCode.notANumber, 3),
        ("k,N,NaN,2", DiagnosticCode.notANumber, 3),
        ("k,N,1,-Infinity", DiagnosticCode.notANumber, 4),
        ("k,N,inf,2", DiagnosticCode.notANumber, 3),
        ("k,N,0x1A,2", DiagnosticCode.notANumber, 3),
        ("k,N,1e999,2", DiagnosticCode.notANumber, 3),
        ("k,N,1.2.3,2", DiagnosticCode.notANumber, 3),
        ("k,N,90.0001,2", DiagnosticCode.latitudeOutOfRange, 3),
        ("k,N,-91,2", DiagnosticCode.latitudeOutOfRange, 3),
        ("k,N,1,180.5", DiagnosticCode.longitudeOutOfRange, 4),
        ("k,N,1,-181", DiagnosticCode.longitudeOutOfRange, 4),
        ("a.b,N,1,2", DiagnosticCode.illegalKey, 1),
        ("a$b,N,1,2", DiagnosticCode.illegalKey, 1),
        ("a#b,N,1,2", DiagnosticCode.illegalKey, 1),
        ("a[b,N,1,2", DiagnosticCode.illegalKey, 1),
        ("a]b,N,1,2", DiagnosticCode.illegalKey, 1),
        ("a/b,N,1,2", DiagnosticCode.illegalKey, 1),
        ("\"a\tb\",N,1,2", DiagnosticCode.illegalKey, 1),
        ("\"a\u{7F}b\",N,1,2", DiagnosticCode.illegalKey, 1),
        (String(repeating: "é", count: 385) + ",N,1,2", DiagnosticCode.illegalKey, 1),
        ("k,N,1", DiagnosticCode.raggedRow, nil),
        ("k,N,1,2,3", DiagnosticCode.raggedRow, nil),
    ]

    @Test(arguments: badRows)
    func badRowsGiveTheirCodeAndFileLineColumn(row: String, code: String, column: Int?) throws {
        let rows = try rows("key,name,lat,lon\nok,Good,1,2\n" + row + "\nok2,Good,3,4\n")
        #expect(rows.count == 3)
        let diagnostic = try #require(rows[1].diagnostic)
        #expect(diagnostic.code == code)
        #expect(diagnostic.severity == .error)
        #expect(diagnostic.location.file == "treasures.csv")
        #expect(diagnostic.location.line == 3)
        #expect(diagnostic.location.column == column)
        #expect(diagnostic.compilerStyle.hasPrefix("treasures.csv:3"))
        // The rows around it still read.
        #expect(rows[0].treasure != nil && rows[2].treasure != nil)
    }

    @Test func messagesReadWell() throws {
        let rows = try rows("name,lat,lon,extra\nA,140.2,1,x\nB,1,2\n")
        #expect(
            rows[0].diagnostic?.compilerStyle
                == "treasures.csv:2:2: error[T101]: latitude 140.2 is outside [-90, 90]")
        #expect(rows[1].diagnostic?.message == "row has 3 fields, the header has 4")
    }

    @Test(arguments: ["768", "1", "007"])
    func legalKeysPass(length: String) throws {
        let key = length == "768" ? String(repeating: "k", count: 768) : length
        #expect(try rows("key,name,lat,lon\n\(key),N,1,2\n").first?.treasure?.key == key)
    }

    @Test(arguments: [
        ("+1.5", 1.5), ("-0", -0.0), (" 2 ", 2), ("1e1", 10), (".5", 0.5), ("5.", 5), ("90", 90),
        ("-90", -90),
    ])
    func acceptedNumberForms(text: String, value: Double) throws {
        #expect(try rows("name,lat,lon\nN,\(text),0\n").first?.treasure?.latitude == value)
    }

    @Test func boundaryCoordinatesAreInRange() throws {
        let rows = try rows("name,lat,lon\nA,90,180\nB,-90,-180\n")
        #expect(rows.allSatisfy { $0.treasure != nil })
    }

    // MARK: - File problems

    @Test func missingColumnListsTheHeaderFound() throws {
        let error = #expect(throws: TreasureFileError.self) {
            try rows("name,latitude,east\nA,1,2\n")
        }
        #expect(error?.code == DiagnosticCode.missingColumn)
        #expect(error?.diagnostic.code == DiagnosticCode.missingColumn)
        #expect(error?.location == Diagnostic.Location(file: "treasures.csv", line: 1))
        #expect(
            error?.message == "there is no 'lon' column; the header has 'name', 'latitude', 'east'")
    }

    @Test func everyMissingColumnIsNamedAtOnce() throws {
        let error = #expect(throws: TreasureFileError.self) {
            try rows("Title ,Breite,Länge\nA,1,2\n")
        }
        #expect(
            error?.message
                == "there are no 'lat' and 'lon' columns; the header has 'Title ', 'Breite', 'Länge'"
        )
        #expect(
            error?.hint
                == "name them 'lat' or 'latitude' or 'y'; 'lon' or 'lng' or 'long' or 'longitude' or 'x'"
        )
        let all = #expect(throws: TreasureFileError.self) { try rows("a,b\n1,2\n") }
        #expect(all?.message.hasPrefix("there are no 'name', 'lat' and 'lon' columns") == true)
    }

    @Test func emptyFileIsAMissingColumnError() throws {
        let error = #expect(throws: TreasureFileError.self) { try rows("") }
        #expect(error?.code == DiagnosticCode.missingColumn)
    }

    @Test func unterminatedQuoteIsAFileError() throws {
        let error = #expect(throws: TreasureFileError.self) {
            try rows("name,lat,lon\nA,1,2\n\"B,1,2\nC,3,4\n")
        }
        #expect(error?.code == DiagnosticCode.unterminatedQuote)
        #expect(error?.location.line == 3)
        #expect(error?.description.hasPrefix("treasures.csv:3: ") == true)
    }

    @Test func missingFileIsAnUnreadableFileError() throws {
        let error = #expect(throws: TreasureFileError.self) {
            try readTreasures(
                folder.url.appendingPathComponent("none.csv").path, displayPath: "none.csv")
        }
        #expect(error?.code == nil)
        #expect(error?.diagnostic.code == DiagnosticCode.unreadableFile)
        #expect(error?.description.hasPrefix("none.csv: cannot read the file") == true)
    }

    @Test(arguments: [
        ("a.csv", TreasureFormat.csv), ("a.TSV", .csv), ("a.geojson", .geojson),
        ("a.json", .geojson),
        ("a.ndjson", .geojson),
    ])
    func formatFollowsTheExtension(name: String, format: TreasureFormat) {
        #expect(TreasureFormat(path: name) == format)
    }

    @Test func unknownExtensionIsSniffed() throws {
        let json = try folder.write(
            #"{"type":"Feature","geometry":{"type":"Point","coordinates":[2,1]},"properties":{"name":"A"}}"#,
            to: "a.data")
        #expect(try TreasureReader(path: json).format == .geojson)
        let csv = try folder.write("name,lat,lon\n", to: "b.data")
        #expect(try TreasureReader(path: csv).format == .csv)
    }

    @Test func headerNamesAreMadeUniqueLikeCsvkit() {
        #expect(
            CSVTreasureSource.uniqueNames(["points", "dup", "dup", "", "", "dup_2", "column_5"])
                == ["points", "dup", "dup_3", "column_4", "column_5_2", "dup_2", "column_5"])
    }
}
