import Foundation
import Testing

@testable import TroveCLI
@testable import TroveCommandLine
@_spi(Testing) @testable import TroveStore

/// Firebase push ids start with '-': they are taken as typed, anywhere on the line.
@Suite struct PostIDArgumentTests {
    let parser = Parser(root: TroveCLI.root)

    @Test func pushIDsAreArgumentsAndOptionsAfterThemStillWork() throws {
        let show = try parser.parse(["review", "show", "-Mq2river"])
        #expect(show.arguments["id"] == ["-Mq2river"])
        let reopen = try parser.parse(["review", "reopen", "-Mq3corner", "--note", "recheck"])
        #expect(reopen.arguments["id"] == ["-Mq3corner"])
        #expect(reopen.values["note"] == ["recheck"])
        let approve = try parser.parse(["review", "approve", "-Mq1a", "-Mq2b", "--as", "x"])
        #expect(approve.arguments["id"] == ["-Mq1a", "-Mq2b"])
        #expect(approve.values["as"] == ["x"])
        let log = try parser.parse(["review", "log", "-NxY3_k-9"])
        #expect(log.arguments["id"] == ["-NxY3_k-9"])
    }

    @Test func doubleDashKeepsItsMeaning() throws {
        let parsed = try parser.parse(["review", "reopen", "--as", "x", "--", "-q", "--note"])
        #expect(parsed.arguments["id"] == ["-q", "--note"])
        #expect(parsed.values["note"] == nil)
        #expect(!parsed.flags.contains("quiet"))
    }

    @Test func declaredOptionsWinOverTheIDShape() throws {
        let parsed = try parser.parse(["review", "approve", "-Mq1a", "-q", "-w", "ws.sqlite"])
        #expect(parsed.arguments["id"] == ["-Mq1a"])
        #expect(parsed.flags.contains("quiet"))
        #expect(parsed.values["workspace"] == ["ws.sqlite"])
    }

    @Test(arguments: [
        (
            ["review", "approve", "-zzz", "--as", "x"],
            "unknown option '-zzz'; a post id starting with '-' goes after '--' "
                + "(trove review approve -- -zzz)"
        ),
        (
            ["review", "approve", "p1", "--forse"],
            "unknown option '--forse' (did you mean '--force'?)"
        ),
        (["status", "-Mq2river"], "unknown option '-Mq2river'"),
        (["review", "lst"], "unknown command 'lst' (did you mean 'list'?)"),
        (["review", "aprove", "p1"], "unknown command 'aprove' (did you mean 'approve'?)"),
    ])
    func unknownOptionsAndSubcommandsAreUsageErrors(arguments: [String], message: String) {
        do {
            _ = try parser.parse(arguments)
            Issue.record("\(arguments) parsed")
        } catch {
            #expect(error.message == message)
        }
    }

    @Test func anInjectedLookupAcceptsKnownIDsWithoutThePushShape() throws {
        let parser = Parser(root: TroveCLI.root, isPostID: { $0 == "-odd" })
        #expect(try parser.parse(["review", "show", "-odd"]).arguments["id"] == ["-odd"])
        #expect(throws: UsageError.self) { try parser.parse(["review", "show", "-even"]) }
    }

    @Test func theShapeOfAPushID() {
        for word in ["-Mq2river", "-Mq1a", "-N0aB_c-d", "-K1234567890abcdefgh"] {
            #expect(Parser.hasPushIDShape(word), "\(word)")
        }
        for word in ["-q", "-Mq", "-mq2river", "--note", "-Mq2 river", "-Mq2é"] {
            #expect(!Parser.hasPushIDShape(word), "\(word)")
        }
    }
}

/// The same, end to end: the commands a moderator types, with exit statuses.
@Suite struct PostIDCommandTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        sandbox.run("init")
        let csv = """
            id,user,lat,lon,description,date,photo
            -Mq1a,alice,40.7128,-74.0060,cans,2022-01-24,
            -Mq2b,bob,40.7300,-74.0000,bottles,2022-01-25,
            -Mq2river,carl,40.7400,-74.0100,river bank,2022-01-26,
            -Mq3corner,dana,40.7500,-74.0200,corner,2022-01-27,
            -odd,erin,40.7600,-74.0300,odd id,2022-01-28,
            """
        try sandbox.write("posts.csv", csv)
        sandbox.run("import", "posts", "posts.csv")
    }

    @Test func aModeratorsDayWithPushIDs() throws {
        let show = sandbox.run("review", "show", "-Mq2river")
        #expect(show.status == 0)
        #expect(show.stdout.contains("post:        -Mq2river"))
        let approve = sandbox.run("review", "approve", "-Mq1a", "-Mq2b", "--as", "x")
        #expect(approve.status == 0, "\(approve.stderr)")
        #expect(approve.stderr.contains("-Mq2b: pending → approved"))
        sandbox.run("review", "approve", "-Mq3corner", "--as", "x")
        let reopen = sandbox.run("review", "reopen", "-Mq3corner", "--note", "recheck")
        #expect(reopen.status == 0, "\(reopen.stderr)")
        let log = sandbox.run("review", "log", "-Mq3corner")
        #expect(log.stdout.contains("tester  approved → pending  recheck"))
        // An id in the workspace without the push shape is known too.
        #expect(sandbox.run("review", "show", "-odd").status == 0)
        // Run twice: the second approval is the same decision again, not misparsed.
        let again = sandbox.run("review", "approve", "-Mq1a", "--as", "x")
        #expect(again.status == 0)
        #expect(again.stderr.contains("-Mq1a: already approved"))
    }

    @Test func anUnknownOptionStillExits2AndSuggestsDoubleDash() {
        let result = sandbox.run("review", "approve", "-nope", "--as", "x")
        #expect(result.status == 2)
        #expect(result.stderr.contains("goes after '--' (trove review approve -- -nope)"))
        #expect(result.stderr.contains("usage: trove review approve"))
        #expect(sandbox.run("review", "lst").stderr.contains("did you mean 'list'?"))
    }

    /// Asking whether a word is a post id reads the workspace the line names, read-only:
    /// it neither migrates an older one nor writes anything to the file.
    @Test func lookingUpAPostIDNeverWritesToTheWorkspace() throws {
        let sandbox = try Sandbox()
        #expect(sandbox.run("-w", "old.sqlite", "init").status == 0)
        let path = sandbox.path("old.sqlite")
        try Workspace(path: path).fixture.addPost(
            "-odd", user: "u", lat: 1, lon: 2, status: "pending")
        let database = try Workspace.testDatabase(at: path)
        // SQL: the schema from before migration 021, which no command writes.
        try database.execute(
            """
            DELETE FROM schema_migrations WHERE name = '021-published-counts';
            ALTER TABLE publish_targets DROP COLUMN paths;
            ALTER TABLE publish_targets DROP COLUMN objects;
            PRAGMA wal_checkpoint(TRUNCATE);
            """)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let context = Context(
            standardOutput: CommandOutput(capturingAsTerminal: false),
            standardError: CommandOutput(capturingAsTerminal: false), environment: [:],
            currentDirectory: sandbox.folder.path)
        let lookup = TroveCLI.postLookup(["review", "show", "-w", "old.sqlite", "-odd"], context)
        #expect(lookup("-odd"))
        #expect(!lookup("-even"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(
            try database.scalar(
                "SELECT count(*) FROM schema_migrations WHERE name = '021-published-counts'")
                == .integer(0))
    }
}
