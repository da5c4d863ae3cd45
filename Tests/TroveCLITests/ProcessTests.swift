import Foundation
import Testing

@_spi(Testing) @testable import TroveStore

/// Runs of the real `trove` binary, for what only a separate process can show.
@Suite struct ProcessTests {
    let sandbox: Sandbox

    init() throws {
        try BuiltBinary.require()
        sandbox = try Sandbox()
    }

    static let binary = URL(fileURLWithPath: BuiltBinary.path)

    func launch(_ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = ["-w", sandbox.workspace] + arguments
        process.currentDirectoryURL = sandbox.folder
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = ["-w", sandbox.workspace] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()  // before waiting
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test
    func aKilledImportLeavesTheWorkspaceAsBefore() throws {
        #expect(try run(["init"]).status == 0)
        try sandbox.write("first.csv", "key,name,lat,lon\nkeep,Keep,1,2\n")
        #expect(try run(["import", "treasures", sandbox.path("first.csv")]).status == 0)
        let database = try Workspace.testDatabase(at: sandbox.workspace)
        let before = try database.scalar(
            "SELECT group_concat(key || name || lat || lon) FROM treasures")

        var rows = 200_000
        var killedHalfway = false
        for _ in 0..<4 where !killedHalfway {
            var csv = "key,name,lat,lon,description\n"
            csv.reserveCapacity(rows * 48)
            for index in 0..<rows {
                csv +=
                    "k\(index),Name \(index),\(Double(index % 170) - 85),\(Double(index % 350) - 175),text\n"
            }
            try sandbox.write("big.csv", csv)
            let process = try launch(["import", "treasures", sandbox.path("big.csv")])
            // Kill once the transaction has written part of its pages to the WAL.
            let wal = sandbox.workspace + "-wal"
            let deadline = Date().addingTimeInterval(20)
            while process.isRunning && Date() < deadline {
                let size =
                    (try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int) ?? 0
                if size > 4 << 20 { break }
                usleep(2_000)
            }
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                killedHalfway = process.terminationReason == .uncaughtSignal
            } else {
                rows *= 2
            }
        }
        #expect(killedHalfway)
        let reopened = try Workspace.testDatabase(at: sandbox.workspace)
        #expect(try reopened.scalar("SELECT count(*) FROM treasures") == .integer(1))
        #expect(
            try reopened.scalar("SELECT group_concat(key || name || lat || lon) FROM treasures")
                == before)
        let check = try run(["check"])
        #expect(check.status == 0)
        #expect(check.output == "ok\n")
    }

    @Test
    func exitStatusesReachTheShell() throws {
        #expect(try run(["status"]).status == 4)
        #expect(try run(["statsu"]).status == 2)
        #expect(try run(["init"]).status == 0)
        try sandbox.write("bad.csv", "name,lat,lon\nA,100,1\n")
        let bad = try run(["import", "treasures", sandbox.path("bad.csv")])
        #expect(bad.status == 3)
        #expect(bad.output.contains("bad.csv:2:"))
    }
}
