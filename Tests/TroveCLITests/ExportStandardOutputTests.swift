import Foundation
import Testing

@testable import TroveCLI
@_spi(Testing) @testable import TroveStore

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
        let handle = try #require(FileHandle(forWritingAtPath: file))
        defer { try? handle.close() }
        handle.seekToEndOfFile()
        return try run(arguments, standardOutput: handle)
    }

    /// Runs the binary to its end with its standard output on `output`.
    func run(_ arguments: [String], standardOutput output: Any) throws -> Int32 {
        let process = try start(arguments, standardOutput: output)
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Starts the binary with its standard output on `output` (a `FileHandle` or `Pipe`).
    func start(_ arguments: [String], standardOutput output: Any) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: BuiltBinary.path)
        process.arguments = arguments
        process.environment = environment
        process.currentDirectoryURL = sandbox.folder
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
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

    /// `>>` opens the file for appending, where `sendfile` cannot write: the tree is read
    /// back and written instead, after what the file held.
    @Test func aFileOpenedForAppendingReceivesTheTreeAfterWhatItHeld() throws {
        let expected = try capturedTree()
        let path = try sandbox.write("tree.json", "earlier line\n")
        let descriptor = open(path, O_WRONLY | O_APPEND)
        try #require(descriptor >= 0)
        let file = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        let status = try run(["export", "--layout", "flatirongo", "-q"], standardOutput: file)
        try file.close()
        #expect(status == 0)
        #expect(try ExportSupport.read(path) == "earlier line\n" + expected)
    }

    /// A non-blocking pipe that fills (its reader is slow) is waited on: every byte arrives.
    @Test func aFullNonBlockingPipeIsWaitedOn() throws {
        // Enough treasures for a tree several times a pipe's 64 KB.
        let workspace = try Workspace(path: sandbox.workspace)
        try workspace.write {
            for i in 1...3000 {
                let key = "n" + String(repeating: "0", count: 5 - String(i).count) + String(i)
                try workspace.fixture.addTreasure(
                    key, name: "Treasure \(i)", lat: 10 + Double(i) / 1000,
                    lon: 20 + Double(i) / 1000)
            }
        }
        #expect(sandbox.run("geohash").status == 0)
        let expected = try capturedTree()
        try #require(expected.utf8.count > 4 * 65536)
        let pipe = Pipe()
        let writeEnd = pipe.fileHandleForWriting.fileDescriptor
        #expect(fcntl(writeEnd, F_SETFL, fcntl(writeEnd, F_GETFL) | O_NONBLOCK) == 0)
        let process = try start(["export", "--layout", "flatirongo", "-q"], standardOutput: pipe)
        try pipe.fileHandleForWriting.close()
        // Let the pipe fill before anything is read: the export then meets a full pipe.
        let readEnd = pipe.fileHandleForReading.fileDescriptor
        let deadline = Date().addingTimeInterval(30)
        var queued: Int32 = 0
        repeat {
            usleep(1_000)
            _ = ioctl(readEnd, UInt(FIONREAD), &queued)
        } while queued < 65_536 && process.isRunning && Date() < deadline
        #expect(queued >= 65_536, "the pipe never filled: \(queued) bytes")
        let received = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(String(decoding: received, as: UTF8.self) == expected)
    }

    @Test func aRefusedExportSendsNothing() throws {
        // A position moved after its geohash was assigned: the export refuses.
        try Workspace(path: sandbox.workspace).fixture.editTreasure("hairy-harry", lat: 41.7128)
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

    /// A process allowed one processor has its merging thread advance the template
    /// streams itself rather than run them on threads; what it writes must not change.
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
        try Workspace(path: sandbox.workspace).fixture.editTreasure("hairy-harry", name: "Harry II")
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

    /// Runs the built binary on processor 0 only.
    func runOnOneProcessor(_ arguments: [String]) throws -> RunResult {
        let taskset = "/usr/bin/taskset"
        try #require(FileManager.default.isExecutableFile(atPath: taskset), "needs taskset")
        return try BuiltBinary.run(
            ["-c", "0", BuiltBinary.path] + arguments, environment: environment,
            directory: sandbox.folder.path, executable: taskset)
    }

    @Test func aRefusalOnOneProcessorReadsAsOnAll() throws {
        // A stale geohash (checked by one template) and a missing rendition (by the other).
        let fixture = try Workspace(path: sandbox.workspace).fixture
        try fixture.editTreasure("hairy-harry", lat: 41.7128)
        try fixture.editTreasure("plain", image: "/art/new.png")
        let all = try BuiltBinary.run(
            ["export", "--layout", "flatirongo"], environment: environment,
            directory: sandbox.folder.path)
        let one = try runOnOneProcessor(["export", "--layout", "flatirongo"])
        #expect(all.status == 1)
        #expect(one.status == 1)
        #expect(one.stdout.isEmpty)
        #expect(all.stderr.contains("hairy-harry") && all.stderr.contains("plain"))
        #expect(one.stderr == all.stderr)
    }

    /// The note about remote images counts what the export read: every record on a full
    /// export, the changed ones on an update.
    @Test func remoteImagesAreCountedAsTheyStream() throws {
        func remoteImages(_ result: RunResult) throws -> Int? {
            let summary = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
            return (summary as? [String: Any])?["remoteImages"] as? Int
        }
        let fixture = try Workspace(path: sandbox.workspace).fixture
        let full = ["export", "--layout", "flatirongo", "-o", "tree.json", "--format", "json"]
        let update = full + ["--update"]
        let first = try BuiltBinary.run(
            full, environment: environment, directory: sandbox.folder.path)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try remoteImages(first) == 1)
        // Only 'bull' has a remote image: an update of another record counts none.
        try fixture.editTreasure("hairy-harry", name: "Harry II")
        let other = try runOnOneProcessor(update)
        #expect(other.status == 0, "\(other.stderr)")
        #expect(try remoteImages(other) == 0)
        try fixture.editTreasure("plain", image: "https://example.com/b2.jpg")
        let both = try BuiltBinary.run(
            full, environment: environment, directory: sandbox.folder.path)
        #expect(try remoteImages(both) == 2)
        // The note says so, on one processor as on all.
        let noted = try runOnOneProcessor(Array(full.dropLast(2)))
        #expect(noted.status == 0)
        #expect(noted.stderr.contains("note: 2 images are remote URLs"))
    }
}
