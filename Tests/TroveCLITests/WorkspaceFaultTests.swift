import Foundation
import Testing
import TroveSQLite

@testable import TroveCLI
@_spi(Testing) @testable import TroveStore

/// A folder that cannot be written, made honestly for whoever runs the tests.
///
/// Permission bits do not stop root, and the test machines run as root: there the folder
/// is a read-only bind mount (writes fail with EROFS, as on read-only media or a
/// read-only volume in a container). Anyone else gets a folder and files whose write bits
/// are cleared (EACCES), which is what a user meets on a shared or archived workspace.
final class ReadOnlyFolder {
    /// The read-only view.
    let path: String
    private let source: String
    private let mounted: Bool

    /// Copies `files` into a new folder beside `sandbox`'s and makes it read-only.
    init(_ sandbox: Sandbox, files: [String]) throws {
        source = sandbox.path("ro-source")
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
        for name in files {
            try FileManager.default.copyItem(
                atPath: sandbox.path(name),
                toPath: (source as NSString).appendingPathComponent(name))
        }
        if getuid() == 0 {
            path = sandbox.path("ro")
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            let bind = Self.shell(["mount", "--bind", source, path])
            let remount = bind && Self.shell(["mount", "-o", "remount,bind,ro", path])
            if !remount { _ = Self.shell(["umount", path]) }
            mounted = remount
            // Root without the right to mount cannot be shown a read-only folder at all.
            try #require(mounted, "cannot make a read-only bind mount as root")
        } else {
            path = source
            mounted = false
            for name in files {
                chmod((source as NSString).appendingPathComponent(name), 0o444)
            }
            chmod(source, 0o555)
        }
    }

    deinit {
        if mounted {
            _ = Self.shell(["umount", path])
        } else {
            chmod(source, 0o755)
        }
    }

    func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    private static func shell(_ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}

/// Read-only workspaces, writers waiting for each other, and full disks.
@Suite struct WorkspaceFaultTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        try ExportSupport.makeWorkspace(sandbox)
        // Fold the write-ahead log into the file, as the last connection's close does.
        try Workspace.testDatabase(at: sandbox.workspace).execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    // MARK: - Read-only

    @Test(arguments: [
        ["status"], ["near", "40.7128", "-74.006"], ["check"], ["validate"],
        ["review", "list", "--status", "all"], ["review", "show", "p1"],
        ["config", "list"], ["export", "--layout", "flatirongo"],
    ])
    func readingCommandsWorkInAReadOnlyFolder(arguments: [String]) throws {
        let expected = sandbox.run(arguments)
        let folder = try ReadOnlyFolder(sandbox, files: ["trove.sqlite"])
        let result = sandbox.run(arguments + ["-w", folder.file("trove.sqlite")])
        #expect(result.status == expected.status, "\(result.stderr)")
        #expect(!result.stderr.contains("SQLite"), "\(result.stderr)")
        if arguments != ["status"] { #expect(result.stdout == expected.stdout) }
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["trove.sqlite"])
    }

    @Test(arguments: [
        ["config", "set", "storage.bucket", "other.appspot.com"],
        ["import", "treasures", "more.csv"],
        ["geohash", "--precision", "9"],
        ["review", "approve", "p2"],
    ])
    func writingCommandsOnAReadOnlyWorkspaceSaySo(arguments: [String]) throws {
        try sandbox.write("more.csv", "key,name,lat,lon\nnew,New,1,2\n")
        let folder = try ReadOnlyFolder(sandbox, files: ["trove.sqlite"])
        let path = folder.file("trove.sqlite")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let result = sandbox.run(arguments + ["-w", path])
        #expect(result.status == 4)
        #expect(
            result.stderr
                == "error: workspace is read-only: \(path); this command changes it, so the file "
                + "and its folder must be writable (reading commands such as status, near and "
                + "check work)\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    // MARK: - Writers waiting

    /// Holds the write lock on another connection until `release` is signalled.
    final class LockHolder: @unchecked Sendable {
        let database: Database
        init(_ path: String) throws {
            database = try Workspace.testDatabase(at: path, mode: .readWrite)
            try database.execute("BEGIN IMMEDIATE")
            // SQL: a write left uncommitted on another connection, which no command leaves.
            try database.execute("INSERT INTO settings VALUES ('held', 'uncommitted')")
        }
        func commit(after seconds: Double) -> Thread {
            let thread = Thread { [self] in
                Thread.sleep(forTimeInterval: seconds)
                try? database.execute("COMMIT")
            }
            thread.start()
            return thread
        }
    }

    @Test func aWriterWaitsForAnotherWriterToFinish() throws {
        let holder = try LockHolder(sandbox.workspace)
        _ = holder.commit(after: 1)
        let result = sandbox.run("config", "set", "storage.bucket", "b.appspot.com")
        #expect(result.status == 0, "\(result.stderr)")
        let check = try Workspace.testDatabase(at: sandbox.workspace)
        #expect(try check.scalar("SELECT value FROM settings WHERE key = 'held'") == "uncommitted")
        #expect(sandbox.run("config", "get", "storage.bucket").stdout == "b.appspot.com\n")
        #expect(Workspace.defaultBusyTimeout == 60_000)
    }

    @Test func aWriterGivesUpAfterTroveBusyTimeout() throws {
        let holder = try LockHolder(sandbox.workspace)
        let result = sandbox.run(
            ["config", "set", "storage.bucket", "b.appspot.com"],
            environment: ["TROVE_BUSY_TIMEOUT": "0.2"])
        try holder.database.execute("ROLLBACK")
        #expect(result.status == 4)
        #expect(
            result.stderr
                == "error: \(sandbox.workspace) is locked by another trove process (waited 0.2 s); "
                + "try again when it has finished, or wait longer with TROVE_BUSY_TIMEOUT=SECONDS\n"
        )
        #expect(
            sandbox.run("config", "get", "storage.bucket").stdout == "flatiron-go.appspot.com\n")
    }

    @Test func readersAreNeverBlockedByAWriter() throws {
        let holder = try LockHolder(sandbox.workspace)
        defer { try? holder.database.execute("ROLLBACK") }
        let environment = ["TROVE_BUSY_TIMEOUT": "0"]
        let status = sandbox.run(["status", "--format", "json"], environment: environment)
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.contains("\"treasures\": 3"))
        let list = sandbox.run(["config", "list"], environment: environment)
        #expect(list.status == 0)
        #expect(!list.stdout.contains("held"))
    }

    @Test(arguments: ["soon", "-1", "1e9"])
    func aBadBusyTimeoutIsAUsageError(value: String) {
        let result = sandbox.run(["status"], environment: ["TROVE_BUSY_TIMEOUT": value])
        #expect(result.status == 2)
        #expect(
            result.stderr.hasPrefix(
                "error: TROVE_BUSY_TIMEOUT must be a number of seconds from 0 to 86400, not '\(value)'"
            ))
    }

    // MARK: - Disk full

    @Test func aFullDiskIsReportedWithoutQuotingSQL() throws {
        let workspace = try Workspace(path: sandbox.workspace)
        // SQLite's page limit fails writes exactly as a full disk does (SQLITE_FULL).
        let pages = try workspace.testDatabase.scalar("PRAGMA page_count")?.int64 ?? 0
        try workspace.testDatabase.execute("PRAGMA max_page_count = \(pages)")
        // SQL: a write that outgrows the page limit at once; no command writes this much.
        let error = #expect(throws: WorkspaceError.self) {
            try workspace.write {
                try workspace.testDatabase.execute(
                    "WITH RECURSIVE n (i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200) "
                        + "INSERT INTO settings (key, value) SELECT 'k' || i, hex(zeroblob(4096)) "
                        + "FROM n")
            }
        }
        #expect(
            error?.description
                == "the disk is full: cannot write to \(sandbox.workspace); nothing was changed. "
                + "Free some space and run the command again")
        #expect(try workspace.setting("k1") == nil)
    }
}
