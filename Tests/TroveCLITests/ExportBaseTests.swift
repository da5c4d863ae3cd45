import Foundation
import Testing

@testable import TroveCLI
@_spi(Testing) @testable import TroveKit
@_spi(Testing) @testable import TroveStore

/// Only exports written to a file become the base of the next `--update`.
@Suite struct ExportBaseTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        try ExportSupport.makeWorkspace(sandbox)
    }

    func rename(_ key: String, to name: String) throws {
        try Workspace(path: sandbox.workspace).fixture.editTreasure(key, name: name)
    }

    @Test func previewsOnStdoutAndDryRunsHideNothingFromTheNextUpdate() throws {
        #expect(sandbox.run("export", "--layout", "flatirongo", "-o", "full.json").status == 0)
        try rename("bull", to: "Charging Bull")
        let preview = sandbox.run("export", "--layout", "flatirongo")
        #expect(preview.stdout.contains("Charging Bull"))
        #expect(preview.stderr.contains("(not recorded: only an export to --out is)"))
        let previewUpdate = sandbox.run("export", "--layout", "flatirongo", "--update")
        #expect(previewUpdate.stdout.contains("treasureProfiles/bull"))
        let dryRun = sandbox.run(
            "export", "--layout", "flatirongo", "--update", "--dry-run", "-o", "update.json")
        #expect(dryRun.status == 0)
        #expect(dryRun.stdout.isEmpty)
        #expect(dryRun.stderr.hasPrefix("would export 3 treasures"), "\(dryRun.stderr)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.path("update.json")))

        let update = sandbox.run(
            "export", "--layout", "flatirongo", "--update", "-o", "update.json")
        #expect(update.status == 0)
        #expect(
            try ExportSupport.read(sandbox.path("update.json")) == """
                {
                  "treasureProfiles/bull": {"imageURL": "https://example.com/bull.jpg", "name": "Charging Bull"}
                }

                """)
        let log = sandbox.run("export", "log")
        let lines = log.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[0].hasPrefix("1  ") && lines[0].contains("  flatirongo  full  "))
        #expect(lines[1].hasPrefix("2  ") && lines[1].contains("  flatirongo  update since 1  "))
        #expect(lines[1].contains("3 records, 6 paths, 1 changed, 0 removed"))
        #expect(lines[1].hasSuffix(sandbox.path("update.json")))
    }

    @Test func sinceRebuildsAnUpdateAgainstAnEarlierExport() throws {
        #expect(sandbox.run("export", "--layout", "flatirongo", "-o", "full.json").status == 0)
        try rename("bull", to: "Charging Bull")
        #expect(
            sandbox.run("export", "--layout", "flatirongo", "--update", "-o", "a.json").status == 0)
        try rename("plain", to: "Plain")
        #expect(
            sandbox.run("export", "--layout", "flatirongo", "--update", "-o", "b.json").status == 0)
        // a.json was never uploaded: one update since export 1 holds both changes.
        let again = sandbox.run(
            "export", "--layout", "flatirongo", "--update", "--since", "1", "-o", "c.json")
        #expect(again.status == 0, "\(again.stderr)")
        let text = try ExportSupport.read(sandbox.path("c.json"))
        #expect(text.contains("Charging Bull") && text.contains("\"name\": \"Plain\""))
        // It is recorded too: the next plain update is relative to it.
        #expect(sandbox.run("export", "--layout", "flatirongo", "--update").stdout == "{}\n")
        let json = sandbox.run("export", "log", "--format", "json")
        #expect(json.stdout.contains("\"id\": 4, \"at\": "))
        #expect(json.stdout.contains("\"kind\": \"update\", \"base\": 1, "))

        let unknown = sandbox.run("export", "--layout", "flatirongo", "--update", "--since", "9")
        #expect(unknown.status == 2)
        #expect(unknown.stderr == "error: no recorded export 9; 'trove export log' lists them\n")
        let other = sandbox.run("export", "--layout", "trashmapper", "--update", "--since", "1")
        #expect(other.status == 2)
        #expect(other.stderr.contains("export 1 was of layout flatirongo, not trashmapper"))
        #expect(sandbox.run("export", "--layout", "flatirongo", "--since", "1").status == 2)
    }

    @Test func onlyTheLastStatesAreKept() throws {
        for round in 0...ExportOptions.keptStates {
            try rename("bull", to: "Bull \(round)")
            #expect(
                sandbox.run("export", "--layout", "flatirongo", "-o", "full.json").status == 0)
        }
        let result = sandbox.run("export", "--layout", "flatirongo", "--update", "--since", "1")
        #expect(result.status == 2)
        #expect(result.stderr.contains("the state of export 1 is no longer kept"))
        #expect(sandbox.run("export", "log").stdout.contains("(state no longer kept)"))
        #expect(
            sandbox.run("export", "--layout", "flatirongo", "--update", "--since", "2").status == 0)
    }
}
