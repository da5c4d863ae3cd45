import Foundation
import Testing

@testable import TroveCLI
@testable import TroveCommandLine

@Suite struct HelpTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    @Test func geohashHelpIsStable() {
        let result = sandbox.run("geohash", "--help")
        #expect(result.status == 0)
        #expect(
            result.stdout == """
                OVERVIEW: Assign GeoFire geohashes to treasures and posts that lack a current one.

                Uses GeoFire's algorithm and base32 alphabet. --precision also becomes the
                workspace's geohash.precision, so status, validate and export agree with it.
                A point exactly on a cell edge goes to the cell below or west of it, as GeoFire's
                clients put it: (0, 0) is 7zzzzzzzzz, where python-geohash and libraries that
                take the cell above or east give s000000000.

                USAGE: trove geohash [--precision <n>]

                OPTIONS:
                  --precision <n>         Geohash length, 1-22 (default: geohash.precision, else 10).
                  -w, --workspace <path>  The workspace file (default: $TROVE_WORKSPACE, else ./trove.sqlite).
                  --format <format>       Output format: text, json.
                  -q, --quiet             Print only data and errors.
                  -h, --help              Show help information.

                """)
    }

    @Test func helpCommandAndFlagAgree() {
        let viaCommand = sandbox.run("help", "config", "set")
        let viaFlag = sandbox.run("config", "set", "--help")
        #expect(viaCommand.status == 0)
        #expect(viaCommand.stdout == viaFlag.stdout)
        #expect(viaFlag.stdout.hasPrefix("OVERVIEW: Store a setting."))
    }

    @Test func everyCommandHasHelp() {
        func visit(_ command: Command, path: [String]) {
            let result = sandbox.run(path + ["--help"])
            #expect(result.status == 0, "\(path)")
            #expect(result.stdout.contains("USAGE: trove"), "\(path)")
            for sub in command.subcommands { visit(sub, path: path + [sub.name]) }
        }
        visit(TroveCLI.root, path: [])
    }

    @Test func usageErrorsExitTwoWithTheUsageLine() {
        let result = sandbox.run("geohash", "--precision", "30")
        #expect(result.status == 2)
        #expect(
            result.stderr == """
                error: invalid value '30' for --precision: expected a whole number from 1 to 22
                usage: trove geohash [--precision <n>]

                """)
    }

    @Test func versionIsPrinted() {
        #expect(sandbox.run("--version").stdout.hasPrefix("trove \(TroveCLI.version) (SQLite "))
    }

    /// Every command's `--help`, generated from its declaration, against the text kept in
    /// `Golden/help.txt`: a renamed flag or a reworded help line shows in review. After a
    /// deliberate change, run the tests with TROVE_UPDATE_GOLDEN=1 to write the new text.
    @Test func everyCommandsHelpMatchesTheGoldenText() throws {
        var text = ""
        func visit(_ command: Command, path: [String]) {
            guard !command.isHidden else { return }
            let result = sandbox.run(path + ["--help"])
            text += "=== trove \(path.joined(separator: " "))\n" + result.stdout
            for sub in command.subcommands { visit(sub, path: path + [sub.name]) }
        }
        visit(TroveCLI.root, path: [])
        let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Golden/help.txt")
        if ProcessInfo.processInfo.environment["TROVE_UPDATE_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(
                at: golden.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: golden)
        }
        let kept = try String(contentsOf: golden, encoding: .utf8)
        let keptSections = kept.components(separatedBy: "=== trove ")
        let nowSections = text.components(separatedBy: "=== trove ")
        for (index, section) in nowSections.enumerated()
        where index >= keptSections.count
            || keptSections[index] != section
        {
            Issue.record("help differs from Golden/help.txt at: trove \(section.prefix(200))")
            break
        }
        #expect(keptSections.count == nowSections.count)
    }
}
