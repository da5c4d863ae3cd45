import Foundation
import Testing

@testable import TroveCLI
@testable import TroveCommandLine
@testable import TroveKit
@testable import TroveStore

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
                "id", "at", "moderator", "from", "to", "reason", "note", "kind", "by_user", "seq",
                "action", "undoes", "applied_by", "decided_at", "version", "redaction",
            ])
        #expect(log.map { $0["kind"] as? String } == ["decision", "decision", "decision"])
        #expect(log.map { $0["seq"] as? Int } == [1, 2, 3])
        #expect(log.map { $0["action"] as? Int } == [1, 2, 3])
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
        #expect(sandbox.run("review", "sheet", "--out", "sheet.html", "--for", "ann").status == 0)
        let decisions = try SheetPage(path: sandbox.path("sheet.html")).file([
            .init(id: "p1", action: "approve"),
            .init(id: "p2", action: "reject", reason: "spam"),
            .init(id: "p3", action: "flag", note: "check"),
        ])
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
        let out = CommandOutput(capturingAsTerminal: true)
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
            let out = CommandOutput(capturingAsTerminal: true)
            let context = Context(
                standardOutput: out, standardError: CommandOutput(capturingAsTerminal: false),
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
        let out = CommandOutput(capturingAsTerminal: true)
        let session = ReviewSession(
            workspace: workspace, moderator: "kim", output: out,
            style: .init(colour: true, columns: 40, rows: 10),
            readKey: { keys.isEmpty ? nil : keys.removeFirst() })
        #expect(try session.run() == .success)
        let log = try AuditTrail(workspace: workspace).entries()
        try #require(log.map(\.to) == [.approved, .rejected, .pending])
        #expect(log[1].reason == "spam")
        // The undo is an entry of its own, naming the decision it undid.
        #expect(log[2].kind == .undo && log[2].note == nil && log[2].moderator == "kim")
        #expect(log[2].undoes == log[1].seq)
        #expect(out.text.contains("undid: p2 is pending again"))
        #expect(out.text.contains("skipped p2"))
    }

    @Test func undoIsADecisionOfItsOwnFromTheCommandLineAndIsNotRepeated() throws {
        #expect(
            sandbox.run("review", "reject", "p1", "--reason", "spam", "--as", "ann").status == 0)
        // Only the moderator who decided undoes it.
        let other = sandbox.run("review", "undo", "p1", "--as", "bo")
        #expect(other.status == 1)
        #expect(other.stderr.contains("p1 was decided by ann at "), "\(other.stderr)")
        let undone = sandbox.run("review", "undo", "p1", "--as", "ann")
        #expect(undone.status == 0, "\(undone.stderr)")
        #expect(undone.stderr.contains("p1: rejected → pending (undone)"))
        let log = try json(sandbox.run("review", "log", "p1", "--format", "json"))
        #expect(log.map { $0["kind"] as? String } == ["decision", "undo"])
        #expect(log.last?["undoes"] as? Int == log.first?["seq"] as? Int)
        #expect(log.last?["note"] is NSNull && log.last?["moderator"] as? String == "ann")
        #expect(
            sandbox.run("review", "show", "p1").stdout.contains("ann  undo  rejected → pending"))
        #expect(try ids().contains("p1"))
        // Again: refused, the undo is not undone.
        let again = sandbox.run("review", "undo", "p1", "--as", "ann")
        #expect(again.status == 1)
        #expect(again.stderr.contains("already an undo"), "\(again.stderr)")
        #expect(try ids().contains("p1"))
        // A decision a re-import overtook is not undone either.
        #expect(sandbox.run("review", "approve", "p2", "--as", "ann").status == 0)
        try sandbox.write(
            "posts.csv",
            try String(contentsOfFile: sandbox.path("posts.csv"), encoding: .utf8)
                .replacingOccurrences(of: "www.spam.example", with: "a bench"))
        sandbox.run("import", "posts", "posts.csv")
        let overtaken = sandbox.run("review", "undo", "p2", "--as", "ann")
        #expect(overtaken.status == 1)
        #expect(overtaken.stderr.contains("p2 was changed by import at "), "\(overtaken.stderr)")
        #expect(sandbox.run("review", "undo", "p3", "--as", "ann").status == 1)
    }

    @Test func theQueuesUndoTakesBackADecisionMadeElsewhere() throws {
        #expect(sandbox.run("review", "approve", "p2", "--as", "kim").status == 0)
        let workspace = try Workspace(path: sandbox.workspace)
        var keys = Array("uq".utf8)
        let out = CommandOutput(capturingAsTerminal: true)
        let session = ReviewSession(
            workspace: workspace, moderator: "kim", output: out,
            style: .init(colour: true, columns: 40, rows: 10),
            readKey: { keys.isEmpty ? nil : keys.removeFirst() })
        #expect(try session.run() == .success)
        #expect(out.text.contains("undid: p2 is pending again"), "\(out.text)")
        let log = try AuditTrail(workspace: workspace).entries(for: "p2")
        #expect(log.map(\.kind) == [.decision, .undo])
    }
}

@Suite struct ReviewLeadTests {
    let sandbox: Sandbox
    /// The decisions' times: ann approves p1 an hour after the import, two days on bo
    /// rejects p2, a minute later ann rejects p3, which bo approves a minute after that.
    let times: [Date]

    init() throws {
        sandbox = try Sandbox()
        sandbox.run("init")
        try sandbox.write(
            "posts.csv",
            """
            id,user,lat,lon,description,date,photo
            p1,u1,40.7128,-74.0060,cans,2022-01-24,
            p2,u2,40.7300,-74.0000,see www.spam.example,2022-01-25,
            p3,u1,51.5000,-0.1200,crisps,2022-01-26,

            """)
        sandbox.run("import", "posts", "posts.csv")
        let base = Date()
        times = [3600, 172_800, 172_860, 172_920].map { base.addingTimeInterval($0) }
        let moderation = Moderation(workspace: try Workspace(path: sandbox.workspace))
        let steps: [(String, ReviewAction, String)] = [
            ("p1", .approve, "ann"), ("p2", .reject(.spam), "bo"), ("p3", .reject(.spam), "ann"),
            ("p3", .approve, "bo"),
        ]
        for (step, time) in zip(steps, times) {
            let outcome = try moderation.decide(
                post: step.0, version: nil, action: step.1, moderator: step.2, force: true,
                now: time)
            guard case .recorded = outcome else { throw CommandFailure("\(outcome)") }
        }
    }

    func stamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }
    func day(_ date: Date) -> String { String(stamp(date).prefix(10)) }

    func logged(_ arguments: String...) -> [String] {
        let result = sandbox.run(["review", "log", "--format", "json"] + arguments)
        let list =
            (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [[String: Any]]
            ?? []
        return list.map { "\($0["id"] ?? "") \($0["moderator"] ?? "")" }
    }

    @Test func theLogFiltersByModeratorAndDate() {
        #expect(logged() == ["p1 ann", "p2 bo", "p3 ann", "p3 bo"])
        #expect(logged("--moderator", "ann") == ["p1 ann", "p3 ann"])
        // Dates are whole days in UTC, both ends included.
        #expect(logged("--since", day(times[1])) == ["p2 bo", "p3 ann", "p3 bo"])
        #expect(logged("--until", day(times[0])) == ["p1 ann"])
        #expect(logged("--since", stamp(times[2]), "--until", stamp(times[2])) == ["p3 ann"])
        #expect(
            logged("--moderator", "bo", "--since", day(times[0]), "--until", day(times[1]))
                == ["p2 bo", "p3 bo"])
        let text = sandbox.run("review", "log", "--moderator", "bo").stdout
        #expect(
            text.split(separator: "\n").count == 2 && text.contains("p2  bo  pending → rejected"))
        let wrong = sandbox.run("review", "log", "--since", "last tuesday")
        #expect(wrong.status == 2)
        #expect(
            wrong.stderr.contains(
                "--since: expected a date (2024-05-01) or a time (2024-05-01T12:00:00Z), "
                    + "got 'last tuesday'"), "\(wrong.stderr)")
        #expect(sandbox.run("review", "log", "--until", "2024-02-30").status == 2)
    }

    @Test func statsSumUpPerModeratorDayAndReason() throws {
        let table = sandbox.run("review", "stats")
        #expect(table.status == 0, "\(table.stderr)")
        let rows = table.stdout.split(separator: "\n").map {
            $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        }
        #expect(
            rows == [
                "moderator decisions approved rejected flagged reopened undos overturned median time",
                "ann 2 1 1 0 0 0 1 1d 0h",
                "bo 2 1 1 0 0 0 0 2d 0h",
                "total 4 2 2 0 0 0 1 2d 0h",
            ])
        let json =
            try JSONSerialization.jsonObject(
                with: Data(sandbox.run("review", "stats", "--format", "json").stdout.utf8))
            as? [[String: Any]] ?? []
        #expect(json.map { $0["moderator"] as? String } == ["ann", "bo", "total"])
        let seconds = json.first?["median_seconds"] as? Int ?? 0
        #expect((88_230...88_235).contains(seconds), "\(seconds)")
        // Per reason: the two spam rejections, one overturned.
        let reasons =
            try JSONSerialization.jsonObject(
                with: Data(
                    sandbox.run("review", "stats", "--by", "reason", "--format", "json").stdout.utf8
                ))
            as? [[String: Any]] ?? []
        #expect(reasons.first?["reason"] as? String == "spam")
        #expect(
            reasons.first?["rejected"] as? Int == 2 && reasons.first?["overturned"] as? Int == 1)
        // Per day, and within a range and for one moderator.
        let days = sandbox.run("review", "stats", "--by", "day").stdout
        #expect(days.contains(day(times[0]) + " ") && days.contains(day(times[1]) + " "))
        let ranged = sandbox.run(
            "review", "stats", "--moderator", "ann", "--since", day(times[1]), "--format", "json")
        let only =
            try JSONSerialization.jsonObject(with: Data(ranged.stdout.utf8)) as? [[String: Any]]
        #expect(
            only?.first?["moderator"] as? String == "ann" && only?.first?["decisions"] as? Int == 1)
        #expect(only?.first?["overturned"] as? Int == 1)
        let wrong = sandbox.run("review", "stats", "--by", "week")
        #expect(wrong.status == 2 && wrong.stderr.contains("use moderator, day or reason"))
    }
}
