import Foundation
import Testing

@testable import TroveBase
@testable import TroveCLI
@testable import TroveCommandLine

/// One terminal rule for every output format: data for a terminal is escaped as the text
/// format is, whatever `--format` says; to a pipe or a file it stays exact. JSON writes
/// the bidirectional and C1 controls as `\u` escapes always, which is still the same JSON.
@Suite struct TerminalFormatsTests {
    static let esc = "\u{1B}"
    static let bel = "\u{07}"
    static let rlo = "\u{202E}"
    static let csi = "\u{9B}"
    static let osc52 = "\(esc)]52;c;cHduZWQ=\(bel)"
    static let title = "\(esc)]0;owned\(bel)"
    static let clear = "\(esc)[2J"
    static let evil = "Evil\(clear)\(osc52)\(title)\(rlo)\(csi)"

    /// The raw controls `text` holds, by name.
    static func raw(_ text: String) -> [String] {
        [esc, bel, rlo, csi].filter { text.contains($0) }.map {
            $0.unicodeScalars.first!.escaped(asASCII: true)
        }
    }

    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        #expect(sandbox.run("init").status == 0)
        try sandbox.write(
            "t.csv",
            "key,name,lat,lon,description\nevil,\"\(Self.evil)\",40.7,-74.0,\"\(Self.evil)\"\n")
        #expect(sandbox.run("import", "treasures", "t.csv").status == 0)
        #expect(sandbox.run("geohash").status == 0)
        let post: [String: Any] = [
            "lat": 40.7, "lon": -74.0, "date": "2024-01-01", "description": Self.evil,
            "user": "u1",
        ]
        try sandbox.write(
            "posts.json",
            try JSONSerialization.data(withJSONObject: ["Locations": ["p1": post]]))
        #expect(sandbox.run("import", "posts", "posts.json").status == 0)
        #expect(sandbox.run("geohash").status == 0)
    }

    /// Runs trove in-process with stdout a terminal, or not.
    func run(_ arguments: [String], terminal: Bool) -> RunResult {
        let out = CommandOutput(capturingAsTerminal: terminal)
        let err = CommandOutput(capturingAsTerminal: terminal)
        let context = Context(
            standardOutput: out, standardError: err, environment: ["USER": "tester"],
            currentDirectory: sandbox.folder.path, readStandardInput: { Data() })
        let status = TroveCLI.run(arguments, context: context)
        return RunResult(status: status, stdout: out.text, stderr: err.text)
    }

    static let listings: [[String]] = [
        ["review", "list"], ["treasures", "list"], ["near", "40.7", "-74.0"],
        ["near", "40.7", "-74.0", "--posts"], ["review", "show", "p1"],
        ["treasures", "show", "evil"],
    ]

    @Test(arguments: listings, ["csv", "json", "geojson", "text"])
    func dataForATerminalIsEscapedWhateverTheFormat(command: [String], format: String) throws {
        let result = run(command + ["--format", format], terminal: true)
        // Not every command has every format; those that do must be safe.
        guard result.status == 0 else {
            #expect(result.status == 2, "\(result.stderr)")
            return
        }
        #expect(Self.raw(result.stdout).isEmpty, "\(result.stdout)")
        #expect(!result.stdout.isEmpty)
    }

    @Test(arguments: [["review", "list"], ["treasures", "list"], ["near", "40.7", "-74.0"]])
    func csvForATerminalShowsTheEscapesAndCSVForAPipeIsExact(command: [String]) throws {
        let shown = run(command + ["--format", "csv"], terminal: true)
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.contains("Evil\\x1B[2J\\x1B]52;c;cHduZWQ=\\x07"), "\(shown.stdout)")
        #expect(shown.stdout.contains("\\u202E"))
        let piped = run(command + ["--format", "csv"], terminal: false)
        #expect(piped.stdout.contains(Self.evil), "\(piped.stdout)")
        #expect(piped.stdout.contains("\r\n"))
    }

    /// JSON escapes the bidi and C1 controls always: to a pipe too, and it reads back as
    /// the very text imported.
    @Test(arguments: [true, false])
    func jsonEscapesBidiControlsAndStaysExact(terminal: Bool) throws {
        for command in [["review", "list"], ["treasures", "list"], ["near", "40.7", "-74.0"]] {
            let result = run(command + ["--format", "json"], terminal: terminal)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(!result.stdout.contains(Self.rlo), "\(result.stdout)")
            #expect(!result.stdout.contains(Self.csi), "\(result.stdout)")
            #expect(result.stdout.contains("\\u202e"), "\(result.stdout)")
            #expect(result.stdout.contains("\\u009b"), "\(result.stdout)")
            let parsed = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
            let first = try #require((parsed as? [[String: Any]])?.first)
            let text = (first["name"] ?? first["description"]) as? String
            #expect(text == Self.evil)
        }
    }

    @Test func theJSONWriterEscapesEveryBidiAndC1Control() {
        let bidi =
            (0x202A...0x202E).map { Unicode.Scalar($0)! }
            + (0x2066...0x2069).map {
                Unicode.Scalar($0)!
            } + [Unicode.Scalar(0x200E)!, Unicode.Scalar(0x200F)!, Unicode.Scalar(0x061C)!]
        for scalar in bidi + [Unicode.Scalar(0x80)!, Unicode.Scalar(0x9F)!] {
            let quoted = JSONText.quoted("a" + String(Character(scalar)) + "b")
            let hex = String(scalar.value, radix: 16)
            #expect(quoted == "\"a\\u" + String(repeating: "0", count: 4 - hex.count) + hex + "b\"")
        }
        // Text that only looks close is kept as it is.
        #expect(JSONText.quoted("é ° © — ‘’ … \u{2030}") == "\"é ° © — ‘’ … \u{2030}\"")
    }
}
