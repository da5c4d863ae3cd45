import Foundation
import Testing
import TroveImaging

@testable import TroveCLI
@_spi(Testing) @testable import TroveStore

/// `import posts FILE` stores its posts in batches: a run killed or interrupted keeps the
/// batches it finished and withdraws nothing, and the next run ends in the state an
/// uninterrupted import of the same file leaves.
@Suite struct InterruptedPostsImportTests {
    /// A folder with `trove.sqlite` and `whole.sqlite`, both holding an earlier import of
    /// `posts.csv` (with a post the new file no longer has), and the new `posts.csv` of
    /// `count` posts, each with a photo of its own (one picture with a different trailer
    /// after its end, so every file is read on its own).
    func sandbox(of count: Int) throws -> Sandbox {
        let sandbox = try Sandbox()
        let jpeg = try JPEG.encode(ImagesTests.photo(width: 200, height: 150), quality: 90)
        try sandbox.write(
            "posts.csv",
            "id,user,lat,lon,description,date,photo\n"
                + "gone,u1,40.1,-74,Gone since,2024-01-01,\n"
                + "p0,u1,40.1,-74,Before,2024-01-01,\n")
        for workspace in ["trove.sqlite", "whole.sqlite"] {
            #expect(sandbox.run("-w", workspace, "init").status == 0)
            let first = sandbox.run("-w", workspace, "import", "posts", "posts.csv")
            #expect(first.status == 0, "\(first.stderr)")
        }
        var csv = "id,user,lat,lon,description,date,photo\n"
        for index in 0..<count {
            try sandbox.write("photos/\(index).jpg", Data(jpeg + Array("copy \(index)".utf8)))
            csv +=
                "p\(index),u\(index % 7),40.\(index % 50),-74.\(index % 30),Bin \(index),"
                + "2024-01-0\(1 + index % 9),\(index).jpg\n"
        }
        try sandbox.write("posts.csv", csv)
        return sandbox
    }

    static let arguments = ["import", "posts", "posts.csv", "--photos", "photos"]

    func count(_ sandbox: Sandbox, _ workspace: String = "trove.sqlite") throws -> Int {
        Int(
            try Workspace.testDatabase(at: sandbox.path(workspace)).scalar(
                "SELECT count(*) FROM posts WHERE status <> 'withdrawn'")?.int64 ?? 0)
    }

    /// Every post as a review shows it: fields, status, note, signals, version; and the
    /// trail and versions recorded.
    func state(_ sandbox: Sandbox, _ workspace: String) throws -> [String] {
        let database = try Workspace.testDatabase(at: sandbox.path(workspace))
        let posts = try database.query(
            """
            SELECT id, user, lat, lon, description, date, photo, photo_hash, photo_phash,
                   photo_width, photo_height, content_hash, status, status_note, signals,
                   signal_names, origin
            FROM posts ORDER BY id
            """
        ) { row in (0..<17).map { "\(row[$0].map { "\($0)" } ?? "NULL")" }.joined(separator: "|") }
        let trail = try database.query(
            "SELECT post_id, kind, from_status, to_status, note FROM decisions ORDER BY post_id, seq"
        ) { row in (0..<5).map { row.text($0) ?? "NULL" }.joined(separator: "|") }
        let versions = try database.query(
            "SELECT post_id, version FROM post_versions ORDER BY post_id, version"
        ) { row in (0..<2).map { row.text($0) ?? "NULL" }.joined(separator: "|") }
        return posts + trail + versions
    }

    /// Starts the import of more and more posts until `stop` ends it with some posts
    /// stored and others still to store; returns the folder, the number of posts and the
    /// stopped run's outcome.
    func stopped(
        by stop: (TroveProcess) -> TroveProcess.Outcome,
        endedEarly: (TroveProcess.Outcome) -> Bool
    ) throws -> (sandbox: Sandbox, count: Int, outcome: TroveProcess.Outcome)? {
        // The earlier import stored 1 of the file's posts; a batch stores more.
        try TroveProcess.stoppedMidway(
            Self.arguments, size: 600, prepare: sandbox(of:),
            progressed: { ((try? self.count($0)) ?? 0) > 2 }, stop: stop,
            endedEarly: endedEarly
        ).map { ($0.sandbox, $0.size, $0.outcome) }
    }

    /// The stopped run kept whole batches and withdrew nothing; the next run ends as an
    /// uninterrupted import of the file into the same workspace does.
    func expectTheNextRunFinishes(_ sandbox: Sandbox, count: Int) throws {
        // Whole batches were kept, and the post the file no longer holds is still there:
        // nothing is withdrawn before the whole file was stored.
        let kept = try self.count(sandbox)
        #expect(kept > 2 && kept <= count + 1, "\(kept) of \(count)")
        let gone = try Workspace.testDatabase(at: sandbox.workspace).scalar(
            "SELECT status FROM posts WHERE id = 'gone'")?.string
        #expect(gone == "pending")
        #expect(try TroveProcess.run(["check"], in: sandbox.folder.path).status == 0)
        let again = try TroveProcess.run(Self.arguments, in: sandbox.folder.path)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("no longer in posts.csv"), "\(again.stderr)")
        let whole = try TroveProcess.run(
            ["-w", "whole.sqlite"] + Self.arguments, in: sandbox.folder.path)
        #expect(whole.status == 0, "\(whole.stderr)")
        #expect(try self.count(sandbox) == count)
        let finished = try state(sandbox, "trove.sqlite")
        let uninterrupted = try state(sandbox, "whole.sqlite")
        #expect(finished.count == uninterrupted.count)
        for (ours, theirs) in zip(finished, uninterrupted) where ours != theirs {
            #expect(ours == theirs)
            break
        }
    }

    @Test func aKilledPostsImportKeepsItsBatchesAndTheNextRunFinishesIt() throws {
        let run = try #require(
            try stopped(by: { $0.killNow() }, endedEarly: { !$0.signalled }))
        #expect(run.outcome.signalled)
        try expectTheNextRunFinishes(run.sandbox, count: run.count)
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func anInterruptedPostsImportKeepsItsBatchesAndDoesNotExitZero(signal: Int32) throws {
        let run = try #require(
            try stopped(
                by: { $0.signal(signal) }, endedEarly: { !$0.stderr.contains("interrupted") }))
        #expect(run.outcome.status == 1, "\(run.outcome.stderr)")
        #expect(!run.outcome.signalled)
        #expect(
            run.outcome.stderr.contains("run the same command again to import the rest"),
            "\(run.outcome.stderr)")
        #expect(!run.outcome.stderr.contains("no longer in"), "\(run.outcome.stderr)")
        try expectTheNextRunFinishes(run.sandbox, count: run.count)
    }
}
