import Foundation
import Testing

/// Outputs never replace the workspace, an input, each other, or a file trove did not
/// write: each is refused with exit 2 naming both paths, before anything is written.
@Suite struct OutputClobberTests {
    /// A workspace with one valid treasure, and `u.csv` holding it and a bad row.
    private func sandbox() throws -> Sandbox {
        let sandbox = try Sandbox()
        #expect(sandbox.run("init").status == 0)
        try sandbox.write("u.csv", "name,lat,lon\nA,1,2\nBad,95,2\n")
        #expect(sandbox.run("import", "treasures", "u.csv", "--skip-invalid").status == 1)
        #expect(sandbox.run("geohash").status == 0)
        return sandbox
    }

    private func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    /// Runs `arguments` twice; both must be refused with exit 2, `message` on stderr, and
    /// the workspace (and `kept`) unchanged.
    private func expectRefused(
        _ sandbox: Sandbox, _ arguments: [String], _ message: String, kept: [String] = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let before = (kept + [sandbox.workspace]).map(bytes)
        for _ in 0..<2 {
            let result = sandbox.run(arguments)
            #expect(result.status == 2, "\(result.stderr)", sourceLocation: sourceLocation)
            #expect(
                result.stderr.contains(message), "\(result.stderr)", sourceLocation: sourceLocation)
        }
        #expect((kept + [sandbox.workspace]).map(bytes) == before, sourceLocation: sourceLocation)
        let check = sandbox.run("check")
        #expect(check.status == 0, "\(check.stderr)", sourceLocation: sourceLocation)
    }

    @Test func exportOutOnTheWorkspaceIsRefused() throws {
        let sandbox = try sandbox()
        expectRefused(
            sandbox, ["export", "--layout", "flatirongo", "--out", "trove.sqlite"],
            "--out \(sandbox.workspace) is the workspace;")
        // --force replaces files of another kind, never the workspace.
        expectRefused(
            sandbox, ["export", "--layout", "flatirongo", "--out", "trove.sqlite", "--force"],
            "is the workspace;")
        expectRefused(
            sandbox, ["export", "--layout", "flatirongo", "--out", "trove.sqlite-wal"],
            "is the workspace's -wal file")
        expectRefused(
            sandbox, ["export", "--layout", "flatirongo", "--out", "trove.sqlite-shm"],
            "is the workspace's -shm file")
    }

    @Test func reviewSheetOutOnTheWorkspaceIsRefused() throws {
        let sandbox = try sandbox()
        expectRefused(
            sandbox, ["review", "sheet", "--out", "trove.sqlite"],
            "--out \(sandbox.workspace) is the workspace;")
    }

    @Test func linksToTheWorkspaceAreTheWorkspace() throws {
        let sandbox = try sandbox()
        try FileManager.default.createSymbolicLink(
            atPath: sandbox.path("soft.json"), withDestinationPath: sandbox.workspace)
        #expect(link(sandbox.workspace, sandbox.path("hard.json")) == 0)
        try FileManager.default.createDirectory(
            atPath: sandbox.path("real"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: sandbox.path("alias"), withDestinationPath: sandbox.path("real"))
        expectRefused(
            sandbox, ["export", "--layout", "flatirongo", "--out", "soft.json"], "is the workspace;"
        )
        expectRefused(
            sandbox, ["export", "--layout", "flatirongo", "--out", "hard.json"], "is the workspace;"
        )
        // A workspace not yet made, reached through a linked folder.
        expectRefused(
            sandbox,
            ["review", "sheet", "-w", "real/w.sqlite", "--out", "alias/w.sqlite"],
            "is the workspace;")
    }

    @Test func rejectsOnTheWorkspaceOrTheImportedFileIsRefused() throws {
        let sandbox = try sandbox()
        expectRefused(
            sandbox,
            ["import", "treasures", "u.csv", "--skip-invalid", "--rejects", "trove.sqlite"],
            "--rejects \(sandbox.workspace) is the workspace;")
        expectRefused(
            sandbox, ["import", "treasures", "u.csv", "--skip-invalid", "--rejects", "u.csv"],
            "--rejects \(sandbox.path("u.csv")) is the input <file> \(sandbox.path("u.csv"))",
            kept: [sandbox.path("u.csv")])
    }

    @Test func exportOutOnItsLayoutIsRefused() throws {
        let sandbox = try sandbox()
        #expect(sandbox.run("template", "copy", "layouts/flatirongo.json", "my.json").status == 0)
        expectRefused(
            sandbox, ["export", "--layout", "my.json", "--out", "my.json"],
            "is the input --layout \(sandbox.path("my.json"))", kept: [sandbox.path("my.json")])
        // The Storage plan written beside the export is an output too.
        try sandbox.write("lay.storage.json", Data(try #require(bytes(sandbox.path("my.json")))))
        expectRefused(
            sandbox, ["export", "--layout", "lay.storage.json", "--out", "lay.json"],
            "--out's companion \(sandbox.path("lay.storage.json")) is the input --layout",
            kept: [sandbox.path("lay.storage.json")])
    }

    @Test func outputsThatAreEachOtherAreRefused() throws {
        let sandbox = try sandbox()
        expectRefused(
            sandbox, ["export", "--layout", "flatirongo", "--out", "o.json", "--rules", "o.json"],
            "are the same file")
        #expect(!FileManager.default.fileExists(atPath: sandbox.path("o.json")))
    }

    @Test func aFileTroveDidNotWriteNeedsForce() throws {
        let sandbox = try sandbox()
        try sandbox.write("notes.txt", "my notes\n")
        expectRefused(
            sandbox, ["export", "--layout", "flatirongo", "--out", "notes.txt"],
            "--out \(sandbox.path("notes.txt")) exists and is not a JSON file trove wrote; pass"
                + " --force", kept: [sandbox.path("notes.txt")])
        try sandbox.write("mine.csv", "a,b\n1,2\n")
        expectRefused(
            sandbox,
            ["import", "treasures", "u.csv", "--skip-invalid", "--rejects", "mine.csv"],
            "exists and is not a rejects file trove wrote", kept: [sandbox.path("mine.csv")])
        try sandbox.write("page.html", "<p>mine</p>\n")
        expectRefused(
            sandbox, ["review", "sheet", "--out", "page.html"],
            "exists and is not a review sheet trove wrote", kept: [sandbox.path("page.html")])
        let forced = sandbox.run(
            "export", "--layout", "flatirongo", "--out", "notes.txt", "--force")
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(
            try String(contentsOfFile: sandbox.path("notes.txt"), encoding: .utf8).hasPrefix("{"))
    }

    @Test func outputsTroveWroteAreReplacedOnTheNextRun() throws {
        let sandbox = try sandbox()
        for _ in 0..<2 {
            let export = sandbox.run("export", "--layout", "flatirongo", "--out", "o.json")
            #expect(export.status == 0, "\(export.stderr)")
            let sheet = sandbox.run("review", "sheet", "--out", "s.html")
            #expect(sheet.status == 0, "\(sheet.stderr)")
            let rejects = sandbox.run(
                "import", "treasures", "u.csv", "--skip-invalid", "--rejects", "r.csv")
            #expect(rejects.status == 1, "\(rejects.stderr)")
            #expect(
                try String(contentsOfFile: sandbox.path("r.csv"), encoding: .utf8).hasPrefix(
                    "file,line,feature,code,reason"))
        }
    }

    @Test func anOutputThatIsNoRegularFileIsRefused() throws {
        let sandbox = try sandbox()
        #expect(mkfifo(sandbox.path("fifo.json"), 0o644) == 0)
        expectRefused(
            sandbox, ["export", "--layout", "flatirongo", "--out", "fifo.json"],
            "is not a regular file")
    }
}
