import Foundation
import Testing

@testable import TroveCLI
@testable import TroveKit

@Suite struct ReviewCommandTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        sandbox.run("init")
        let csv = """
            id,user,lat,lon,description,date,photo
            p1,alice,40.7128,-74.0060,"Cans, bottles",2022-01-24,
            p2,bob,40.7300,-74.0000,see www.spam.example,2022-01-25,
            p3,alice,51.5000,-0.1200,<b>crisps</b>,2022-01-26,
            """
        try sandbox.write("posts.csv", csv)
        sandbox.run("import", "posts", "posts.csv")
    }

    func json(_ result: RunResult) throws -> [[String: Any]] {
        try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]] ?? []
    }

    func ids(_ arguments: String...) throws -> [String] {
        try json(sandbox.run(["review", "list", "--format", "json"] + arguments)).compactMap {
            $0["id"] as? String
        }
    }

    @Test func listFiltersByStatusSignalAndUser() throws {
        let all = try json(sandbox.run("review", "list", "--format", "json"))
        try #require(all.count == 3)
        #expect(
            Set(all[0].keys) == [
                "id", "user", "lat", "lon", "date", "description", "status", "signals",
            ])
        #expect(all[0]["lat"] as? Double == 40.7128)
        #expect(try ids("--signal", "text-link") == ["p2"])
        #expect(try ids("--user", "alice") == ["p1", "p3"])
        sandbox.run("review", "approve", "p1", "--as", "ann")
        #expect(try ids() == ["p2", "p3"])
        #expect(try ids("--status", "approved") == ["p1"])
        #expect(try ids("--status", "all") == ["p1", "p2", "p3"])
        let typo = sandbox.run("review", "list", "--status", "pendng")
        #expect(typo.status == 2)
        #expect(typo.stderr.contains("did you mean 'pending'?"))
    }

    @Test func listAsCSVAndTable() {
        let csv = sandbox.run("review", "list", "--format", "csv").stdout
        #expect(csv.hasPrefix("id,user,lat,lon,date,description,status,signals\r\n"))
        #expect(csv.contains("p1,alice,40.7128,-74.006,2022-01-24,\"Cans, bottles\",pending,\r\n"))
        let table = sandbox.run("review", "list").stdout
        #expect(table.hasPrefix("ID "))
        #expect(table.contains("text-link"))
    }

    @Test func everyListingPrintsACoordinateTheSameWay() {
        // p2's longitude is -74.0000: JavaScript's -74, not Swift's -74.0, in every format.
        let list = sandbox.run("review", "list", "--format", "json").stdout
        #expect(list.contains("{\"id\": \"p2\", \"user\": \"bob\", \"lat\": 40.73, \"lon\": -74, "))
        let show = sandbox.run("review", "show", "p2", "--format", "json").stdout
        #expect(show.contains("\"lat\": 40.73, \"lon\": -74, "))
        let csv = sandbox.run("review", "list", "--format", "csv").stdout
        #expect(csv.contains("\r\np2,bob,40.73,-74,2022-01-25,"))
    }

    @Test func showPrintsFieldsSignalsAndHistory() {
        sandbox.run("review", "flag", "p2", "--note", "looks like an ad", "--as", "ann")
        let show = sandbox.run("review", "show", "p2")
        #expect(show.status == 0)
        #expect(show.stdout.contains("description: see www.spam.example"))
        #expect(show.stdout.contains("! text-link: contains a link: www.spam.example"))
        #expect(show.stdout.contains("ann  pending → flagged  looks like an ad"))
        #expect(!show.stdout.contains("\u{1B}["))  // not a terminal: no preview, no colour
        #expect(sandbox.run("review", "show", "nope").status == 1)
    }

    @Test func decisionsAndTheAuditTrail() throws {
        #expect(sandbox.run("review", "approve", "p1", "--as", "ann").status == 0)
        #expect(
            sandbox.run("review", "reject", "p2", "--reason", "spam", "--note", "ad", "--as", "bo")
                .status == 0)
        #expect(sandbox.run("review", "reopen", "p2", "--as", "ann").status == 0)
        let log = try json(sandbox.run("review", "log", "--format", "json"))
        try #require(log.count == 3)
        #expect(
            Set(log[1].keys) == [
                "id", "at", "moderator", "from", "to", "reason", "note", "applied_by", "decided_at",
            ])
        #expect(log[1]["reason"] as? String == "spam")
        #expect(log[1]["note"] as? String == "ad")
        #expect(log[2]["from"] as? String == "rejected")
        #expect(log[2]["to"] as? String == "pending")
        #expect(log[0]["reason"] is NSNull)
        let text = sandbox.run("review", "log", "p2").stdout
        #expect(text.contains("p2  bo  pending → rejected  (spam)  ad"))
    }

    @Test func rejectionReasonTyposGetASuggestion() {
        let result = sandbox.run("review", "reject", "p1", "--reason", "not-liter")
        #expect(result.status == 2)
        #expect(result.stderr.contains("did you mean 'not-litter'?"))
        #expect(sandbox.run("review", "reject", "p1").status == 2)
        #expect(sandbox.run("review", "flag", "p1").status == 2)
    }

    @Test func idsComeFromStandardInput() throws {
        let result = sandbox.run("review", "approve", "-", "--as", "ann", stdin: "p1\np3\n")
        #expect(result.status == 0)
        #expect(try ids("--status", "approved") == ["p1", "p3"])
    }

    @Test func moderatorFromFlagThenEnvironmentThenUser() throws {
        sandbox.run("review", "approve", "p1", environment: ["USER": "unix"])
        sandbox.run(
            "review", "approve", "p2", environment: ["USER": "unix", "TROVE_MODERATOR": "mod"])
        sandbox.run(
            "review", "approve", "p3", "--as", "flag",
            environment: ["USER": "unix", "TROVE_MODERATOR": "mod"])
        let log = try json(sandbox.run("review", "log", "--format", "json"))
        #expect(log.map { $0["moderator"] as? String } == ["unix", "mod", "flag"])
    }

    @Test func decidingAnAlreadyDecidedPostIsRefusedUnlessForced() throws {
        #expect(sandbox.run("review", "approve", "p1", "--as", "ann").status == 0)
        let second = sandbox.run("review", "reject", "p1", "--reason", "spam", "--as", "bob")
        #expect(second.status == 1)
        #expect(second.stderr.contains("p1 was already approved by ann at "))
        #expect(second.stderr.contains("--force"))
        let forced = sandbox.run(
            "review", "reject", "p1", "--reason", "spam", "--as", "bob", "--force")
        #expect(forced.status == 0)
        #expect(try json(sandbox.run("review", "log", "--format", "json")).count == 2)
        #expect(sandbox.run("review", "approve", "nope", "--as", "ann").status == 1)
    }

    @Test func theSheetsDecisionsApplyWithTheSameConflictRule() throws {
        let decisions = """
            {"format": "trove-review-decisions", "decisions": [
              {"id": "p1", "expected": "pending", "action": "approve"},
              {"id": "p2", "expected": "pending", "action": "reject", "reason": "spam"},
              {"id": "p3", "expected": "pending", "action": "flag", "note": "check"}]}
            """
        try sandbox.write("decisions.json", decisions)
        // Someone decides p2 between the sheet's generation and its application.
        sandbox.run("review", "approve", "p2", "--as", "bob")
        let result = sandbox.run("review", "apply", "decisions.json", "--as", "ann")
        #expect(result.status == 1)
        #expect(result.stderr.contains("p2 is now approved (you saw it pending): decided by bob"))
        #expect(try ids("--status", "approved") == ["p1", "p2"])
        #expect(try ids("--status", "flagged") == ["p3"])
        try sandbox.write(
            "bad.json", #"{"format": "trove-review-decisions", "decisions": [{"id": "p1"}]}"#)
        #expect(sandbox.run("review", "apply", "bad.json", "--as", "ann").status == 3)
    }

    @Test func sessionFlagsWithATypedNoteAndCancelsOnEscape() throws {
        let workspace = try Workspace(path: sandbox.workspace)
        // Flag p1 ("needs a look", with a typo fixed by backspace), cancel a flag on p2 with
        // Esc, then quit.
        var keys = Array("fneeds a lookk\u{7F}\rf\u{1B}q".utf8)
        let out = OutputStream(capturingAsTerminal: true)
        let session = ReviewSession(
            workspace: workspace, moderator: "kim", output: out,
            style: .init(colour: false, columns: 40, rows: 10),
            readKey: { keys.isEmpty ? nil : keys.removeFirst() })
        #expect(try session.run() == .success)
        let log = try AuditTrail(workspace: workspace).entries()
        #expect(log.map(\.postID) == ["p1"])
        #expect(log.first?.to == .flagged)
        #expect(log.first?.note == "needs a look")
        #expect(out.text.contains("flag cancelled"))
    }

    @Test func showOnATerminalDrawsThePhotoHonouringNoColor() throws {
        try sandbox.write("photos/a.jpg", PostPhotos.jpeg(seed: 5, gps: (40.7128, -74.006)))
        try sandbox.write("one.csv", "id,lat,lon,photo\nphoto,40.7128,-74.006,a.jpg\n")
        sandbox.run("import", "posts", "one.csv", "--photos", "photos")
        func show(_ environment: [String: String]) -> String {
            let out = OutputStream(capturingAsTerminal: true)
            let context = Context(
                standardOutput: out, standardError: OutputStream(capturingAsTerminal: false),
                environment: environment, currentDirectory: sandbox.folder.path)
            #expect(TroveCLI.run(["review", "show", "photo"], context: context) == 0)
            return out.text
        }
        let terminal = ["COLUMNS": "40", "LINES": "40", "TERM": "xterm-256color"]
        let colour = show(terminal.merging(["COLORTERM": "truecolor"]) { $1 })
        #expect(colour.contains("\u{1B}[38;2;"))
        #expect(colour.contains("▀"))
        let palette = show(terminal)
        #expect(palette.contains("\u{1B}[38;5;") && !palette.contains("\u{1B}[38;2;"))
        for plainTerminal in [["NO_COLOR": "1"], ["TERM": "dumb"]] {
            let plain = show(terminal.merging(plainTerminal) { $1 })
            #expect(!plain.contains("\u{1B}["))
            #expect(plain.contains("post:        photo"))
        }
    }

    @Test func scanPicksUpNewSettings() throws {
        #expect(try ids("--signal", "text-blocked-word").isEmpty)
        sandbox.run("config", "set", "review.blocked-words", "crisps")
        let scan = sandbox.run("review", "scan")
        #expect(scan.stderr.contains("signals changed on 1 posts"))
        #expect(try ids("--signal", "text-blocked-word") == ["p3"])
        #expect(sandbox.run("review", "list", "--signal", "text-lnk").status == 2)
    }

    @Test func importSummaryAsJSON() throws {
        try sandbox.write(
            "more.csv", "id,lat,lon,email,photo\np9,1,2,x@example.com,../x.jpg\n")
        let result = sandbox.run("import", "posts", "more.csv", "--format", "json")
        #expect(result.status == 1)
        let object =
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        #expect(object?["new"] as? Int == 1)
        #expect((object?["dropped"] as? [String: Int])?["emails"] == 1)
        #expect((object?["refused_photos"] as? [[String: String]])?.first?["id"] == "p9")
    }

    @Test func interactiveReviewNeedsATerminal() {
        let result = sandbox.run("review")
        #expect(result.status == 2)
        #expect(result.stderr.contains("interactive review needs a terminal"))
    }

    @Test func sessionDecidesSkipsAndUndoes() throws {
        let workspace = try Workspace(path: sandbox.workspace)
        // p1 approve, p2 reject (digit 1 = spam), undo (p2 pending again), skip p2, quit.
        var keys = Array("ar1usq".utf8)
        let out = OutputStream(capturingAsTerminal: true)
        let session = ReviewSession(
            workspace: workspace, moderator: "kim", output: out,
            style: .init(colour: true, columns: 40, rows: 10),
            readKey: { keys.isEmpty ? nil : keys.removeFirst() })
        #expect(try session.run() == .success)
        let log = try AuditTrail(workspace: workspace).entries()
        try #require(log.map(\.to) == [.approved, .rejected, .pending])
        #expect(log[1].reason == "spam")
        #expect(log[2].note == "undo")
        #expect(out.text.contains("undid: p2 is pending again"))
        #expect(out.text.contains("skipped p2"))
    }
}

// MARK: - Real processes

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

/// Results written from concurrent iterations.
final class UnsafeResults: @unchecked Sendable {
    private var slots: [RunResult?] = [nil, nil]
    private let lock = NSLock()

    func set(_ index: Int, _ value: RunResult?) {
        lock.lock()
        slots[index] = value
        lock.unlock()
    }

    var values: [RunResult?] {
        lock.lock()
        defer { lock.unlock() }
        return slots
    }
}

/// A pseudo-terminal pair: the child end for the process, the parent end read in the
/// background into `screen`.
final class PseudoTerminal: @unchecked Sendable {
    let child: FileHandle
    private let parent: Int32
    private var buffer = Data()
    private let lock = NSLock()

    init() throws {
        var parent: Int32 = 0
        var child: Int32 = 0
        guard openpty(&parent, &child, nil, nil, nil) == 0 else {
            throw CocoaError(.fileReadUnknown)
        }
        self.parent = parent
        self.child = FileHandle(fileDescriptor: child, closeOnDealloc: true)
        let descriptor = parent
        let thread = Thread { [weak self] in
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(descriptor, &chunk, chunk.count)
                if count <= 0 { return }
                guard let self else { return }
                self.lock.lock()
                self.buffer.append(contentsOf: chunk[0..<count])
                self.lock.unlock()
            }
        }
        thread.start()
    }

    var screen: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: buffer, as: UTF8.self)
    }

    func send(_ text: String) {
        _ = text.utf8CString.withUnsafeBufferPointer {
            write(parent, $0.baseAddress, text.utf8.count)
        }
    }

    /// Starts the built trove with this terminal as its standard input, output and error.
    func start(_ arguments: [String], environment: [String: String], directory: URL? = nil)
        throws -> Process
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: BuiltBinary.path)
        process.arguments = arguments
        process.environment = environment
        if let directory { process.currentDirectoryURL = directory }
        process.standardInput = child
        process.standardOutput = child
        process.standardError = child
        try process.run()
        return process
    }

    /// Waits up to 20 s for `text` to appear.
    func waitFor(_ text: String) -> Bool {
        for _ in 0..<400 {
            if screen.contains(text) { return true }
            usleep(50_000)
        }
        return false
    }
}
