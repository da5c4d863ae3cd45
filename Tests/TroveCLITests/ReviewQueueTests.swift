import Foundation
import Testing
import TroveImaging

@testable import TroveCLI
@testable import TroveCommandLine
@testable import TroveKit
@testable import TroveStore

/// A big photo built fast: horizontal bands, so no per-pixel arithmetic in a debug build.
enum BigPhoto {
    static func jpeg(width: Int, height: Int) throws -> Data {
        var pixels: [UInt8] = []
        pixels.reserveCapacity(width * height * 3)
        var row = [UInt8](repeating: 0, count: width * 3)
        for y in 0..<height {
            if y % 16 == 0 {
                let shade = UInt8((y * 255) / height)
                row = [UInt8](repeating: shade, count: width * 3)
                for x in stride(from: 0, to: width * 3, by: 3) where x % 48 < 24 {
                    row[x] = 255 - shade
                }
            }
            pixels += row
        }
        let bitmap = Bitmap(width: width, height: height, channels: 3, pixels: pixels)
        return Data(try JPEG.encode(bitmap, quality: 60))
    }
}

extension PseudoTerminal {
    /// Sets the window size the child sees (`TIOCSWINSZ`).
    func resize(columns: Int, rows: Int) {
        var size = winsize(
            ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(child.fileDescriptor, UInt(TIOCSWINSZ), &size)
    }

    /// What the last full redraw put on the screen.
    var lastScreen: String {
        screen.components(separatedBy: "\u{1B}[H\u{1B}[2J").last ?? ""
    }
}

@Suite struct ReviewScreenTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        sandbox.run("init")
        try sandbox.write("photos/big.jpg", BigPhoto.jpeg(width: 4000, height: 3000))
        try sandbox.write(
            "posts.csv",
            """
            id,user,lat,lon,description,date,photo
            big,alice,40.7128,-74.0060,"A bag of cans by the river, left after a picnic",2022-01-24,big.jpg

            """)
        sandbox.run("import", "posts", "posts.csv", "--photos", "photos")
    }

    func show(_ environment: [String: String]) -> String {
        let out = CommandOutput(capturingAsTerminal: true)
        let context = Context(
            standardOutput: out, standardError: CommandOutput(capturingAsTerminal: false),
            environment: ["TERM": "xterm-256color"].merging(environment) { $1 },
            currentDirectory: sandbox.folder.path)
        #expect(TroveCLI.run(["review", "show", "big"], context: context) == 0)
        return out.text
    }

    func previewWidths(_ text: String) -> [Int] {
        text.split(separator: "\n").map { $0.filter { $0 == "▀" }.count }.filter { $0 > 0 }
    }

    @Test func aTwelveMegapixelPhotoUsesAWideWindow() {
        let text = show(["COLUMNS": "200", "LINES": "60"])
        let widths = previewWidths(text)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count - 1
        #expect(lines <= 59, "the post and the shell prompt fit in 60 rows")
        // 4:3 at up to 2 pixels per row: the height allows about 100 columns, far past the
        // old fixed 43.
        #expect((widths.max() ?? 0) >= 90, "\(widths.max() ?? 0) columns")
        #expect((widths.max() ?? 0) <= 199)
        #expect(text.contains("description: A bag of cans"))
        #expect(text.contains("history: none"))
    }

    @Test func inEightyByTwentyFourTheWholePostStaysOnScreen() {
        let text = show(["COLUMNS": "80", "LINES": "24"])
        let rows = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(rows.count <= 23 && !previewWidths(text).isEmpty, "\(rows.count) rows")
        #expect(previewWidths(text).allSatisfy { $0 <= 79 })
        #expect(text.contains("post:        big"))
        #expect(text.contains("history: none"))
    }

    /// A post with a photo position and signals has more lines than 80×24 holds beside a
    /// preview: in the queue, links and bookkeeping give way to the photo; `show` keeps
    /// every field.
    @Test func inTheQueueTheLinksGiveWayToThePhoto() throws {
        try sandbox.write(
            "photos/gps.jpg", PostPhotos.jpeg(width: 400, height: 300, seed: 3, gps: (40.72, -74)))
        try sandbox.write(
            "more.csv",
            "id,user,lat,lon,description,date,photo\ngps,bob,40.7128,-74.0060,cans,2022-01-25,gps.jpg\n"
        )
        sandbox.run("import", "posts", "more.csv", "--photos", "photos")
        let workspace = try Workspace(path: sandbox.workspace)
        let post = try #require(try PostQuery(workspace: workspace).post("gps"))
        #expect(post.signals.contains { $0.name == .exifGPSMismatch })
        let style = ReviewFormat.PreviewStyle(colour: true, columns: 80, rows: 24, trueColor: false)
        let queue = ReviewFormat.screen(
            post, history: [], style: style, reservedRows: 2, photoFirst: true)
        #expect(queue.split(separator: "\n").filter { $0.contains("▀") }.count >= 8, "\(queue)")
        #expect(queue.split(separator: "\n").count <= 22)
        #expect(queue.contains("photo:       ") && queue.contains("(400×300 px)"))
        #expect(queue.contains("exif gps:    40.720000, -74.000000"))
        #expect(!queue.contains("openstreetmap.org") && !queue.contains("fingerprint:"))
        let show = ReviewFormat.screen(post, history: [], style: style, reservedRows: 1)
        #expect(show.contains("map:         https://www.openstreetmap.org/"))
        #expect(show.contains("photo map:   https://www.openstreetmap.org/"))
        #expect(show.contains("fingerprint: "))
    }

    @Test func aLongHistoryGivesWayBeforeThePost() {
        for index in 0..<30 {
            sandbox.run(
                "review", index % 2 == 0 ? "approve" : "reopen", "big", "--as", "m\(index % 3)")
        }
        let text = show(["COLUMNS": "80", "LINES": "24"])
        let rows = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(rows.count <= 23, "\(rows.count) rows")
        #expect(text.contains("post:        big"))
        #expect(text.contains("earlier entries"))
    }

    @Test func showAsJSONHasEveryFieldTheSignalsAndTheHistory() throws {
        sandbox.run("review", "flag", "big", "--note", "look again", "--as", "ann")
        let result = sandbox.run("review", "show", "big", "--format", "json")
        #expect(result.status == 0)
        let object = try #require(
            JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["id"] as? String == "big")
        #expect(object["photo_width"] as? Int == 4000)
        #expect(object["status"] as? String == "flagged")
        let history = try #require(object["history"] as? [[String: Any]])
        #expect(history.first?["note"] as? String == "look again")
        #expect(object["signals"] is [Any])
    }
}

@Suite struct ReviewQueueRuleTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        sandbox.run("init")
        try sandbox.write("photos/bad.jpg", Data([0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3]))
        try sandbox.write(
            "posts.csv",
            """
            id,user,lat,lon,description,date,photo
            p1,alice,40.7128,-74.0060,cans,2022-01-24,
            bad,bob,40.7300,-74.0000,bottles,2022-01-25,bad.jpg

            """)
        sandbox.run("import", "posts", "posts.csv", "--photos", "photos")
    }

    @Test func approvingAnUnreadablePhotoNeedsForceOffATerminal() {
        let refused = sandbox.run("review", "approve", "bad", "p1", "--as", "ann")
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("bad: its photo could not be read"))
        #expect(refused.stderr.contains("approve with --force"))
        #expect(refused.stderr.contains("p1: pending → approved"))
        let forced = sandbox.run("review", "approve", "bad", "--as", "ann", "--force")
        #expect(forced.status == 0)
        // Rejecting needs no confirmation.
        #expect(
            sandbox.run("review", "reject", "bad", "--reason", "other", "--as", "ann").status == 0)
    }

    @Test func changingYourOwnDecisionNeedsNoForceAndRepeatingItChangesNothing() throws {
        #expect(sandbox.run("review", "approve", "p1", "--as", "ann").status == 0)
        let changed = sandbox.run("review", "reject", "p1", "--reason", "spam", "--as", "ann")
        #expect(changed.status == 0, "\(changed.stderr)")
        let same = sandbox.run("review", "reject", "p1", "--reason", "spam", "--as", "ann")
        #expect(same.status == 0)
        #expect(same.stderr.contains("already rejected"))
        let other = sandbox.run("review", "approve", "p1", "--as", "bob")
        #expect(other.status == 1)
        #expect(other.stderr.contains("already rejected by ann"))
        let log = sandbox.run("review", "log", "p1").stdout
        #expect(log.split(separator: "\n").count == 2)
    }

    @Test func theFlaggedQueueWalksFlaggedPosts() throws {
        sandbox.run("review", "flag", "p1", "--note", "second look", "--as", "ann")
        let workspace = try Workspace(path: sandbox.workspace)
        var keys = Array("aq".utf8)
        let out = CommandOutput(capturingAsTerminal: true)
        let session = ReviewSession(
            workspace: workspace, moderator: "kim", output: out,
            style: .init(colour: false, columns: 80, rows: 24), status: .flagged,
            readKey: { keys.isEmpty ? nil : keys.removeFirst() })
        #expect(try session.run() == .success)
        #expect(out.text.contains("(1 of 1)"))
        #expect(try AuditTrail(workspace: workspace).entries(for: "p1").last?.to == .approved)
        #expect(sandbox.run("review", "list", "--status", "flagged").stderr.contains("0 posts"))
        #expect(sandbox.run("review", "--status", "approved").status == 2)
    }

    @Test func helpReviewListsEveryKey() {
        let help = sandbox.run("help", "review").stdout
        for key in [
            "a  approve", "r  reject", "f  flag", "s  skip", "u  undo", "o  open", "q  quit",
        ] {
            #expect(help.contains(key), "\(key)")
        }
        for reason in RejectionReason.allCases.enumerated() {
            #expect(help.contains("\(reason.offset + 1) \(reason.element.rawValue)"))
        }
    }
}

@Suite struct ReviewQueueTerminalTests {
    let sandbox: Sandbox

    init() throws {
        try BuiltBinary.require()
        sandbox = try Sandbox()
    }

    var environment: [String: String] {
        [
            "TROVE_WORKSPACE": sandbox.workspace, "PATH": "/usr/bin:/bin", "USER": "tester",
            "TERM": "xterm-256color",
        ]
    }

    /// `review approve` on a terminal asks before approving a photo nobody has seen.
    @Test func approvingAnUnreadablePhotoOnATerminalAsksFirst() throws {
        let directory = sandbox.folder.path
        _ = try BuiltBinary.run(["init"], environment: environment, directory: directory)
        try sandbox.write("photos/bad.jpg", Data([0xFF, 0xD8, 0xFF, 0xE0, 9, 9]))
        try sandbox.write(
            "q.csv", "id,lat,lon,date,photo\np1,1,2,2022-01-01,\nbad,1.2,2,2022-01-03,bad.jpg\n")
        _ = try BuiltBinary.run(
            ["import", "posts", "q.csv", "--photos", "photos"], environment: environment,
            directory: directory)
        func approve(answer: String) throws -> (status: Int32, screen: String) {
            let terminal = try PseudoTerminal()
            let process = try terminal.start(
                ["review", "approve", "bad", "p1", "--as", "pat"], environment: environment,
                directory: sandbox.folder)
            defer { if process.isRunning { process.terminate() } }
            #expect(terminal.waitFor("Approve anyway? [y/N] "))
            terminal.send(answer + "\n")
            process.waitUntilExit()
            _ = terminal.waitFor("p1: ")
            return (process.terminationStatus, terminal.screen)
        }
        let declined = try approve(answer: "n")
        #expect(declined.status == 1)
        #expect(declined.screen.contains("bad: its photo could not be read"))
        #expect(declined.screen.contains("bad: not approved, still as it was"))
        #expect(declined.screen.contains("p1: pending → approved"))
        let confirmed = try approve(answer: "y")
        #expect(confirmed.status == 0, "\(confirmed.screen)")
        #expect(confirmed.screen.contains("bad: pending → approved"))
        let log = try BuiltBinary.run(
            ["review", "log", "--format", "json"], environment: environment, directory: directory)
        let entries =
            try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]]
        #expect(entries?.map { $0["id"] as? String } == ["p1", "bad"])
    }

    /// `o` hands the photo to the system viewer where there is a display, and says so
    /// where there is none.
    @Test func oOpensThePhotoInTheSystemViewer() throws {
        let directory = sandbox.folder.path
        _ = try BuiltBinary.run(["init"], environment: environment, directory: directory)
        try sandbox.write("photos/a.jpg", BigPhoto.jpeg(width: 64, height: 48))
        try sandbox.write("q.csv", "id,lat,lon,date,photo\na,1,2,2022-01-01,a.jpg\n")
        _ = try BuiltBinary.run(
            ["import", "posts", "q.csv", "--photos", "photos"], environment: environment,
            directory: directory)
        // A stand-in viewer that records what it was asked to open.
        let opened = sandbox.path("opened.txt")
        try sandbox.write("bin/xdg-open", "#!/bin/sh\nprintf '%s' \"$1\" > '\(opened)'\n")
        chmod(sandbox.path("bin/xdg-open"), 0o755)
        func queue(_ extra: [String: String]) throws -> String {
            let terminal = try PseudoTerminal()
            terminal.resize(columns: 80, rows: 24)
            let process = try terminal.start(
                ["review", "--as", "pat"], environment: environment.merging(extra) { $1 },
                directory: sandbox.folder)
            defer { if process.isRunning { process.terminate() } }
            #expect(terminal.waitFor("[q]uit > "))
            terminal.send("o")
            _ = terminal.waitFor("» ")
            terminal.send("q")
            process.waitUntilExit()
            return terminal.screen
        }
        let path = sandbox.path("bin") + ":/usr/bin:/bin"
        let headless = try queue(["PATH": path])
        #expect(headless.contains("» no photo viewer"))
        #expect(!FileManager.default.fileExists(atPath: opened))
        let desktop = try queue(["PATH": path, "DISPLAY": ":0"])
        #expect(desktop.contains("» opened the photo"), "\(desktop)")
        var recorded = ""
        for _ in 0..<100 where recorded.isEmpty {
            recorded = (try? String(contentsOfFile: opened, encoding: .utf8)) ?? ""
            usleep(50_000)
        }
        #expect(recorded.hasSuffix("/photos/a.jpg"), "\(recorded)")
    }

    @Test func theQueueThroughAPseudoTerminalTellsTheTruth() throws {
        let directory = sandbox.folder.path
        _ = try BuiltBinary.run(["init"], environment: environment, directory: directory)
        try sandbox.write("photos/big.jpg", BigPhoto.jpeg(width: 4000, height: 3000))
        try sandbox.write("photos/bad.jpg", Data([0xFF, 0xD8, 0xFF, 0xE0, 9, 9]))
        try sandbox.write(
            "q.csv",
            """
            id,lat,lon,date,photo
            a,1,2,2022-01-01,big.jpg
            b,1.1,2,2022-01-02,
            bad,1.2,2,2022-01-03,bad.jpg
            c,1.3,2,2022-01-04,

            """)
        _ = try BuiltBinary.run(
            ["import", "posts", "q.csv", "--photos", "photos"], environment: environment,
            directory: directory)
        let terminal = try PseudoTerminal()
        terminal.resize(columns: 80, rows: 24)
        let process = try terminal.start(
            ["review", "--as", "pat"], environment: environment, directory: sandbox.folder)
        defer { if process.isRunning { process.terminate() } }
        #expect(terminal.waitFor("(1 of 4)"))
        #expect(terminal.waitFor("[q]uit > "))
        // 80×24: the photo, every field and the prompt fit without scrolling.
        let first = terminal.lastScreen
        #expect(first.contains("▀") && first.contains("\u{1B}[38;5;"))
        #expect(!first.contains("\u{1B}[38;2;"), "no 24-bit colour without COLORTERM")
        #expect(first.components(separatedBy: "\n").count <= 24, "\(first)")
        #expect(first.contains("post:        a"))

        terminal.send("r")
        #expect(terminal.waitFor("reason: 1 spam"))
        terminal.send("x")
        #expect(terminal.waitFor("press 1–8 for the reason"))
        terminal.send("7")
        #expect(terminal.waitFor("(2 of 4)"))
        #expect(terminal.lastScreen.contains("» a rejected (privacy)"))
        terminal.send("s")
        #expect(terminal.waitFor("(3 of 4)"))
        terminal.send("a")
        #expect(terminal.waitFor("Approve anyway? [y/N]"))
        terminal.send("n")
        #expect(terminal.waitFor("» approval cancelled"))
        terminal.send("a")
        terminal.send("y")
        #expect(terminal.waitFor("(4 of 4)"))
        terminal.send("s")
        #expect(terminal.waitFor("No more pending posts in this round"))
        #expect(terminal.lastScreen.contains("2 decided here; 2 skipped posts still pending"))
        terminal.send("q")
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(terminal.screen.contains("2 decisions recorded."))
        let log = try BuiltBinary.run(
            ["review", "log", "--format", "json"], environment: environment, directory: directory)
        let entries =
            try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]]
        #expect(entries?.map { $0["id"] as? String } == ["a", "bad"])
        #expect(entries?.first?["reason"] as? String == "privacy")
    }
}
