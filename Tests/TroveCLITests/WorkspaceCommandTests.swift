import Foundation
import Testing
import TroveSQLite

@testable import TroveCLI
@testable import TroveKit

@Suite struct WorkspaceCommandTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    @Test func commandsOtherThanInitNeedAWorkspace() {
        let result = sandbox.run("status")
        #expect(result.status == 4)
        #expect(result.stderr.contains("run 'trove init'"))
        #expect(!FileManager.default.fileExists(atPath: sandbox.workspace))
    }

    @Test func initIsIdempotent() {
        #expect(sandbox.run("init").status == 0)
        #expect(sandbox.run("init").status == 0)
        #expect(sandbox.run("status").status == 0)
    }

    @Test func workspaceComesFromFlagThenEnvironment() {
        #expect(sandbox.run("init", environment: ["TROVE_WORKSPACE": "env.sqlite"]).status == 0)
        #expect(FileManager.default.fileExists(atPath: sandbox.path("env.sqlite")))
        #expect(sandbox.run("-w", "flag.sqlite", "init").status == 0)
        #expect(FileManager.default.fileExists(atPath: sandbox.path("flag.sqlite")))
    }

    @Test func statusJSONHasTheDocumentedShape() throws {
        sandbox.run("init")
        let result = sandbox.run("status", "--format", "json")
        #expect(result.status == 0)
        let object =
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        #expect(object?["treasures"] as? Int == 0)
        #expect((object?["posts"] as? [String: Int])?["pending"] == 0)
        #expect((object?["images"] as? [String: Int])?["stale"] == 0)
        #expect(object?["geohash_stale"] as? Int == 0)
        #expect(object?["last_export"] is NSNull)
    }

    @Test func configSetGetListUnset() {
        sandbox.run("init")
        #expect(
            sandbox.run("config", "set", "storage.bucket", "flatiron-go.appspot.com").status == 0)
        #expect(
            sandbox.run("config", "get", "storage.bucket").stdout == "flatiron-go.appspot.com\n")
        #expect(sandbox.run("config", "list").stdout == "storage.bucket=flatiron-go.appspot.com\n")
        #expect(sandbox.run("config", "unset", "storage.bucket").status == 0)
        #expect(sandbox.run("config", "get", "storage.bucket").status == 1)
    }

    @Test func configRejectsBadValuesWithoutChangingAnything() {
        sandbox.run("init")
        let result = sandbox.run("config", "set", "game.bounds", "40,-74,41")
        #expect(result.status == 2)
        #expect(result.stderr.contains("expected minLat,minLon,maxLat,maxLon"))
        #expect(sandbox.run("config", "list").stdout == "")
    }

    @Test func anOlderWorkspaceIsMigratedForward() throws {
        let database = try Database(path: sandbox.workspace)
        try Migrator([Schema.migrator.migrations[0]]).migrate(database)
        try database.execute(
            "INSERT INTO treasures (key, name, lat, lon) VALUES ('k', 'Old', 1, 2)"
        )
        #expect(try Migrator.version(of: database) == 1)
        let result = sandbox.run("status", "--format", "json")
        #expect(result.status == 0)
        #expect(result.stdout.contains("\"treasures\": 1"))
        #expect(try Migrator.version(of: database) == Workspace.schemaVersion)
    }

    @Test func aNewerWorkspaceIsRefused() throws {
        sandbox.run("init")
        let database = try Database(path: sandbox.workspace)
        try database.execute("PRAGMA user_version = 99")
        let result = sandbox.run("status")
        #expect(result.status == 4)
        #expect(result.stderr.contains("schema version 99, newer than this trove understands"))
    }

    @Test func aFileThatIsNotADatabaseIsAWorkspaceProblem() throws {
        try sandbox.write("trove.sqlite", String(repeating: "not a database ", count: 200))
        let result = sandbox.run("status")
        #expect(result.status == 4)
        #expect(
            result.stderr.contains("not a usable workspace") || result.stderr.contains("cannot use")
        )
    }

    @Test func checkReportsAHealthyWorkspace() {
        sandbox.run("init")
        let result = sandbox.run("check")
        #expect(result.status == 0)
        #expect(result.stdout == "ok\n")
    }

    @Test func theAuditTrailRefusesUpdatesAndDeletes() throws {
        sandbox.run("init")
        let workspace = try Workspace(path: sandbox.workspace)
        try workspace.database.execute(
            """
            INSERT INTO posts (id, content_hash, imported_at, updated_at) VALUES ('p', 'h', 'x', 'x');
            INSERT INTO decisions (post_id, at, moderator, from_status, to_status)
            VALUES ('p', 'x', 'm', 'pending', 'approved');
            """)
        #expect(throws: SQLiteError.self) {
            try workspace.database.execute("UPDATE decisions SET moderator = 'x'")
        }
        #expect(throws: SQLiteError.self) {
            try workspace.database.execute("DELETE FROM decisions")
        }
    }
}
