import Foundation
import Testing

@testable import TroveCLI

@Suite struct ReviewProcessTests {
    let sandbox: Sandbox

    init() throws {
        try BuiltBinary.require()
        sandbox = try Sandbox()
    }

    var environment: [String: String] {
        ["TROVE_WORKSPACE": sandbox.workspace, "PATH": "/usr/bin:/bin", "USER": "tester"]
    }

    @Test func twoModeratorsAtOnceExactlyOneWins() throws {
        for round in 0..<8 {
            let workspace = sandbox.path("race\(round).sqlite")
            var environment = self.environment
            environment["TROVE_WORKSPACE"] = workspace
            _ = try BuiltBinary.run(
                ["init"], environment: environment, directory: sandbox.folder.path)
            try sandbox.write("race.csv", "id,lat,lon\np,1,2\n")
            _ = try BuiltBinary.run(
                ["import", "posts", "race.csv"], environment: environment,
                directory: sandbox.folder.path)
            let commands = [
                ["review", "approve", "p", "--as", "ann"],
                ["review", "reject", "p", "--reason", "spam", "--as", "bob"],
            ]
            let results = UnsafeResults()
            let settled = environment
            let directory = sandbox.folder.path
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                let result = try? BuiltBinary.run(
                    commands[index], environment: settled, directory: directory)
                results.set(index, result)
            }
            let outcomes = results.values.compactMap { $0 }
            try #require(outcomes.count == 2)
            #expect(outcomes.filter { $0.status == 0 }.count == 1, "round \(round)")
            let loser = try #require(outcomes.first { $0.status != 0 })
            #expect(loser.status == 1)
            // Whether the loser read the post before or after the winner committed, it is
            // told who decided it.
            let winner =
                outcomes.first { $0.status == 0 }?.stderr.contains("approved") == true
                ? "ann" : "bob"
            #expect(
                loser.stderr.contains("was already") || loser.stderr.contains("is now"),
                "\(loser.stderr)")
            #expect(loser.stderr.contains("by \(winner) at "), "\(loser.stderr)")
            #expect(!loser.stderr.contains("locked"))
            let log = try BuiltBinary.run(
                ["review", "log", "--format", "json"], environment: environment,
                directory: sandbox.folder.path)
            let entries = try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [Any]
            #expect(entries?.count == 1)
        }
    }

    @Test func interactiveReviewThroughAPseudoTerminal() throws {
        _ = try BuiltBinary.run(["init"], environment: environment, directory: sandbox.folder.path)
        try sandbox.write("photos/a.jpg", PostPhotos.jpeg(seed: 4, gps: (1, 2)))
        try sandbox.write("q.csv", "id,lat,lon,photo\na,1,2,a.jpg\nb,1.1,2,\nc,1.2,2,\n")
        _ = try BuiltBinary.run(
            ["import", "posts", "q.csv", "--photos", "photos"], environment: environment,
            directory: sandbox.folder.path)
        let terminal = try PseudoTerminal()
        let process = try terminal.start(
            ["review", "--as", "pat"],
            environment: environment.merging([
                "TERM": "xterm-256color", "COLORTERM": "truecolor",
            ]) { $1 }, directory: sandbox.folder)
        defer { if process.isRunning { process.terminate() } }
        #expect(terminal.waitFor("(1 of 3)"))
        #expect(terminal.screen.contains("▀"))  // the photo preview, in colour
        #expect(terminal.screen.contains("\u{1B}[38;2;"))
        terminal.send("a")
        #expect(terminal.waitFor("(2 of 3)"))
        terminal.send("r")
        #expect(terminal.waitFor("reason: 1 spam"))
        terminal.send("2")
        #expect(terminal.waitFor("(3 of 3)"))
        terminal.send("u")
        #expect(terminal.waitFor("undid: b is pending again"))
        terminal.send("q")
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let log = try BuiltBinary.run(
            ["review", "log", "--format", "json"], environment: environment,
            directory: sandbox.folder.path)
        let entries =
            try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]]
        try #require(entries?.map { $0["to"] as? String } == ["approved", "rejected", "pending"])
        #expect(entries?[1]["reason"] as? String == "not-litter")
        #expect(entries?.allSatisfy { $0["moderator"] as? String == "pat" } == true)
    }

    @Test func interruptingRestoresTheTerminal() throws {
        _ = try BuiltBinary.run(["init"], environment: environment, directory: sandbox.folder.path)
        try sandbox.write("q.csv", "id,lat,lon\na,1,2\n")
        _ = try BuiltBinary.run(
            ["import", "posts", "q.csv"], environment: environment, directory: sandbox.folder.path)
        let terminal = try PseudoTerminal()
        let descriptor = terminal.child.fileDescriptor
        var before = termios()
        tcgetattr(descriptor, &before)
        #expect(before.c_lflag & tcflag_t(ICANON) != 0)
        let process = try terminal.start(
            ["review", "--as", "pat"], environment: environment)
        defer { if process.isRunning { process.terminate() } }
        #expect(terminal.waitFor("(1 of 1)"))
        var raw = termios()
        tcgetattr(descriptor, &raw)
        #expect(raw.c_lflag & tcflag_t(ICANON | ECHO) == 0)
        process.interrupt()
        for _ in 0..<200 where process.isRunning { usleep(50_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            Issue.record("SIGINT did not end the interactive review")
        }
        process.waitUntilExit()
        var after = termios()
        tcgetattr(descriptor, &after)
        #expect(after.c_lflag & tcflag_t(ICANON) != 0)
        #expect(after.c_lflag & tcflag_t(ECHO) != 0)
        #expect(process.terminationStatus == 130)
    }
}
