import Foundation
import Testing

@testable import TroveCLI

/// The review queue and list as a moderator sees them on a terminal: 80×24 and 160×48,
/// and a window resized in between.
@Suite struct ReviewTerminalTests {
    let sandbox: Sandbox

    init() throws {
        try BuiltBinary.require()
        sandbox = try Sandbox()
        _ = try BuiltBinary.run(["init"], environment: environment, directory: sandbox.folder.path)
        try sandbox.write("photos/big.jpg", BigPhoto.jpeg(width: 1600, height: 1200))
        let long = String(repeating: "Bottles and cans all along the fence. ", count: 80)
        try sandbox.write(
            "q.csv",
            """
            id,user,lat,lon,date,description,photo
            -NqXk2Lp9aBcDeFgHiJk,alice,40.7,-74.0,2022-01-01,"\(long)",big.jpg
            -NqXk2Lp9aBcDeFgHiJl,bob,40.71,-74.0,2022-01-02,Cans by the bench,big.jpg

            """)
        _ = try BuiltBinary.run(
            ["import", "posts", "q.csv", "--photos", "photos"], environment: environment,
            directory: sandbox.folder.path)
    }

    var environment: [String: String] {
        [
            "TROVE_WORKSPACE": sandbox.workspace, "PATH": "/usr/bin:/bin", "USER": "tester",
            "TERM": "xterm-256color",
        ]
    }

    /// Starts the queue in a window of this size and waits for its first screen.
    func startQueue(_ terminal: PseudoTerminal, columns: Int, rows: Int) throws -> Process {
        terminal.resize(columns: columns, rows: rows)
        let process = try terminal.start(
            ["review", "--as", "pat"], environment: environment, directory: sandbox.folder)
        #expect(terminal.waitFor("[q]uit > "))
        return process
    }

    /// Waits for the queue's screen count to pass `count` and its prompt to be drawn.
    func waitForRedraw(_ terminal: PseudoTerminal, after count: Int) -> Bool {
        for _ in 0..<400 {
            let screens = terminal.screen.components(separatedBy: "\u{1B}[H\u{1B}[2J")
            if screens.count - 1 > count, screens.last?.contains("[q]uit > ") == true {
                return true
            }
            usleep(50_000)
        }
        return false
    }

    func redraws(_ terminal: PseudoTerminal) -> Int {
        terminal.screen.components(separatedBy: "\u{1B}[H\u{1B}[2J").count - 1
    }

    /// The post's id, user and photo on screen, the prompt on its last used row, nothing
    /// scrolled away.
    func expectWholeScreen(
        _ screen: TerminalScreen, id: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let lines = screen.lines
        #expect(
            screen.scrolled == 0, "scrolled \(screen.scrolled):\n\(lines.joined(separator: "\n"))",
            sourceLocation: sourceLocation)
        #expect(
            lines.contains("post:        " + id), "\(lines.joined(separator: "\n"))",
            sourceLocation: sourceLocation)
        #expect(lines.contains { $0.hasPrefix("user:        ") }, sourceLocation: sourceLocation)
        let photoRows = lines.filter { $0.contains("▀") }
        #expect(
            photoRows.count >= ReviewFormat.minimumPreviewRows, "\(photoRows.count) photo rows",
            sourceLocation: sourceLocation)
        #expect(
            lines.first?.contains("▀") == true, "the photo's top row is in view",
            sourceLocation: sourceLocation)
        #expect(photoRows.allSatisfy { $0.count < screen.columns }, sourceLocation: sourceLocation)
        #expect(
            lines.contains { $0.hasPrefix("[a]pprove") && $0.hasSuffix("[q]uit >") },
            sourceLocation: sourceLocation)
    }

    @Test func aResizedWindowGetsAScreenThatFitsIt() throws {
        let terminal = try PseudoTerminal()
        let process = try startQueue(terminal, columns: 160, rows: 48)
        defer { if process.isRunning { process.terminate() } }
        let id = "-NqXk2Lp9aBcDeFgHiJk"
        let large = TerminalScreen(columns: 160, rows: 48, after: terminal.lastScreen)
        expectWholeScreen(large, id: id)
        let largePhoto = large.lines.filter { $0.contains("▀") }.count
        for (columns, rows) in [(80, 24), (160, 48)] {
            let before = redraws(terminal)
            terminal.resize(columns: columns, rows: rows)
            kill(process.processIdentifier, SIGWINCH)
            #expect(waitForRedraw(terminal, after: before), "no redraw for \(columns)×\(rows)")
            let screen = TerminalScreen(columns: columns, rows: rows, after: terminal.lastScreen)
            expectWholeScreen(screen, id: id)
            if columns == 80 {
                #expect(screen.lines.filter { $0.contains("▀") }.count < largePhoto)
            }
        }
        terminal.send("q")
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    @Test(arguments: [(80, 24), (160, 48)])
    func aLongDescriptionIsCutSoThePostAndPhotoStay(size: (Int, Int)) throws {
        let terminal = try PseudoTerminal()
        let process = try startQueue(terminal, columns: size.0, rows: size.1)
        defer { if process.isRunning { process.terminate() } }
        let screen = TerminalScreen(columns: size.0, rows: size.1, after: terminal.lastScreen)
        expectWholeScreen(screen, id: "-NqXk2Lp9aBcDeFgHiJk")
        let description = screen.lines.drop { !$0.hasPrefix("description: ") }
            .prefix { $0.hasPrefix("description: ") || $0.hasPrefix("             ") }
        #expect(!description.isEmpty)
        if size.0 == 80 { #expect(description.last?.hasSuffix("…") == true, "\(description)") }
        terminal.send("q")
        process.waitUntilExit()
    }

    @Test(arguments: [(80, 24), (160, 48)])
    func aWrongReasonKeyLeavesACleanPrompt(size: (Int, Int)) throws {
        let terminal = try PseudoTerminal()
        let process = try startQueue(terminal, columns: size.0, rows: size.1)
        defer { if process.isRunning { process.terminate() } }
        terminal.send("r")
        #expect(terminal.waitFor("(Esc cancels) > "))
        terminal.send("x")
        // The whole prompt, drawn last, not only its start.
        #expect(terminal.waitFor("press 1–8 for the reason, Esc to cancel >"))
        let screen = TerminalScreen(columns: size.0, rows: size.1, after: terminal.lastScreen)
        let lines = screen.lines
        #expect(screen.scrolled == 0, "\(lines.joined(separator: "\n"))")
        let prompt = try #require(
            lines.first { $0.hasSuffix("press 1–8 for the reason, Esc to cancel >") },
            "\(lines.joined(separator: "\n"))")
        // Every reason is still in view beside the prompt, on one or two clean lines.
        #expect(lines.contains { $0.hasPrefix("reason: 1 spam  2 not-litter") })
        #expect(prompt.contains("8 other  press"))
        #expect(
            lines.filter { $0.contains("1 spam") || $0.contains("8 other") }.count
                == (size.0 == 80 ? 2 : 1))
        #expect(
            !lines.contains { $0.contains("> ") && $0.contains("press") && !$0.hasPrefix("press") })
        #expect(lines.allSatisfy { $0.components(separatedBy: " > ").count <= 2 }, "\(lines)")
        #expect(lines.contains("post:        -NqXk2Lp9aBcDeFgHiJk"))
        terminal.send("7")
        #expect(terminal.waitFor("(2 of 2)"))
        terminal.send("q")
        process.waitUntilExit()
    }

    @Test func quittingSaysWhatWasRefused() throws {
        let terminal = try PseudoTerminal()
        let process = try startQueue(terminal, columns: 80, rows: 24)
        defer { if process.isRunning { process.terminate() } }
        // Someone else decides the post on view.
        _ = try BuiltBinary.run(
            ["review", "approve", "-NqXk2Lp9aBcDeFgHiJk", "--as", "bob"],
            environment: environment, directory: sandbox.folder.path)
        terminal.send("r")
        #expect(terminal.waitFor("(Esc cancels) > "))
        terminal.send("1")
        #expect(terminal.waitFor("(2 of 2)"))
        terminal.send("q")
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        // The last lines may still be on their way from the terminal when the process ends.
        #expect(terminal.waitFor("decisions recorded."))
        let end = terminal.screen.components(separatedBy: "[q]uit > ").last ?? ""
        #expect(end.contains("0 decisions recorded."), "\(end)")
        #expect(end.contains("1 refused, nothing changed for it:"), "\(end)")
        #expect(
            end.contains(
                "  -NqXk2Lp9aBcDeFgHiJk is now approved (you saw it pending): decided by bob"),
            "\(end)")
    }

    /// On a terminal the list measures the window itself (no COLUMNS).
    @Test(arguments: [(80, 24), (160, 48)])
    func reviewListOnATerminalPrintsWholeIdsWithinTheWindow(size: (Int, Int)) throws {
        let terminal = try PseudoTerminal()
        terminal.resize(columns: size.0, rows: size.1)
        let process = try terminal.start(
            ["review", "list"], environment: environment, directory: sandbox.folder)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(terminal.waitFor("2 posts"))
        let screen = TerminalScreen(columns: size.0, rows: size.1, after: terminal.screen)
        let lines = screen.lines
        for id in ["-NqXk2Lp9aBcDeFgHiJk", "-NqXk2Lp9aBcDeFgHiJl"] {
            #expect(lines.contains { $0.hasPrefix(id + " ") }, "\(lines.joined(separator: "\n"))")
        }
        // Nothing wrapped: every line of the table fits the window.
        #expect(lines.filter { !$0.isEmpty }.count == (size.0 == 80 ? 6 : 3) + 1, "\(lines)")
        #expect(lines.contains { $0.hasSuffix("…") })
    }

    @Test(arguments: [80, 160, 200])
    func reviewListPrintsWholeIdsAtAnyWidth(columns: Int) throws {
        let list = sandbox.run(
            ["review", "list"],
            environment: ["TROVE_WORKSPACE": sandbox.workspace, "COLUMNS": "\(columns)"])
        #expect(list.status == 0, "\(list.stderr)")
        let lines = list.stdout.split(separator: "\n").map(String.init)
        for id in ["-NqXk2Lp9aBcDeFgHiJk", "-NqXk2Lp9aBcDeFgHiJl"] {
            #expect(lines.contains { $0.hasPrefix(id + " ") }, "\(list.stdout)")
        }
        #expect(lines.allSatisfy { $0.count < columns }, "\(list.stdout)")
        #expect(list.stdout.contains("…"), "the long description is cut")
        #expect(list.stdout.contains("Cans by the bench"))
        // What is printed is what `show` takes.
        let id = try #require(
            lines.first { $0.hasPrefix("-NqXk2Lp9aBcDeFgHiJl") }?.split(separator: " ").first)
        #expect(
            sandbox.run(
                ["review", "show", String(id)], environment: ["TROVE_WORKSPACE": sandbox.workspace]
            ).status == 0)
    }
}
