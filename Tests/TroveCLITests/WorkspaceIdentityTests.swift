import Foundation
import Testing

@_spi(Testing) @testable import TroveStore

/// Foreign, newer and damaged files are refused before anything changes them, nothing is
/// made beside a device, and a reader leaves no file a writer cannot use.
@Suite struct WorkspaceIdentityTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    private func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    @Test func aTablelessForeignDatabaseWithAUserVersionIsRefused() throws {
        let path = sandbox.path("f.sqlite")
        try Workspace.testDatabase(at: path).execute("PRAGMA user_version = 7")
        let before = bytes(path)
        for arguments in [["init", "-w", "f.sqlite"], ["status", "-w", "f.sqlite"]] {
            for _ in 0..<2 {
                let result = sandbox.run(arguments)
                #expect(result.status == 4)
                #expect(
                    result.stderr
                        == "error: \(path) is not a trove workspace: it is a SQLite database that"
                        + " trove did not make (no tables, user_version 7); pass -w with the path"
                        + " of a workspace, or run 'trove init' for a new one\n")
            }
        }
        #expect(bytes(path) == before)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: sandbox.folder.path) == ["f.sqlite"]
        )
    }

    @Test func anUnknownUserVersionIsRefused() throws {
        #expect(sandbox.run("init").status == 0)
        try Workspace.testDatabase(at: sandbox.workspace).execute("PRAGMA user_version = 999")
        let before = bytes(sandbox.workspace)
        for arguments in [
            ["status"], ["init"], ["config", "set", "storage.bucket", "b.appspot.com"],
        ] {
            let result = sandbox.run(arguments)
            #expect(result.status == 4)
            #expect(
                result.stderr.hasPrefix(
                    "error: \(sandbox.workspace) has schema version 999, newer than this trove"
                        + " understands"))
        }
        #expect(bytes(sandbox.workspace) == before)
    }

    @Test func initChecksIntegrityBeforeSayingReady() throws {
        #expect(sandbox.run("init").status == 0)
        var csv = "name,lat,lon\n"
        for index in 1...2000 { csv += "N\(index),1.\(index),2.\(index)\n" }
        try sandbox.write("a.csv", csv)
        #expect(sandbox.run("import", "treasures", "a.csv").status == 0)
        // One bit of a page header in the middle of the file.
        var data = try #require(bytes(sandbox.workspace))
        data[20 * 4096 + 3] ^= 0x40
        try data.write(to: URL(fileURLWithPath: sandbox.workspace))
        for _ in 0..<2 {
            let result = sandbox.run("init")
            #expect(result.status == 4)
            #expect(!result.stderr.contains("ready"))
            #expect(result.stderr.contains("\(sandbox.workspace) is not a usable workspace: "))
            #expect(result.stderr.contains("malformed"))
        }
        #expect(bytes(sandbox.workspace) == data)
    }

    @Test func aDeviceIsNoWorkspaceAndNothingIsMadeBesideIt() throws {
        for arguments in [["init", "-w", "/dev/null"], ["status", "-w", "/dev/null"]] {
            for _ in 0..<2 {
                let result = sandbox.run(arguments)
                #expect(result.status == 4)
                #expect(
                    result.stderr
                        == "error: /dev/null is not a trove workspace: it is not a regular file\n")
            }
        }
        for suffix in ["-journal", "-wal", "-shm"] {
            #expect(!FileManager.default.fileExists(atPath: "/dev/null" + suffix))
        }
    }

    /// `chmod 444 w.sqlite; trove status; chmod 644 w.sqlite`, then a write works. Run as
    /// a user the permissions hold for: nobody, when the tests run as root.
    @Test func aReadOnlyMomentLeavesTheWorkspaceWritable() throws {
        try BuiltBinary.require()
        let asRoot = geteuid() == 0
        if asRoot { #expect(chown(sandbox.folder.path, 65534, 65534) == 0) }
        func run(_ arguments: String...) throws -> RunResult {
            let environment = ["PATH": "/usr/bin:/bin", "HOME": sandbox.folder.path]
            if asRoot {
                return try BuiltBinary.run(
                    ["--reuid=65534", "--regid=65534", "--clear-groups", BuiltBinary.path]
                        + arguments,
                    environment: environment, directory: sandbox.folder.path,
                    executable: "/usr/bin/setpriv")
            }
            return try BuiltBinary.run(
                arguments, environment: environment, directory: sandbox.folder.path)
        }
        #expect(try run("init").status == 0)
        if asRoot { #expect(chown(sandbox.workspace, 65534, 65534) == 0) }
        for round in 0..<2 {
            #expect(chmod(sandbox.workspace, 0o444) == 0)
            let status = try run("status")
            #expect(status.status == 0, "\(status.stderr)")
            for suffix in ["-shm", "-wal"] {
                let attributes = try? FileManager.default.attributesOfItem(
                    atPath: sandbox.workspace + suffix)
                if let mode = (attributes?[.posixPermissions] as? NSNumber)?.intValue {
                    #expect(mode & 0o200 != 0, "\(suffix) has mode \(String(mode, radix: 8))")
                }
            }
            #expect(chmod(sandbox.workspace, 0o644) == 0)
            let write = try run("config", "set", "storage.bucket", "b\(round).appspot.com")
            #expect(write.status == 0, "\(write.stderr)")
            #expect(try run("config", "get", "storage.bucket").stdout == "b\(round).appspot.com\n")
        }
    }
}
