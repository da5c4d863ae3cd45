import Foundation
import Testing

/// Long inputs are cut in messages with their byte count, and a header line over 1 MB is
/// refused before it is read whole.
@Suite struct HonestMessagesTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        #expect(sandbox.run("init").status == 0)
    }

    @Test func aHeaderLineOverOneMegabyteIsRefusedEarly() throws {
        // 64 MB without a line break: read whole, it would cost that many and more.
        let path = try sandbox.write("big.csv", Data())
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        let block = Data(repeating: UInt8(ascii: "a"), count: 1 << 20)
        for _ in 0..<64 { handle.write(block) }
        try handle.close()
        for arguments in [["import", "treasures", "big.csv"], ["validate", "big.csv"]] {
            for _ in 0..<2 {
                let result = sandbox.run(arguments)
                let text = result.stdout + result.stderr
                #expect(
                    text.contains(
                        "big.csv:1: error[T100]: the header line is longer than 1 MB (no line"
                            + " break in its first 1048576 bytes)"), "\(text.prefix(500))")
                #expect(text.utf8.count < 2000, "\(text.utf8.count) bytes of messages")
            }
        }
        #expect(sandbox.run("import", "treasures", "big.csv").status == 3)
        #expect(sandbox.run("treasures", "list", "--format", "json").stdout == "[]\n")
    }

    @Test func longValuesAreCutWithTheirByteCount() throws {
        let column = String(repeating: "b", count: 500_000)
        try sandbox.write("wide.csv", "name,\(column),lon\nx,1,2\n")
        let wide = sandbox.run("import", "treasures", "wide.csv")
        #expect(wide.status == 3)
        #expect(
            wide.stderr.contains(
                "there is no 'lat' column; the header has 'name', '"
                    + String(repeating: "b", count: 100) + "… (500000 bytes)', 'lon'"))
        #expect(wide.stderr.utf8.count < 1000)
        let number = String(repeating: "9", count: 300) + "z"
        try sandbox.write("lat.csv", "name,lat,lon\nx,\(number),2\n")
        let lat = sandbox.run("import", "treasures", "lat.csv")
        #expect(lat.status == 3)
        #expect(
            lat.stderr.contains(
                "lat.csv:2:2: error[T103]: latitude '" + String(repeating: "9", count: 100)
                    + "… (301 bytes)' is not a number"), "\(lat.stderr)")
        try sandbox.write(
            "posts.json", #"{"Locations": {"p1": {"lat": "# + "\"\(number)\"" + #", "lon": 2}}}"#)
        let post = sandbox.run("import", "posts", "posts.json")
        #expect(post.status == 3)
        #expect(
            post.stderr.contains(
                "latitude '" + String(repeating: "9", count: 100) + "… (301 bytes)' is not a number"
            ),
            "\(post.stderr)")
    }

    /// A run killed after it recorded its export leaves an empty next --update: the note
    /// says how to make the lost update again.
    @Test func anEmptyUpdateSaysHowToRemakeALostOne() throws {
        let sandbox = try Sandbox()
        try ExportSupport.makeWorkspace(sandbox)
        #expect(sandbox.run("export", "--layout", "flatirongo", "--out", "o.json").status == 0)
        let note =
            "note: nothing changed since the last recorded export; if its update never reached"
            + " the database, make it again with --update --since ID (the export before it in"
            + " 'trove export log') and upload every image: add --all-objects, then 'sh "
            + "\(sandbox.path("o.storage.sh")) upload --all'"
        for _ in 0..<2 {
            let empty = sandbox.run(
                "export", "--layout", "flatirongo", "--update", "--out", "u.json")
            #expect(empty.status == 0, "\(empty.stderr)")
            #expect(
                empty.stderr.contains(
                    note.replacingOccurrences(of: "o.storage.sh", with: "u.storage.sh")),
                "\(empty.stderr)")
        }
        #expect(sandbox.run("config", "set", "storage.bucket", "other.appspot.com").status == 0)
        let changed = sandbox.run("export", "--layout", "flatirongo", "--update", "--out", "u.json")
        #expect(changed.status == 0, "\(changed.stderr)")
        #expect(!changed.stderr.contains("nothing changed since"))
    }
}
