import Foundation
import Testing
import TroveBase
import TroveHTTP
import TroveImaging

@testable import TroveCLI
@_spi(Testing) @testable import TroveKit
@_spi(Testing) @testable import TroveStore

/// `trove publish --refresh` killed with SIGKILL while it repairs a target that drifted
/// (objects deleted, a value edited, a path deleted), at points the real binary reaches and
/// says it reached: once it has read the target, once its plan is recorded, and once the
/// bucket holds the re-uploaded objects while the database refuses writes. The next run
/// must leave the database and the bucket exactly as an uninterrupted run does, with
/// nothing left to repair.
@Suite(.serialized, .enabled(if: LivePublish.isAvailable, LivePublish.skipReason))
struct PublishRefreshKillTests {
    /// Where a trial kills the run: after a line of stderr that starts with `line`, and
    /// then, if `stored` is given, once the bucket holds it again.
    struct KillPoint {
        var line: String
        var stored: String?
    }

    @Test func aRefreshKilledAnywhereResumesToTheUninterruptedResult() throws {
        try BuiltBinary.require()
        let base = try Self.base()
        var expected: State?
        let points: [KillPoint?] = [
            nil, KillPoint(line: "read "), KillPoint(line: "missing from gs://"),
            KillPoint(line: "missing from gs://", stored: "treasures/lx-003/"),
        ]
        for (index, point) in points.enumerated() {
            let trial = try Trial(base: base)
            if let point {
                let killed = try trial.kill(at: point)
                #expect(killed, "trial \(index): the run ended before its kill point")
            }
            let resumed = try trial.binary(["publish", "--refresh"])
            #expect(resumed.status == 0, "trial \(index): \(resumed.output)")
            let state = try trial.state()
            if let expected {
                #expect(state == expected, "trial \(index) differs from the uninterrupted run")
            } else {
                expected = state
            }
            let again = try trial.binary(["publish", "--refresh", "--dry-run"])
            #expect(again.status == 0, "trial \(index): \(again.output)")
            #expect(again.output.contains("game is up to date: nothing to publish"))
            #expect(again.output.contains("game holds what trove recorded"))
        }
        #expect(expected?.objects.count == 24)
    }

    /// A workspace of 24 treasures with rendered artwork and a target `game` on bucket
    /// `trove-live`, its database set per trial.
    static func base() throws -> Sandbox {
        let sandbox = try Sandbox()
        var rows = "key,name,lat,lon,image\n"
        for index in 1...24 {
            let key = LivePublish.key(index)
            try sandbox.write("art/\(key).png", Data(try LivePublish.png(seed: index)))
            rows +=
                "\(key),Treasure \(index),\(40 + Double(index) / 50),-74.\(index),art/\(key).png\n"
        }
        try sandbox.write("treasures.csv", rows)
        for arguments in [
            ["init"], ["import", "treasures", "treasures.csv"], ["geohash"], ["images"],
            [
                "publish", "target", "add", "game", "--database", "http://127.0.0.1:9",
                "--bucket", "gs://\(LivePublish.bucket)", "--layout", "flatirongo",
            ],
        ] {
            let result = sandbox.run(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
        }
        return sandbox
    }

    /// What a target holds: the database as text, and each object's tokens and MD5.
    struct State: Equatable {
        var tree: String
        var objects: [String: String]
    }

    /// A copy of the base workspace (its tokens the same) published to services of its
    /// own, then drifted.
    final class Trial {
        let sandbox: Sandbox
        let emulator: StorageEmulator
        let database: DatabaseStandIn

        init(base: Sandbox) throws {
            sandbox = try Sandbox()
            for name in try FileManager.default.contentsOfDirectory(atPath: base.folder.path) {
                try FileManager.default.copyItem(
                    atPath: base.path(name), toPath: sandbox.path(name))
            }
            emulator = try StorageEmulator(buckets: [LivePublish.bucket])
            database = try DatabaseStandIn()
            let environment = self.environment
            for arguments in [
                ["publish", "target", "set", "game", "--database", database.url], ["publish"],
            ] {
                let result = sandbox.run(arguments, environment: environment)
                #expect(result.status == 0, "\(arguments): \(result.stderr)")
            }
            // Drift: two objects deleted, a value edited, a path deleted, a node seeded.
            let storage = try Transports.storage(CloudEnvironment(reading: emulator.environment))
            let names = try listing().keys.filter {
                $0.hasPrefix("treasures/lx-003/") || $0.hasPrefix("treasures/lx-017/")
            }
            try storage.delete(Array(names), bucket: LivePublish.bucket) { _ in }
            try database.patch(
                path: "/",
                json: """
                    {"treasureProfiles/lx-005/name": "Edited", "treasureLocations/lx-011": null,
                     "treasureProfiles/zz": {"name": "Seeded"}}
                    """)
            // The database refuses the repair's first writes: the run retries for a while.
            try database.failNextWrites(status: 503, count: 4)
        }

        var environment: [String: String] {
            emulator.environment.merging(database.environment) { $1 }
        }

        /// Runs the built binary to its end; stdout and stderr together.
        func binary(_ arguments: [String]) throws -> (status: Int32, output: String) {
            let process = try launch(arguments)
            let pipe = process.standardOutput as! Pipe
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: data, as: UTF8.self))
        }

        private func launch(_ arguments: [String]) throws -> Process {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: BuiltBinary.path)
            process.arguments = ["-w", sandbox.workspace] + arguments
            process.currentDirectoryURL = sandbox.folder
            process.environment = ProcessInfo.processInfo.environment.merging(environment) {
                $1
            }
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            process.standardInput = FileHandle.nullDevice
            try process.run()
            return process
        }

        /// Runs `publish --refresh` and kills it at `point`; whether it was still running.
        func kill(at point: KillPoint) throws -> Bool {
            let process = try launch(["publish", "--refresh"])
            let reader = (process.standardOutput as! Pipe).fileHandleForReading
            var seen = ""
            var reached = false
            while !reached {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                seen += String(decoding: chunk, as: UTF8.self)
                reached = seen.split(separator: "\n", omittingEmptySubsequences: false)
                    .dropLast().contains { $0.hasPrefix(point.line) }
            }
            if reached, let stored = point.stored {
                // Until the bucket holds the object again: the run is then past its
                // uploads, retrying the database.
                while process.isRunning,
                    try !listing().keys.contains(where: { $0.hasPrefix(stored) })
                {
                    usleep(5_000)
                }
            }
            let running = reached && process.isRunning
            Foundation.kill(process.processIdentifier, SIGKILL)
            seen += String(decoding: reader.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            if !(running && process.terminationReason == .uncaughtSignal) {
                Issue.record("reached \(reached), running \(running): \(seen)")
            }
            return running && process.terminationReason == .uncaughtSignal
        }

        /// Every object's tokens and MD5, through the JSON API.
        func listing() throws -> [String: String] {
            var objects: [String: String] = [:]
            var pageToken: String?
            repeat {
                var url =
                    "\(emulator.endpoint)/storage/v1/b/\(LivePublish.bucket)/o?maxResults=1000"
                if let pageToken { url += "&pageToken=\(pageToken)" }
                let outcome = HTTPClient().send(HTTPRequest(method: "GET", url: url))
                guard case .response(let response, _) = outcome, response.succeeded,
                    let page = try JSONSerialization.jsonObject(with: Data(response.body))
                        as? [String: Any]
                else { throw ServiceError(message: "cannot list the bucket: \(outcome)") }
                for item in page["items"] as? [[String: Any]] ?? [] {
                    let metadata = item["metadata"] as? [String: Any]
                    objects[item["name"] as? String ?? ""] =
                        "\(metadata?["firebaseStorageDownloadTokens"] ?? "-") \(item["md5Hash"] ?? "")"
                }
                pageToken = page["nextPageToken"] as? String
            } while pageToken != nil
            return objects
        }

        func state() throws -> State {
            State(tree: try database.treeText(), objects: try listing())
        }
    }
}
