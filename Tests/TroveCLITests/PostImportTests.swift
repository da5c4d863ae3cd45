import Foundation
import Testing

@testable import TroveCLI
@_spi(Testing) @testable import TroveStore

@Suite struct PostImportTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        sandbox.run("init")
    }

    static let export = """
        {
          "Users": {
            "alice": {
              "Email": "alice.secret@example.com", "password": "hunter2-Sup3rSecret",
              "TaggedLocations": {
                "p1": {"Latitude": 40.7128, "Longitude": -74.006, "Date": "24Jan 2022",
                       "LocationDescription": "Bottles by the bench", "photoURL": "p1.jpg"},
                "p2": {"Latitude": 40.7300, "Longitude": -74.000, "Date": "2022-01-25",
                       "LocationDescription": "Mail me: carol.hidden@example.org",
                       "photoURL": "p2.jpg"}
              }
            },
            "bob@example.net": {"TaggedLocations": {"p3": true}, "pass": "letmein-0xBEEF"}
          },
          "Locations": {
            "p3": {"lat": 51.5, "lng": -0.12, "description": "Crisp packets", "date": "2022-02-01",
                   "photo": "https://firebasestorage.googleapis.com/v0/b/app/o/img%2Fp1.jpg?alt=media"}
          }
        }
        """

    func writeExport() throws {
        try sandbox.write("in/export.json", Self.export)
        try sandbox.write("in/photos/p1.jpg", PostPhotos.jpeg(seed: 1, gps: (40.7128, -74.006)))
        try sandbox.write("in/photos/p2.jpg", PostPhotos.jpeg(seed: 2, gps: (40.7500, -74.000)))
        try sandbox.write("in/photos/img/p1.jpg", PostPhotos.jpeg(seed: 1, gps: (40.7128, -74.006)))
    }

    func list(_ arguments: String...) throws -> [[String: Any]] {
        let result = sandbox.run(["review", "list", "--format", "json"] + arguments)
        #expect(result.status == 0, "\(result.stderr)")
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]
            ?? []
    }

    @Test func importsTheNestedTreeWithSignals() throws {
        try writeExport()
        let result = sandbox.run("import", "posts", "in/export.json", "--photos", "in/photos")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("imported 3 posts (3 new, 0 updated, 0 unchanged)"))
        #expect(result.stderr.contains("dropped 2 password fields and 3 e-mail addresses"))
        let posts = try list()
        try #require(posts.map { $0["id"] as? String } == ["p1", "p2", "p3"])
        #expect(posts[0]["date"] as? String == "2022-01-24")
        #expect(posts[0]["signals"] as? [String] == ["duplicate-photo"])
        #expect((posts[1]["signals"] as? [String])?.contains("exif-gps-mismatch") == true)
        let show = sandbox.run("review", "show", "p2")
        #expect(show.stdout.contains("exif-gps-mismatch: the photo was taken 2.2 km from"))
    }

    @Test func reimportIsIdempotent() throws {
        try writeExport()
        sandbox.run("import", "posts", "in/export.json", "--photos", "in/photos")
        let again = sandbox.run("import", "posts", "in/export.json", "--photos", "in/photos")
        #expect(again.stderr.contains("(0 new, 0 updated, 3 unchanged)"))
    }

    @Test func anUnchangedPostFollowsItsPhotosToTheirNewFolder() throws {
        try writeExport()
        sandbox.run("import", "posts", "in/export.json", "--photos", "in/photos")
        try FileManager.default.moveItem(
            atPath: sandbox.path("in/photos"), toPath: sandbox.path("in/pictures"))
        let again = sandbox.run("import", "posts", "in/export.json", "--photos", "in/pictures")
        #expect(again.stderr.contains("(0 new, 0 updated, 3 unchanged)"))
        let database = try Workspace.testDatabase(at: sandbox.workspace)
        let photo = try database.scalar("SELECT photo FROM posts WHERE id = 'p1'")?.string
        #expect(photo?.hasSuffix("/in/pictures/p1.jpg") == true)
    }

    @Test func changedContentAfterADecisionGoesBackToPending() throws {
        try writeExport()
        sandbox.run("import", "posts", "in/export.json", "--photos", "in/photos")
        #expect(sandbox.run("review", "approve", "p1", "--as", "ann").status == 0)
        try sandbox.write(
            "in/export.json",
            Self.export.replacingOccurrences(of: "Bottles by the bench", with: "Buy now!"))
        let result = sandbox.run("import", "posts", "in/export.json", "--photos", "in/photos")
        #expect(result.stderr.contains("post p1 changed after a decision and is pending again"))
        let log = sandbox.run("review", "log", "p1", "--format", "json")
        let entries =
            try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]]
        // The import's doing, not a moderator's.
        #expect(entries?.map { $0["moderator"] as? String } == ["ann", nil])
        #expect(entries?.map { $0["kind"] as? String } == ["decision", "reopening"])
        #expect(
            sandbox.run("review", "log", "p1").stdout.contains(
                "(import)  reopening  approved → pending"))
        #expect(entries?.last?["to"] as? String == "pending")
        #expect(
            sandbox.run("review", "show", "p1").stdout.contains("changed after it was approved"))
    }

    @Test func passwordsAndEmailsNeverReachTheWorkspaceFile() throws {
        try writeExport()
        let csv = """
            id,user,lat,lon,description,date,photo,email,password
            c1,dan@example.io,1,2,"ping zed.private@example.com",2022-01-01,,dan@example.io,Pa55-CSV-word
            """
        try sandbox.write("in/posts.csv", csv)
        let ndjson =
            #"{"id":"n1","lat":1,"lon":2,"e-mail":"nd.json@example.com","passwd":"NDJ-pw-77"}"#
        try sandbox.write("in/posts.ndjson", ndjson)
        #expect(
            sandbox.run("import", "posts", "in/export.json", "--photos", "in/photos").status == 0)
        #expect(sandbox.run("import", "posts", "in/posts.csv").status == 0)
        #expect(sandbox.run("import", "posts", "in/posts.ndjson").status == 0)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: sandbox.workspace))
        if let wal = FileManager.default.contents(atPath: sandbox.workspace + "-wal") {
            bytes.append(wal)
        }
        let secrets = [
            "hunter2-Sup3rSecret", "alice.secret@example.com", "carol.hidden@example.org",
            "bob@example.net", "letmein-0xBEEF", "dan@example.io", "zed.private@example.com",
            "Pa55-CSV-word", "nd.json@example.com", "NDJ-pw-77", "@example",
        ]
        for secret in secrets {
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) is in the workspace")
        }
    }

    @Test func photoReferencesLeavingThePhotosFolderAreNeverRead() throws {
        // The secret is a perfectly good photo: had it been read, it would have a hash.
        try sandbox.write("secret.jpg", PostPhotos.jpeg(seed: 9, gps: (1, 1)))
        try sandbox.write("in/photos/ok.jpg", PostPhotos.jpeg(seed: 3))
        try FileManager.default.createSymbolicLink(
            atPath: sandbox.path("in/photos/link.jpg"),
            withDestinationPath: sandbox.path("secret.jpg"))
        let csv = """
            id,lat,lon,photo
            dots,1,1,../../secret.jpg
            abs,2,2,\(sandbox.path("secret.jpg"))
            link,3,3,link.jpg
            ok,4,4,ok.jpg
            """
        try sandbox.write("in/posts.csv", csv)
        let result = sandbox.run("import", "posts", "in/posts.csv", "--photos", "in/photos")
        #expect(result.status == 1)
        for id in ["dots", "abs", "link"] {
            #expect(result.stderr.contains("warning: photo of post \(id) refused"))
        }
        #expect(!result.stderr.contains("post ok refused"))
        let workspace = try Workspace(path: sandbox.workspace)
        let hashed = try workspace.testDatabase.query(
            "SELECT id FROM posts WHERE photo_hash IS NOT NULL OR photo IS NOT NULL ORDER BY id"
        ) { $0.text(0) ?? "" }
        #expect(hashed == ["ok"])
    }

    @Test(arguments: [
        ("bad.csv", "id,lat,lon\nok,1,2\nbad,91,2\n", "bad.csv:3: latitude 91 is outside"),
        ("bad.json", #"{"Locations": {"p1": {"lat": 1}}}"#, "bad.json: Locations/p1/lon"),
        (
            "bad.json", "{\"Locations\": ",
            "bad.json:1:15: not valid JSON: the text ends where a value should be"
        ),
        ("bad.ndjson", "{\"id\":\"a\",\"lat\":1,\"lon\":2}\n{oops\n", "bad.ndjson:2:"),
        ("dup.csv", "id,lat,lon\na,1,2\na,3,4\n", "dup.csv:3: post id 'a' appears twice"),
    ])
    func badInputExitsThreeAndChangesNothing(_ name: String, _ text: String, _ message: String)
        throws
    {
        try sandbox.write("keep.csv", "id,lat,lon\nkeep,1,2\n")
        sandbox.run("import", "posts", "keep.csv")
        try sandbox.write(name, text)
        let result = sandbox.run("import", "posts", name)
        #expect(result.status == 3)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(try list("--status", "all").map { $0["id"] as? String } == ["keep"])
    }

    @Test func missingPhotosFolderIsAnInputError() throws {
        try sandbox.write("posts.csv", "id,lat,lon\na,1,2\n")
        #expect(sandbox.run("import", "posts", "posts.csv", "--photos", "nowhere").status == 3)
    }
}
