import Foundation
import Testing
import TroveSQLite

@testable import TroveBase
@testable import TroveCLI
@testable import TroveCommandLine
@_spi(Testing) @testable import TroveKit
@_spi(Testing) @testable import TroveStore

/// A project folder moved, renamed or cloned elsewhere is the same project: its sources are
/// known by their paths relative to the workspace's folder, so `import treasures --sync`
/// removes exactly what left the file and `import posts` withdraws exactly what left its
/// file; a source that cannot be matched is named, never silently passed over.
@Suite struct MovedProjectTests {
    let root: Sandbox

    init() throws {
        root = try Sandbox()
    }

    static let treasures = """
        key,name,lat,lon
        ada,Ada,40.70,-74.00
        bo,Bo,40.71,-74.01
        cy,Cy,40.72,-74.02
        dee,Dee,40.73,-74.03
        eve,Eve,40.74,-74.04

        """

    /// The file with Bo's and Dee's rows deleted.
    static let edited = """
        key,name,lat,lon
        ada,Ada,40.70,-74.00
        cy,Cy,40.72,-74.02
        eve,Eve,40.74,-74.04

        """

    static func posts(_ ids: [String]) -> String {
        "{\"Locations\": {"
            + ids.map {
                "\"\($0)\": {\"lat\": 40.7, \"lon\": -74.0, \"date\": \"2024-01-01\", "
                    + "\"description\": \"cans \($0)\"}"
            }.joined(separator: ", ") + "}}\n"
    }

    /// Runs trove in-process in `folder` (under the root), with its default workspace,
    /// `./trove.sqlite`.
    @discardableResult
    func run(in folder: String, _ arguments: String...) -> RunResult {
        let out = CommandOutput(capturingAsTerminal: false)
        let err = CommandOutput(capturingAsTerminal: false)
        let context = Context(
            standardOutput: out, standardError: err, environment: ["USER": "tester"],
            currentDirectory: root.path(folder), readStandardInput: { Data() })
        let status = TroveCLI.run(arguments, context: context)
        return RunResult(status: status, stdout: out.text, stderr: err.text)
    }

    func keys(in folder: String) throws -> [String] {
        try Workspace.testDatabase(at: root.path("\(folder)/trove.sqlite")).query(
            "SELECT key FROM treasures ORDER BY key"
        ) { $0.text(0) ?? "" }
    }

    func move(_ from: String, _ to: String) throws {
        try FileManager.default.createDirectory(
            atPath: (root.path(to) as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: root.path(from), toPath: root.path(to))
    }

    /// The sources column of `treasures list --format csv`, by key.
    func listedSources(in folder: String) -> [String] {
        let listed = run(in: folder, "treasures", "list", "--format", "json").stdout
        let items =
            (try? JSONSerialization.jsonObject(with: Data(listed.utf8))) as? [[String: Any]] ?? []
        return items.map { "\($0["key"] ?? "?")@\($0["file"] ?? "-")" }
    }

    // MARK: - Treasures

    @Test func syncInAMovedFolderRemovesExactlyWhatLeftTheFile() throws {
        try root.write("mvA/t.csv", Self.treasures)
        #expect(run(in: "mvA", "init").status == 0)
        #expect(run(in: "mvA", "import", "treasures", "t.csv").status == 0)
        let listedBefore = listedSources(in: "mvA")
        try move("mvA", "mvB")
        try root.write("mvB/t.csv", Self.edited)
        let synced = run(in: "mvB", "import", "treasures", "t.csv", "--sync")
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(synced.stderr.contains("removed 2 treasures no longer in t.csv: bo, dee"))
        #expect(try keys(in: "mvB") == ["ada", "cy", "eve"])
        // Listed as the same source in the moved folder as in the first.
        #expect(listedBefore.contains("ada@t.csv"))
        #expect(listedSources(in: "mvB") == ["ada@t.csv", "cy@t.csv", "eve@t.csv"])
    }

    @Test func aClonedProjectSyncsItsOwnCopyAndTheOriginalStaysAsItWas() throws {
        try root.write("orig/data/t.csv", Self.treasures)
        #expect(run(in: "orig", "init").status == 0)
        #expect(run(in: "orig", "import", "treasures", "data/t.csv").status == 0)
        try FileManager.default.copyItem(atPath: root.path("orig"), toPath: root.path("clone"))
        try root.write("clone/data/t.csv", Self.edited)
        // From the data folder, naming the workspace: still the same source.
        let synced = run(
            in: "clone/data", "-w", "../trove.sqlite", "import", "treasures", "t.csv", "--sync")
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(synced.stderr.contains("removed 2 treasures no longer in t.csv"))
        #expect(try keys(in: "clone") == ["ada", "cy", "eve"])
        #expect(try keys(in: "orig").count == 5)
        #expect(listedSources(in: "clone").allSatisfy { $0.hasSuffix("@data/t.csv") })
    }

    /// The same file reached through a linked folder is the source recorded first.
    @Test func theSameFileThroughALinkIsTheSameSource() throws {
        try root.write("p/real/t.csv", Self.treasures)
        try FileManager.default.createSymbolicLink(
            atPath: root.path("p/link"), withDestinationPath: root.path("p/real"))
        #expect(run(in: "p", "init").status == 0)
        #expect(run(in: "p", "import", "treasures", "real/t.csv").status == 0)
        try root.write("p/real/t.csv", Self.edited)
        let synced = run(in: "p", "import", "treasures", "link/t.csv", "--sync")
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(synced.stderr.contains("removed 2 treasures no longer in link/t.csv: bo, dee"))
        #expect(listedSources(in: "p") == ["ada@real/t.csv", "cy@real/t.csv", "eve@real/t.csv"])
    }

    // MARK: - Posts

    @Test func postsGoneFromTheFileOfAMovedProjectAreWithdrawn() throws {
        try root.write("mvA/posts.json", Self.posts(["p1", "p2", "p3"]))
        #expect(run(in: "mvA", "init").status == 0)
        #expect(run(in: "mvA", "import", "posts", "posts.json").status == 0)
        try move("mvA", "moved/mvB")
        try root.write("moved/mvB/posts.json", Self.posts(["p1", "p3"]))
        let again = run(in: "moved/mvB", "import", "posts", "posts.json")
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("note: post p2 is no longer in posts.json: withdrawn"))
        #expect(again.stderr.contains("(0 new, 0 updated, 2 unchanged)"))
        let statuses = try Workspace.testDatabase(at: root.path("moved/mvB/trove.sqlite")).query(
            "SELECT id || ':' || status FROM posts ORDER BY id"
        ) { $0.text(0) ?? "" }
        #expect(statuses == ["p1:pending", "p2:withdrawn", "p3:pending"])
    }

    // MARK: - Workspaces that recorded absolute paths

    /// A workspace as trove left it before sources were relative: every migration but the
    /// one that makes them so, with `t.csv`'s treasures and `posts.json`'s posts recorded
    /// under the absolute paths of `folder`.
    func oldWorkspace(in folder: String) throws {
        let database = try Workspace.testDatabase(at: root.path("\(folder)/trove.sqlite"))
        let before = Schema.migrator.migrations.filter { !$0.name.contains("relative") }
        #expect(before.count == Schema.migrator.migrations.count - 1)
        try Migrator(before).migrate(database)
        // SQL: absolute source paths, which only an older trove recorded.
        let csv = root.path("\(folder)/t.csv")
        let json = root.path("\(folder)/posts.json")
        try database.execute(
            "INSERT INTO sources (id, path, name) VALUES (1, ?, 't.csv')", [.text(csv)])
        for (line, key) in ["ada", "bo", "cy", "dee", "eve"].enumerated() {
            try database.execute(
                """
                INSERT INTO treasures (key, name, lat, lon, source, source_line)
                VALUES (?, ?, 40.7, -74.0, 1, ?)
                """, [.text(key), .text(key.capitalized), .integer(Int64(line + 2))])
        }
        for id in ["p1", "p2", "p3"] {
            try database.execute(
                """
                INSERT INTO posts (id, lat, lon, content_hash, imported_at, updated_at, origin)
                VALUES (?, 40.7, -74.0, 'x', '2024-01-01T00:00:00Z', '2024-01-01T00:00:00Z', ?)
                """, [.text(id), .text(json)])
        }
    }

    @Test func anOldWorkspaceMigratesItsAbsolutePathsWhereTheFilesAre() throws {
        try root.write("p/t.csv", Self.treasures)
        try root.write("p/posts.json", Self.posts(["p1", "p2", "p3"]))
        try oldWorkspace(in: "p")
        #expect(run(in: "p", "status").status == 0)
        let database = try Workspace.testDatabase(at: root.path("p/trove.sqlite"))
        #expect(try database.scalar("SELECT path FROM sources") == .text("t.csv"))
        #expect(
            try database.query("SELECT DISTINCT origin FROM posts") { $0.text(0) ?? "" } == [
                "posts.json"
            ])
        try move("p", "q")
        try root.write("q/t.csv", Self.edited)
        let synced = run(in: "q", "import", "treasures", "t.csv", "--sync")
        #expect(synced.stderr.contains("removed 2 treasures no longer in t.csv: bo, dee"))
        #expect(try keys(in: "q") == ["ada", "cy", "eve"])
    }

    /// The project moved before trove learnt relative paths: the recorded absolute path is
    /// gone, so the file of the same name is taken as the same source, and said to be.
    @Test func aFileRecordedWhereItNoLongerIsIsMatchedByItsNameAndSaidSo() throws {
        try root.write("mvA/t.csv", Self.treasures)
        try root.write("mvA/posts.json", Self.posts(["p1", "p2", "p3"]))
        try oldWorkspace(in: "mvA")
        try move("mvA", "mvB")
        try root.write("mvB/t.csv", Self.edited)
        try root.write("mvB/posts.json", Self.posts(["p1", "p3"]))
        let old = root.path("mvA/t.csv")
        let synced = run(in: "mvB", "import", "treasures", "t.csv", "--sync")
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(synced.stderr.contains("t.csv is taken as \(old)"), "\(synced.stderr)")
        #expect(synced.stderr.contains("removed 2 treasures no longer in t.csv: bo, dee"))
        #expect(try keys(in: "mvB") == ["ada", "cy", "eve"])
        #expect(listedSources(in: "mvB") == ["ada@t.csv", "cy@t.csv", "eve@t.csv"])

        let posts = run(in: "mvB", "import", "posts", "posts.json")
        #expect(posts.stderr.contains("posts.json is taken as \(root.path("mvA/posts.json"))"))
        #expect(posts.stderr.contains("note: post p2 is no longer in posts.json: withdrawn"))
    }

    @Test func sourcesThatCannotBeMatchedAreNamedAndKept() throws {
        try root.write("mvA/t.csv", Self.treasures)
        try oldWorkspace(in: "mvA")
        let database = try Workspace.testDatabase(at: root.path("mvA/trove.sqlite"))
        // A second file of the same name, in a folder that is gone too (SQL: an absolute
        // path, which only an older trove recorded).
        try database.execute(
            "INSERT INTO sources (id, path, name) VALUES (2, ?, 't.csv')",
            [.text(root.path("elsewhere/t.csv"))])
        try database.execute("UPDATE treasures SET source = 2 WHERE key = 'eve'")
        try move("mvA", "mvB")
        try root.write("mvB/t.csv", Self.edited)
        let synced = run(in: "mvB", "import", "treasures", "t.csv", "--sync")
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(
            synced.stderr.contains("t.csv is new to the workspace"), "\(synced.stderr)")
        #expect(synced.stderr.contains(root.path("mvA/t.csv")))
        #expect(synced.stderr.contains(root.path("elsewhere/t.csv")))
        #expect(try keys(in: "mvB") == ["ada", "bo", "cy", "dee", "eve"])
    }

    // MARK: - Killed

    /// `--sync` in a moved folder, killed once its transaction has spilled into the WAL:
    /// the workspace is as before (or, had it committed, as after), and the next run ends
    /// as an uninterrupted one.
    @Test func aKilledSyncInAMovedFolderIsCompletedByTheNextRun() throws {
        var rows = 60_000
        var killed = false
        for attempt in 0..<4 where !killed {
            let first = "a\(attempt)"
            let moved = "b\(attempt)"
            var csv = "key,name,lat,lon\n"
            for index in 0..<rows {
                csv += "k\(index),Name \(index),\(Double(index % 170) - 85),\(index % 350 - 175)\n"
            }
            try root.write("\(first)/big.csv", csv)
            let folder = root.path(first)
            #expect(try TroveProcess.run(["init"], in: folder).status == 0)
            let imported = try TroveProcess.run(["import", "treasures", "big.csv"], in: folder)
            #expect(imported.status == 0, "\(imported.stderr)")
            try move(first, moved)
            // Every other row deleted, and the others renamed: the sync writes both ways.
            var edited = "key,name,lat,lon\n"
            for index in stride(from: 0, to: rows, by: 2) {
                edited +=
                    "k\(index),Renamed \(index),\(Double(index % 170) - 85),\(index % 350 - 175)\n"
            }
            try root.write("\(moved)/big.csv", edited)
            let workspace = root.path("\(moved)/trove.sqlite")
            let sync = try TroveProcess.launch(
                ["import", "treasures", "big.csv", "--sync"], in: root.path(moved))
            let spilled = sync.waitWhileRunning { TroveProcess.size(workspace + "-wal") > 2 << 20 }
            guard spilled else {
                _ = sync.wait()
                rows *= 2
                continue
            }
            let outcome = sync.killNow()
            killed = outcome.signalled
            let count = try keys(in: moved).count
            #expect(count == rows || count == rows / 2, "\(count) of \(rows)")
            let check = try TroveProcess.run(["check"], in: root.path(moved))
            #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
            let again = try TroveProcess.run(
                ["import", "treasures", "big.csv", "--sync"], in: root.path(moved))
            #expect(again.status == 0, "\(again.stderr)")
            if count == rows {
                #expect(again.stderr.contains("removed \(rows / 2) treasures no longer in big.csv"))
            }
            let kept = try keys(in: moved)
            #expect(kept.count == rows / 2)
            #expect(kept.allSatisfy { Int($0.dropFirst())! % 2 == 0 })
        }
        #expect(killed)
    }
}
