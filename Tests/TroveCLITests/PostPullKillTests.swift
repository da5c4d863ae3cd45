import Foundation
import Testing
import TroveBase
import TroveSQLite

@_spi(Testing) @testable import TroveStore

/// `import posts --from` killed halfway: the real binary, SIGKILL once it has committed a
/// batch; the next run ends where an uninterrupted one does.
@Suite struct PostPullKillTests {
    /// Runs the binary on `sandbox`'s workspace against `app`, its outputs in files.
    func launch(_ sandbox: Sandbox, _ app: LiveApp) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: BuiltBinary.path)
        process.arguments = ["-w", sandbox.workspace, "import", "posts", "--from", app.locations]
        process.environment = ProcessInfo.processInfo.environment.merging(app.environment) { $1 }
        process.currentDirectoryURL = sandbox.folder
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Posts stored so far, read as another process would (nil before the first commit
    /// made the tables readable).
    func storedPosts(_ sandbox: Sandbox) -> Int64? {
        guard let database = try? Workspace.testDatabase(at: sandbox.workspace, mode: .readOnly),
            case .integer(let count)? = try? database.scalar("SELECT count(*) FROM posts")
        else { return nil }
        return count
    }

    /// What a pull leaves: every post's judged content, status and photo, the objects and
    /// files held, and no pull half done.
    func state(_ sandbox: Sandbox) throws -> [String] {
        let database = try Workspace.testDatabase(at: sandbox.workspace, mode: .readOnly)
        var lines = try database.query(
            """
            SELECT id, status, content_hash, photo_hash, signal_names, photo_ref
            FROM posts ORDER BY id
            """
        ) { row in (0..<6).map { row.text($0) ?? "-" }.joined(separator: " ") }
        lines += try database.query(
            "SELECT bucket, name, file, bytes FROM post_photo_objects ORDER BY bucket, name"
        ) { row in
            (0..<4).map { row.text($0) ?? String(row.int64($0) ?? -1) }.joined(separator: " ")
        }
        let seen = try database.scalar("SELECT count(*) FROM post_pull_seen")?.int64 ?? -1
        let complete =
            try database.scalar(
                "SELECT count(*) FROM post_pulls WHERE completed_at IS NOT NULL")?.int64 ?? -1
        lines += ["seen \(seen)", "complete \(complete)"]
        lines += sandbox.photoFiles()
        return lines
    }

    @Test(.enabled(if: LiveApp.available, LiveApp.skipReason))
    func aKilledPullGoesOnAndEndsAsAnUninterruptedOne() throws {
        try BuiltBinary.require()
        var posts = 400
        var killed: Sandbox?
        var app: LiveApp?
        for _ in 0..<3 where killed == nil {
            let live = try LiveApp()
            var photos: [(name: String, data: Data)] = []
            var records: [String: Any] = [:]
            for index in 0..<posts {
                let id = String(format: "-Np%05d", index)
                photos.append(
                    ("photos/\(id).jpg", try PostPhotos.jpeg(width: 64, height: 48, seed: index)))
                records[id] = LiveApp.record(
                    id, user: "u\(index % 25)", lat: 38.7 + Double(index) / 10_000,
                    description: "Report \(index)", photo: LiveApp.downloadURL("photos/\(id).jpg"))
            }
            try live.storage.put(LiveApp.bucket, objects: photos)
            try live.database.put(path: "Locations", json: LiveApp.json(records))

            let sandbox = try Sandbox()
            sandbox.run("init")
            let process = try launch(sandbox, live)
            // The observable sign: a batch committed, seen from another connection.
            var committed: Int64 = 0
            while process.isRunning {
                committed = storedPosts(sandbox) ?? 0
                if committed > 0 { break }
                usleep(2_000)
            }
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                if process.terminationReason == .uncaughtSignal, committed < Int64(posts) {
                    killed = sandbox
                    app = live
                    break
                }
            } else {
                process.waitUntilExit()
            }
            posts *= 2
        }
        let interrupted = try #require(killed, "the pull always finished before a batch was seen")
        let live = try #require(app)
        // Killed: what was committed is there, no withdrawal and no completed read.
        let database = try Workspace.testDatabase(at: interrupted.workspace, mode: .readOnly)
        #expect(
            try database.scalar("SELECT count(*) FROM post_pulls WHERE completed_at IS NOT NULL")
                == .integer(0))
        #expect(
            try database.scalar("SELECT count(*) FROM posts WHERE status = 'withdrawn'")
                == .integer(0))

        // The next run goes on: it downloads only what the killed one had not kept.
        let again = interrupted.run(
            ["import", "posts", "--from", live.locations, "--format", "json"],
            environment: live.environment)
        #expect(again.status == 0, "\(again.stderr)")
        let downloaded = (again.object["downloaded"] as? [String: Any])?["photos"] as? Int ?? -1
        #expect(downloaded >= 0 && downloaded < posts)
        #expect((again.object["withdrawn"] as? [Any])?.isEmpty == true)

        let uninterrupted = try Sandbox()
        uninterrupted.run("init")
        let whole = uninterrupted.run(
            ["import", "posts", "--from", live.locations], environment: live.environment)
        #expect(whole.status == 0, "\(whole.stderr)")
        let expected = try state(uninterrupted)
        let found = try state(interrupted)
        #expect(found.count == expected.count)
        #expect(found == expected)
        #expect(expected.contains("seen 0"))
        #expect(expected.contains("complete 1"))
    }
}
