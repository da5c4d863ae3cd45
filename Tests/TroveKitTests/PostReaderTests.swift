import Foundation
import Testing

@testable import TroveBase
@testable import TroveKit

@Suite struct PostReaderTests {
    @Test func csvHandlesQuotesNewlinesCRLFAndBOM() throws {
        let csv =
            "\u{FEFF}ID,User,Latitude,Longitude,Description,Date,Photo\r\n"
            + "p1,alice,40.7,-74.0,\"Cans, bottles and a \"\"sofa\"\"\",24Jan 2022,p1.jpg\r\n"
            + "p2,bob,40.8,-74.1,\"two\r\nlines\",2022-01-25,\r\n"
        let file = try PostReader.readCSV(Array(csv.utf8), name: "posts.csv")
        #expect(file.posts.count == 2)
        #expect(file.posts[0].description == "Cans, bottles and a \"sofa\"")
        #expect(file.posts[0].date == "2022-01-24")
        #expect(file.posts[0].photo == "p1.jpg")
        #expect(file.posts[1].description == "two\r\nlines")
        #expect(file.posts[1].photo == nil)
        #expect(file.posts[1].source == "posts.csv:3")
    }

    @Test(arguments: [
        ("24Jan 2022", "2022-01-24"), ("3 Feb 2021", "2021-02-03"),
        ("24 January 2022", "2022-01-24"), ("2022-01-24", "2022-01-24"),
        ("2022-01-24T10:15:00Z", "2022-01-24T10:15:00Z"),
        ("2022-01-24T12:15:00+02:00", "2022-01-24T10:15:00Z"),
        ("2022-01-24T10:15:00.123Z", "2022-01-24T10:15:00Z"),
        ("2022-01-24 10:15:00", "2022-01-24T10:15:00Z"),
        ("1643019300000", "2022-01-24T10:15:00Z"),
        // The stored shapes, read without a formatter.
        ("2024-02-29", "2024-02-29"), ("2000-02-29T23:59:59Z", "2000-02-29T23:59:59Z"),
        (" 2022-01-24T00:00:00Z ", "2022-01-24T00:00:00Z"),
    ])
    func datesAreNormalizedToISO8601(_ text: String, _ expected: String) {
        #expect(PostDate.normalize(text) == expected)
    }

    @Test(arguments: [
        "31Feb 2022", "yesterday", "2022-13-01", "24Foo 2022", "2022-02-29", "1900-02-29",
        "2022-04-31", "2022-00-10",
    ])
    func unknownDatesAreRefused(_ text: String) {
        #expect(PostDate.normalize(text) == nil)
    }

    /// Posts read CSV with the treasures' reader: what spreadsheets write reads the same.
    @Test func csvAsSpreadsheetsSaveIt() throws {
        // Excel's "Unicode Text": UTF-16 LE with a BOM, tab-separated.
        let text = "id\tlat\tlon\tdescription\r\np1\t40.7\t-74\tCafé crème\r\n"
        let utf16: [UInt8] =
            [0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let excel = try PostReader.readCSV(utf16, name: "posts.txt")
        #expect(excel.posts.map(\.description) == ["Café crème"])
        // A quoted header name with a line break and more commas than semicolons in it;
        // blank lines between rows; semicolons, as European spreadsheets write.
        let csv = "id;\"lat, north\n(deg)\";lon\n\np1;40,7;-74\n\np2;41;-75\n"
        #expect {
            try PostReader.readCSV(Array(csv.utf8), name: "posts.csv")
        } throws: { error in
            // The delimiter is ';' from the whole header; the lat column is not named so.
            "\(error)" == "posts.csv:1: missing column 'lat' "
                + "(the header needs id,user,lat,lon,description,date,photo)"
        }
        let fixed = "id;lat;lon\n\np1;40.7;-74\n\np2;41;-75\n"
        let posts = try PostReader.readCSV(Array(fixed.utf8), name: "posts.csv").posts
        #expect(posts.map(\.id) == ["p1", "p2"])
        #expect(posts.map(\.source) == ["posts.csv:3", "posts.csv:5"])
    }

    @Test func csvThatIsNotUTF8SaysHowToSaveIt() {
        let bytes = Array("id,lat,lon,description\np1,40.7,-74,caf".utf8) + [0xE9, 0x0A]
        #expect {
            try PostReader.readCSV(bytes, name: "posts.csv")
        } throws: { error in
            "\(error)" == "posts.csv:2: the text is not UTF-8 "
                + "(save the file as UTF-8 (or UTF-16 with a byte order mark))"
        }
    }

    @Test func badRowNamesFileAndLine() {
        let csv = "id,lat,lon\np1,40.7,-74\np2,abc,-74\n"
        #expect {
            try PostReader.readCSV(Array(csv.utf8), name: "posts.csv")
        } throws: { error in
            "\(error)".hasPrefix("posts.csv:3: latitude 'abc' is not a number")
        }
    }

    @Test func unterminatedQuoteNamesItsLine() {
        let csv = "id,lat,lon,description\np1,40.7,-74,\"never\nends\n"
        #expect {
            try PostReader.readCSV(Array(csv.utf8), name: "posts.csv")
        } throws: { error in
            "\(error)".hasPrefix("posts.csv:2:")
        }
    }

    @Test func nestedAndFlatTreesAreRead() throws {
        let json = """
            {"Users": {
               "alice": {"Email": "alice@example.com", "Password": "hunter2",
                 "TaggedLocations": {
                   "p1": {"Latitude": 1.5, "Longitude": 2.5, "LocationDescription": "a",
                          "Date": "24Jan 2022", "photoURL": "x.jpg"},
                   "p2": true}}},
             "Locations": {
               "p2": {"lat": "3.5", "lng": "4.5", "description": "b"},
               "p3": {"latitude": 5, "longitude": 6, "userId": "carol"}}}
            """
        let file = try PostReader.readJSON(Data(json.utf8), name: "export.json")
        #expect(file.posts.map(\.id) == ["p1", "p2", "p3"])
        #expect(file.posts.map(\.user) == ["alice", "alice", "carol"])
        #expect(file.posts[1].latitude == 3.5)
        #expect(file.posts[0].photo == "x.jpg")
        #expect(file.droppedPasswords == 1)
        #expect(file.droppedEmails == 1)
    }

    @Test func jsonErrorsNameThePath() {
        let json = #"{"Locations": {"p1": {"lat": "north", "lon": 2}}}"#
        #expect {
            try PostReader.readJSON(Data(json.utf8), name: "export.json")
        } throws: { error in
            "\(error)".hasPrefix("export.json: Locations/p1/lat: latitude 'north'")
        }
    }

    @Test func emailAddressesNeverReachAPost() throws {
        let lines = """
            {"id": "p1", "user": "dave@example.org", "lat": 1, "lon": 2, "password": "pw",
             "description": "write to eve@example.net or frank@example,com"}
            """.replacingOccurrences(of: "\n ", with: " ")
        let file = try PostReader.readLines(Array(lines.utf8), name: "posts.ndjson")
        let post = try #require(file.posts.first)
        #expect(post.user?.hasPrefix("user-") == true)
        #expect(post.description == "write to [e-mail removed] or [e-mail removed]")
        #expect(file.droppedEmails == 3)
        #expect(file.droppedPasswords == 1)
    }

    @Test func illegalFirebaseKeysAreRefused() {
        let csv = "id,lat,lon\na.b,1,2\n"
        #expect(throws: InputError.self) {
            try PostReader.readCSV(Array(csv.utf8), name: "posts.csv")
        }
    }
}

@Suite struct PhotoResolverTests {
    let folder: URL
    let photos: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "trove-photos-\(UUID().uuidString)")
        photos = folder.appendingPathComponent("photos")
        try FileManager.default.createDirectory(
            at: photos.appendingPathComponent("images"), withIntermediateDirectories: true)
        try Data([1]).write(to: photos.appendingPathComponent("images/p1.jpg"))
        try Data([2]).write(to: folder.appendingPathComponent("secret.jpg"))
        try FileManager.default.createSymbolicLink(
            atPath: photos.appendingPathComponent("link.jpg").path,
            withDestinationPath: folder.appendingPathComponent("secret.jpg").path)
    }

    @Test func referencesInsideResolve() throws {
        let resolver = try #require(PhotoResolver(folder: photos.path))
        guard case .file(let path) = resolver.resolve("images/p1.jpg") else {
            Issue.record("not resolved")
            return
        }
        #expect(path.hasSuffix("/photos/images/p1.jpg"))
        let url =
            "https://firebasestorage.googleapis.com/v0/b/app.appspot.com/o/images%2Fp1.jpg"
            + "?alt=media&token=abc"
        #expect(resolver.resolve(url) == .file(path))
    }

    @Test(arguments: ["../secret.jpg", "images/../../secret.jpg", "link.jpg", "/etc/passwd"])
    func referencesLeavingTheFolderAreRefused(_ reference: String) throws {
        let resolver = try #require(PhotoResolver(folder: photos.path))
        guard case .refused = resolver.resolve(reference) else {
            Issue.record("\(reference) was not refused")
            return
        }
    }

    @Test func absolutePathToTheSecretIsRefused() throws {
        let resolver = try #require(PhotoResolver(folder: photos.path))
        let secret = folder.appendingPathComponent("secret.jpg").path
        guard case .refused = resolver.resolve(secret) else {
            Issue.record("absolute path was not refused")
            return
        }
        let encoded = "https://x.example/o/..%2F..%2Fsecret.jpg"
        guard case .refused = resolver.resolve(encoded) else {
            Issue.record("encoded traversal was not refused")
            return
        }
    }
}

/// A parsed tree (a page of the live database) is read as its text would be: the same
/// posts, counts, rejects and refusals as the stream gives for the tree written out.
@Suite struct PostTreeReadingTests {
    static let trees = [
        #"{"Locations": {"b": {"Latitude": 1, "Longitude": 2, "uid": "u"}, "a": {"lat": 3, "lon": 4}}}"#,
        #"{"Users": {"u1": {"email": "a@b.c", "password": "x", "displayName": "Ann", "profile": {"userName": "ann", "deep": {"email": "q"}}, "TaggedLocations": {"p1": {"lat": 1, "lon": 2, "description": "mail a@b.c"}, "p2": true}}}, "Locations": {"p2": {"lat": 5, "lon": 6}}}"#,
        // Arrays with gaps, a repeated name at each level, a user that is not an object.
        #"{"Locations": [null, {"lat": 1, "lon": 2}, null, {"lat": 3, "lon": 4}], "Users": ["x", {"TaggedLocations": [{"lat": 7, "lon": 8}]}], "Locations": {"z": {"lat": 1, "lon": 1}, "z": {"lat": 2, "lon": 2}}}"#,
        #"{"Users": {"u": {"TaggedLocations": {"p": {"lat": 1, "lon": 2}}}, "u": {"TaggedLocations": {"q": {"lat": 3, "lon": 4}}}}, "Other": {"big": [1, {"a": "b"}]}}"#,
        // Records that cannot become posts, and one that is not an object.
        #"{"Locations": {"ok": {"lat": 1, "lon": 2}, "bad": {"lat": "north", "lon": 2}, "nope": 3, "no.dot": {"lat": 1, "lon": 2}}}"#,
        #"{"locations": {"l": {"l": [1.5, 2.5], "date": 1643019300000, "photo": "https://x/y.jpg"}}}"#,
        #"{"Nothing": {}}"#,
    ]

    func outcome(_ read: () throws(InputError) -> PostFile) -> String {
        do throws(InputError) {
            let file = try read()
            return "\(file.posts) \(file.droppedPasswords) \(file.droppedEmails) "
                + "\(file.droppedNames) \(file.rejects)"
        } catch {
            return "error: \(error)"
        }
    }

    @Test(arguments: trees, [false, true])
    func aParsedTreeReadsAsItsText(text: String, skipInvalid: Bool) throws {
        var parser = JSONParser(Array(text.utf8))
        let tree = try parser.parseValue()
        let read = outcome { () throws(InputError) in
            try PostReader.readTree(tree, name: "live", skipInvalid: skipInvalid)
        }
        let streamed = outcome { () throws(InputError) in
            try PostReader.readJSON(
                Data(tree.jsonText.utf8), name: "live", skipInvalid: skipInvalid)
        }
        #expect(read == streamed)
        #expect(!read.isEmpty)
    }

    @Test(arguments: ["record", "name", "passed over"])
    func aValueLongerThanTheLimitIsRefusedAsInItsText(place: String) throws {
        let long = String(repeating: "\"", count: RecordLimit.bytes / 2)
        let tree: JSONValue =
            switch place {
            case "record":
                .object([
                    JSONMember(
                        name: "Locations",
                        value: .object([
                            JSONMember(
                                name: "p",
                                value: .object([JSONMember(name: "d", value: .string(long))]))
                        ]))
                ])
            case "name":
                .object([
                    JSONMember(
                        name: "Locations", value: .object([JSONMember(name: long, value: .null)]))
                ])
            default:
                .object([
                    JSONMember(name: "Other", value: .array([.string(long)])),
                    JSONMember(name: "Locations", value: .object([])),
                ])
            }
        let read = outcome { () throws(InputError) in try PostReader.readTree(tree, name: "live") }
        let streamed = outcome { () throws(InputError) in
            try PostReader.readJSON(Data(tree.jsonText.utf8), name: "live")
        }
        #expect(read.contains("is longer than 10 MB"), "\(read.prefix(200))")
        #expect(read == streamed)
    }
}
