import Foundation
import Testing

@testable import TroveBase
@_spi(Testing) @testable import TroveKit
@_spi(Testing) @testable import TroveStore

/// `import posts` streams its file, whatever the format (an export tree, newline-delimited
/// JSON, CSV), holding a record at a time: a file that starts with binary is refused at
/// once, and one of white space is read to its end, in bounded memory.
@Suite struct StreamedPostsTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    /// A file of `size` bytes that holds nothing but a hole (reads as zeros, takes no disk).
    func sparse(_ name: String, size: Int64) throws -> String {
        let path = sandbox.path(name)
        FileManager.default.createFile(atPath: path, contents: nil)
        #expect(truncate(path, off_t(size)) == 0)
        return path
    }

    /// Runs `import posts NAME` in the real binary with 400 MB of address space.
    func importBounded(_ name: String) throws -> TroveProcess.Outcome {
        if !FileManager.default.fileExists(atPath: sandbox.workspace) {
            #expect(try TroveProcess.run(["init"], in: sandbox.folder.path).status == 0)
        }
        return try TroveProcess.run(
            ["import", "posts", name], in: sandbox.folder.path, addressSpaceKiB: 400_000)
    }

    @Test(arguments: ["big.json", "big.ndjson", "big.csv"])
    func aSparseFileIsRefusedAtOnceInBoundedMemory(name: String) throws {
        _ = try sparse(name, size: 20 << 30)
        let outcome = try importBounded(name)
        #expect(!outcome.signalled && !outcome.hung, "\(outcome.stderr)")
        #expect(outcome.status == 3, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("\(name): this is a binary file"), "\(outcome.stderr)")
        #expect(outcome.seconds < 10, "took \(outcome.seconds) s")
    }

    @Test func aFileOfSpacesIsReadToItsEndInBoundedMemory() throws {
        let path = sandbox.path("spaces.json")
        FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        let chunk = Data(repeating: 0x20, count: 1 << 20)
        for _ in 0..<300 { handle.write(chunk) }
        try handle.close()
        let outcome = try importBounded("spaces.json")
        #expect(!outcome.signalled && !outcome.hung, "\(outcome.stderr)")
        #expect(outcome.status == 3, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("spaces.json: the file holds no JSON"), "\(outcome.stderr)")
    }

    @Test func aFileWhoseStartIsBinaryIsRefusedBeforeItsEnd() throws {
        var bytes = Data([0x00, 0x00, 0x01, 0x02])
        bytes.append(Data(repeating: 0x41, count: 4096))
        try sandbox.write("b.json", bytes)
        #expect(sandbox.run("init").status == 0)
        let result = sandbox.run("import", "posts", "b.json")
        #expect(result.status == 3)
        #expect(result.stderr.contains("b.json: this is a binary file"), "\(result.stderr)")
        try sandbox.write(
            "sheet.csv", Data([0x50, 0x4B, 0x03, 0x04] + [UInt8](repeating: 1, count: 600)))
        let zip = sandbox.run("import", "posts", "sheet.csv")
        #expect(zip.status == 3)
        #expect(zip.stderr.contains("sheet.csv: this is"), "\(zip.stderr)")
    }

    /// A large export, read a record at a time: the tree's posts come out as the whole
    /// file read at once gives them, in the same order.
    @Test func aTreeLargerThanTheReadBufferReadsAsAWhole() throws {
        var users: [String] = []
        var locations: [String] = []
        for index in 0..<5000 {
            let id = String(format: "p%05d", index)
            let user = "u\(index % 7)"
            let text = String(repeating: "litter \(index) ", count: 50)
            locations.append(
                "\"\(id)\": {\"Latitude\": \(40 + Double(index) / 10000), \"Longitude\": -74.0,"
                    + " \"LocationDescription\": \"\(text)\", \"Date\": \"24Jan 2022\"}")
            if index % 3 == 0 {
                users.append("\"\(user)\": {\"TaggedLocations\": {\"\(id)\": true}}")
            }
        }
        // Users before Locations, each user once (the last tagged id wins for that user).
        let text =
            "{\"Users\": {\(users.suffix(7).joined(separator: ", "))}, \"Locations\": {"
            + locations.joined(separator: ",\n") + "}}"
        #expect(text.utf8.count > 3 << 20)
        try sandbox.write("tree.json", text)
        let file = try PostReader.read(path: sandbox.path("tree.json"), name: "tree.json")
        #expect(file.posts.count == 5000)
        #expect(file.posts.map(\.id) == file.posts.map(\.id).sorted())
        #expect(file.posts[0].id == "p00000")
        #expect(file.posts[4999].description?.hasPrefix("litter 4999 ") == true)
        #expect(file.posts[4999].date == "2022-01-24")
        let owned = file.posts.filter { $0.user != nil }
        #expect(owned.count == 7)
    }

    @Test func aLineOfNewlineDelimitedPostsOverTheCapNamesItsLine() throws {
        let long = String(repeating: "b", count: 11 << 20)
        try sandbox.write(
            "p.ndjson",
            "{\"id\": \"p1\", \"lat\": 1, \"lon\": 2}\n{\"id\": \"p2\", \"lat\": 1, \"lon\": 2, "
                + "\"description\": \"\(long)\"}\n")
        #expect(sandbox.run("init").status == 0)
        let result = sandbox.run("import", "posts", "p.ndjson", "--skip-invalid")
        #expect(result.status == 3, "\(result.stderr)")
        #expect(
            result.stderr.contains("p.ndjson:2: the line is longer than 10 MB"), "\(result.stderr)")
    }

    @Test func aPostOfAnExportOverTheCapNamesItsLine() throws {
        let long = String(repeating: "c", count: 11 << 20)
        try sandbox.write(
            "e.json",
            "{\"Locations\": {\n\"p1\": {\"lat\": 1, \"lon\": 2},\n\"p2\": {\"lat\": 1, "
                + "\"description\": \"\(long)\"}}}\n")
        #expect(sandbox.run("init").status == 0)
        let result = sandbox.run("import", "posts", "e.json")
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stderr.contains("e.json:3:"), "\(result.stderr)")
        #expect(result.stderr.contains("longer than 10 MB"), "\(result.stderr)")
    }

    /// A repeated name keeps only its last occurrence, at any level, as `JSON.parse` (and
    /// the whole-tree read before) does: streamed, what came first is dropped at the end.
    @Test func aRepeatedNameKeepsItsLastOccurrenceAtAnyLevel() throws {
        let json = """
            {"Locations": {"p1": {"lat": 1, "lon": 2}},
             "Users": {"u1": {"TaggedLocations": {"p1": true}},
                       "u1": {"TaggedLocations": {"p2": {"lat": 3, "lon": 4}}}},
             "Locations": {"p3": {"lat": 5, "lon": 6}, "p4": {"lat": 1, "lon": 1},
                           "p4": {"lat": 7, "lon": 8}}}
            """
        let file = try PostReader.readJSON(Data(json.utf8), name: "dup.json")
        #expect(file.posts.map(\.id) == ["p2", "p3", "p4"])
        #expect(file.posts.map(\.user) == ["u1", nil, nil])
        #expect(file.posts.map(\.latitude) == [3, 5, 7])
        #expect(file.posts[0].source == "dup.json: Users/u1/TaggedLocations/p2")
    }

    // MARK: - Killed

    /// A streamed posts import killed once its writes reached the WAL keeps the batches it
    /// finished (never a part of one), and the next run ends as an uninterrupted one.
    @Test func aKilledPostsImportIsCompletedByTheNextRun() throws {
        let folder = sandbox.folder.path
        #expect(try TroveProcess.run(["init"], in: folder).status == 0)
        var count = 40_000
        var killed = false
        for attempt in 0..<4 where !killed {
            var lines = ""
            for index in 0..<count {
                lines +=
                    "{\"id\": \"a\(attempt)-\(index)\", \"user\": \"u\(index % 97)\", "
                    + "\"lat\": \(40 + Double(index % 1000) / 1000), \"lon\": -74.0, "
                    + "\"date\": \"2024-01-01\", \"description\": \"bottle \(index)\"}\n"
            }
            try sandbox.write("posts\(attempt).ndjson", lines)
            let before = try postCount()
            let running = try TroveProcess.launch(
                ["import", "posts", "posts\(attempt).ndjson"], in: folder)
            let spilled = running.waitWhileRunning {
                TroveProcess.size(sandbox.workspace + "-wal") > 2 << 20
            }
            guard spilled else {
                let outcome = running.wait()
                #expect(outcome.status == 0, "\(outcome.stderr)")
                count *= 2
                continue
            }
            killed = running.killNow().signalled
            let after = try postCount()
            #expect(after >= before && after <= before + count, "\(after)")
            #expect(try TroveProcess.run(["check"], in: folder).status == 0)
            let again = try TroveProcess.run(
                ["import", "posts", "posts\(attempt).ndjson"], in: folder)
            #expect(again.status == 0, "\(again.stderr)")
            #expect(try postCount() == before + count)
        }
        #expect(killed)
    }

    func postCount() throws -> Int {
        Int(
            try Workspace.testDatabase(at: sandbox.workspace).scalar("SELECT count(*) FROM posts")?
                .int64 ?? 0)
    }
}
