import Foundation
import Testing

/// Every text command prints user and file text through one terminal-safe printer: over
/// a CSV and a posts export full of ESC sequences (OSC 52 writes the clipboard, OSC 0 the
/// window title, `ESC[2J` clears the screen), BEL and U+202E, no raw ESC, BEL or U+202E
/// reaches stdout or stderr. JSON output keeps the data exact.
@Suite struct TerminalSafetyTests {
    static let esc = "\u{1B}"
    static let bel = "\u{07}"
    static let rlo = "\u{202E}"
    static let osc52 = "\(esc)]52;c;cHduZWQ=\(bel)"
    static let title = "\(esc)]0;owned\(bel)"
    static let clear = "\(esc)[2J"

    static func raw(_ text: String) -> [String] {
        [esc, bel, rlo].filter { text.contains($0) }.map {
            $0.unicodeScalars.first!.escaped(asASCII: true)
        }
    }

    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        let e = Self.self
        let name = "Evil\(e.clear)\(e.osc52)\(e.rlo)"
        try sandbox.write(
            "h.csv",
            "name,lat,lon,image,description,points\n"
                + "\"\(name)\",40.7,-74.0,\"img\(e.title).jpg\",\"d\(e.rlo)\(e.esc)[31m\",5\n"
                + "\"Ok\",40.71,-74.01,,\"\(e.osc52)\",x\(e.rlo)\n")
        try sandbox.write(
            "bad.csv", "name,lat,lon\n\"Bad\(e.clear)\",9\(e.esc)5\(e.rlo),-74.0\n")
        func json(_ value: Any) throws -> Data {
            try JSONSerialization.data(withJSONObject: value)
        }
        try sandbox.write(
            "posts.json",
            try json([
                "Locations": [
                    "p1": [
                        "lat": 40.7, "lon": -74.0, "description": "hi\(e.clear)\(e.osc52)\(e.rlo)",
                        "date": "2024-01-01", "photo": "ph\(e.esc)[31m\(e.rlo).jpg",
                        "user": "u\(e.title)",
                    ],
                    "p4": [
                        "lat": 40.7, "lon": -74.0, "date": "2024-01-01",
                        "photo": "../x\(e.clear)\(e.rlo).jpg",
                    ],
                ]
            ]))
        try sandbox.write(
            "lat.json",
            try json([
                "Locations": [
                    "p2": ["lat": "4\(e.clear)0\(e.rlo)", "lon": -74.0, "date": "2024-01-01"]
                ]
            ]))
        try sandbox.write(
            "date.json",
            try json([
                "Locations": [
                    "p3": ["lat": 40.7, "lon": -74.0, "date": "20\(e.osc52)\(e.rlo)"]
                ]
            ]))
    }

    @Test func noTextCommandPrintsRawEscapesOrBidiControls() throws {
        let e = Self.self
        let commands: [[String]] = [
            ["init"],
            ["import", "treasures", "bad.csv"],
            ["import", "treasures", "h.csv"],
            ["import", "treasures", "h.csv", "bad.csv", "--skip-invalid"],
            ["geohash"],
            ["treasures", "list"],
            ["validate"],
            ["validate", "bad.csv"],
            ["near", "40.7", "-74.0"],
            ["images"],
            ["export", "--layout", "flatirongo"],
            ["export", "--layout", "flatirongo", "--out", "o\(e.clear)\(e.rlo).json"],
            ["export", "log"],
            ["import", "posts", "posts.json"],
            ["import", "posts", "lat.json"],
            ["import", "posts", "date.json"],
            ["near", "40.7", "-74.0", "--posts"],
            ["review", "list"],
            ["review", "show", "p1"],
            ["review", "approve", "p1", "--force", "--note", "ok\(e.osc52)"],
            ["review", "log"],
            ["config", "set", "storage.bucket", "b\(e.clear)\(e.rlo)"],
            ["config", "get", "storage.bucket"],
            ["status"],
            ["check"],
            ["no\(e.clear)such\(e.rlo)"],
            ["export", "--layout", "lay\(e.title)\(e.rlo).json"],
        ]
        var seenEscaped = false
        for command in commands {
            for _ in 0..<2 {
                let result = sandbox.run(command)
                let shown = command.joined(separator: " ").unicodeScalars.map {
                    $0.escaped(asASCII: true)
                }.joined()
                #expect(Self.raw(result.stdout).isEmpty, "stdout of \(shown): \(result.stdout)")
                #expect(Self.raw(result.stderr).isEmpty, "stderr of \(shown): \(result.stderr)")
                if (result.stdout + result.stderr).contains("\\x1B") { seenEscaped = true }
            }
        }
        // The escapes are shown, not dropped.
        #expect(seenEscaped)
        let listed = sandbox.run("treasures", "list", "--format", "json").stdout
        let items = try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [[String: Any]]
        let key = try #require(
            items?.first { ($0["name"] as? String)?.hasPrefix("Evil") == true }?["key"] as? String)
        let show = sandbox.run("treasures", "show", key)
        #expect(Self.raw(show.stdout + show.stderr).isEmpty)
        #expect(
            show.stdout.contains("Evil\\x1B[2J\\x1B]52;c;cHduZWQ=\\x07\\u202E"), "\(show.stdout)")
        let near = sandbox.run("near", "40.7", "-74.0", "--posts")
        #expect(near.stdout.contains("hi\\x1B[2J\\x1B]52;c;cHduZWQ=\\x07\\u202E"), "\(near.stdout)")
    }

    @Test func jsonOutputKeepsTheDataExact() throws {
        #expect(sandbox.run("init").status == 0)
        #expect(sandbox.run("import", "treasures", "h.csv").status == 0)
        let result = sandbox.run("treasures", "list", "--format", "json")
        #expect(result.status == 0)
        let items =
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]
        let names = (items ?? []).compactMap { $0["name"] as? String }
        #expect(names.contains("Evil\(Self.clear)\(Self.osc52)\(Self.rlo)"))
    }
}
