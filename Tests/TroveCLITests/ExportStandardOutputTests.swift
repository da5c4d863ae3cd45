import Foundation
import Testing

@testable import TroveCLI
@_spi(Testing) @testable import TroveKit

/// An export without `--out`, run as a real process: its tree reaches a pipe or a file
/// exactly as an in-process run captures it, only once everything succeeded.
@Suite struct ExportStandardOutputTests {
    let sandbox: Sandbox

    init() throws {
        try BuiltBinary.require()
        sandbox = try Sandbox()
        try ExportSupport.makeWorkspace(sandbox)
    }

    var environment: [String: String] {
        ["TROVE_WORKSPACE": sandbox.workspace, "PATH": "/usr/bin:/bin", "USER": "tester"]
    }

    /// The tree an in-process run writes, the reference for the process's bytes.
    func capturedTree() throws -> String {
        let result = sandbox.run("export", "--layout", "flatirongo", "-q")
        try #require(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("{\n  \"treasureLocations\": {"))
        return result.stdout
    }

    /// Runs the binary with its standard output on `file`, at the file's current end.
    func run(_ arguments: [String], appendingTo file: String) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: BuiltBinary.path)
        process.arguments = arguments
        process.environment = environment
        process.currentDirectoryURL = sandbox.folder
        let handle = try #require(FileHandle(forWritingAtPath: file))
        defer { try? handle.close() }
        handle.seekToEndOfFile()
        process.standardOutput = handle
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    @Test func aPipeReceivesTheWholeTree() throws {
        let expected = try capturedTree()
        let result = try BuiltBinary.run(
            ["export", "--layout", "flatirongo", "-q"], environment: environment,
            directory: sandbox.folder.path)
        #expect(result.status == 0)
        #expect(result.stdout == expected)
    }

    @Test func aFileReceivesTheTreeAfterWhatItHeld() throws {
        let expected = try capturedTree()
        _ = try sandbox.write("tree.json", "earlier line\n")
        let status = try run(
            ["export", "--layout", "flatirongo", "-q"], appendingTo: sandbox.path("tree.json"))
        #expect(status == 0)
        #expect(try ExportSupport.read(sandbox.path("tree.json")) == "earlier line\n" + expected)
    }

    @Test func aRefusedExportSendsNothing() throws {
        // A position moved after its geohash was assigned: the export refuses.
        try Workspace.testDatabase(at: sandbox.workspace).execute(
            "UPDATE treasures SET lat = lat + 1 WHERE key = 'hairy-harry'")
        let piped = try BuiltBinary.run(
            ["export", "--layout", "flatirongo"], environment: environment,
            directory: sandbox.folder.path)
        #expect(piped.status == 1)
        #expect(piped.stdout.isEmpty)
        #expect(piped.stderr.contains("hairy-harry"))
        _ = try sandbox.write("tree.json", "")
        let status = try run(
            ["export", "--layout", "flatirongo"], appendingTo: sandbox.path("tree.json"))
        #expect(status == 1)
        #expect(try ExportSupport.read(sandbox.path("tree.json")).isEmpty)
    }

    /// A process allowed one processor makes its template streams wait for the merging
    /// thread rather than work ahead through spill files; what it writes must not change.
    @Test func aProcessOnOneProcessorWritesTheSameTree() throws {
        let expected = try capturedTree()
        let taskset = "/usr/bin/taskset"
        try #require(FileManager.default.isExecutableFile(atPath: taskset), "needs taskset")
        let pinned = try BuiltBinary.run(
            ["-c", "0", BuiltBinary.path, "export", "--layout", "flatirongo", "-q"],
            environment: environment, directory: sandbox.folder.path, executable: taskset)
        #expect(pinned.status == 0)
        #expect(pinned.stdout == expected)
        // A recorded export and an update after an edit, on one processor and on all.
        let out = sandbox.run("export", "--layout", "flatirongo", "-o", "all.json", "-q")
        #expect(out.status == 0)
        let one = try BuiltBinary.run(
            ["-c", "0", BuiltBinary.path, "export", "--layout", "flatirongo", "-o", "one.json"],
            environment: environment, directory: sandbox.folder.path, executable: taskset)
        #expect(one.status == 0)
        #expect(one.stderr.contains("exported 3 treasures"))
        #expect(
            try ExportSupport.read(sandbox.path("one.json"))
                == ExportSupport.read(sandbox.path("all.json")))
        try Workspace.testDatabase(at: sandbox.workspace).execute(
            "UPDATE treasures SET name = 'Harry II' WHERE key = 'hairy-harry'")
        let update = try BuiltBinary.run(
            [
                "-c", "0", BuiltBinary.path, "export", "--layout", "flatirongo", "--update", "-o",
                "update.json", "-q",
            ], environment: environment, directory: sandbox.folder.path, executable: taskset)
        #expect(update.status == 0)
        let patch = try ExportSupport.read(sandbox.path("update.json"))
        #expect(patch.contains("\"treasureProfiles/hairy-harry\""))
        #expect(patch.contains("Harry II"))
        #expect(!patch.contains("treasureLocations"))
    }
}
