import Foundation
import Testing
import TroveSQLite

@testable import TroveCLI
@_spi(Testing) @testable import TroveStore

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

    /// `config set` checks every value, so a bad one was written some other way: each
    /// command that reads the settings names it and the fix rather than quietly taking the
    /// default, and changes nothing; `config unset` repairs it.
    @Test(arguments: [
        ("geohash.precision", "40", ["geohash"]),
        ("game.bounds", "north of here", ["validate"]),
        ("renditions.quality", "loud", ["images"]),
        ("storage.tokens", "maybe", ["export", "--layout", "flatirongo"]),
    ])
    func aSettingWrittenOutsideTroveIsRefusedWhereItIsRead(
        key: String, value: String, command: [String]
    ) throws {
        sandbox.run("init")
        _ = try sandbox.write("t.csv", "key,name,lat,lon\nk1,One,38.7,-9.1\n")
        #expect(sandbox.run("import", "treasures", "t.csv").status == 0)
        let database = try Workspace.testDatabase(at: sandbox.workspace)
        // SQL: 'config set' refuses such a value, so only a write outside trove holds it.
        try database.execute(
            "INSERT INTO settings (key, value) VALUES (?, ?)", [.text(key), .text(value)])
        let before = sandbox.run("treasures", "list", "--format", "json").stdout
        let refused = sandbox.run(command)
        #expect(refused.status == 4, "\(refused.stderr)")
        #expect(refused.stderr.contains("setting \(key) holds '\(value)'"), "\(refused.stderr)")
        #expect(refused.stderr.contains("trove config unset \(key)"))
        #expect(sandbox.run("treasures", "list", "--format", "json").stdout == before)
        #expect(sandbox.run("config", "unset", key).status == 0)
        #expect(sandbox.run(command).status != 4)
    }

    @Test func configRejectsBadValuesWithoutChangingAnything() {
        sandbox.run("init")
        let result = sandbox.run("config", "set", "game.bounds", "40,-74,41")
        #expect(result.status == 2)
        #expect(result.stderr.contains("expected minLat,minLon,maxLat,maxLon"))
        #expect(sandbox.run("config", "list").stdout == "")
    }

    @Test func anOlderWorkspaceIsMigratedForward() throws {
        let database = try Workspace.testDatabase(at: sandbox.workspace)
        try Migrator([Schema.migrator.migrations[0]]).migrate(database)
        // SQL: no command writes a treasure into the first schema.
        try database.execute(
            "INSERT INTO treasures (key, name, lat, lon) VALUES ('k', 'Old', 1, 2)"
        )
        #expect(try Migrator.version(of: database) == 1)
        let result = sandbox.run("status", "--format", "json")
        #expect(result.status == 0)
        #expect(result.stdout.contains("\"treasures\": 1"))
        #expect(try Migrator.version(of: database) == Workspace.schemaVersion)
    }

    /// A workspace as trove made it before migrations were recorded by name: the first
    /// `count` migrations' tables, counted in `user_version`, no application_id.
    func makeCountedWorkspace(migrations count: Int) throws -> Database {
        let database = try Workspace.testDatabase(at: sandbox.workspace)
        try database.execute("PRAGMA journal_mode = WAL")
        for migration in Schema.migrator.migrations.prefix(count) {
            try migration.apply(database)
        }
        try database.execute("PRAGMA user_version = \(count)")
        return database
    }

    @Test func aCountedWorkspaceIsRecordedByNameStampedAndMigratedForward() throws {
        let database = try makeCountedWorkspace(migrations: 2)
        // SQL: no command writes a treasure into a schema from before named migrations.
        try database.execute(
            "INSERT INTO treasures (key, name, lat, lon) VALUES ('k', 'Old', 1, 2)")
        #expect(try database.scalar("PRAGMA application_id") == .integer(0))
        let result = sandbox.run("status", "--format", "json")
        #expect(result.status == 0)
        #expect(result.stdout.contains("\"treasures\": 1"))
        #expect(
            try Schema.migrator.appliedNames(database)
                == Schema.migrator.migrations.map(\.name))
        #expect(
            try database.scalar("PRAGMA application_id")
                == .integer(Int64(Workspace.applicationID)))
        // And it keeps opening: the second run has nothing to do.
        #expect(sandbox.run("status").status == 0)
    }

    @Test func aNewerWorkspaceIsRefused() throws {
        sandbox.run("init")
        let database = try Workspace.testDatabase(at: sandbox.workspace)
        // SQL: only a newer trove records a migration this one does not know.
        try database.execute("INSERT INTO schema_migrations (name) VALUES ('999-from-the-future')")
        let result = sandbox.run("status")
        #expect(result.status == 4)
        #expect(
            result.stderr
                == "error: \(sandbox.workspace) was written by a newer trove (it records "
                + "migrations this one does not know: 999-from-the-future); upgrade trove\n")
    }

    @Test func aNewerCountedWorkspaceIsRefused() throws {
        let database = try makeCountedWorkspace(migrations: 1)
        try database.execute("PRAGMA user_version = 99")
        let result = sandbox.run("status")
        #expect(result.status == 4)
        #expect(result.stderr.contains("schema version 99, newer than this trove understands"))
    }

    @Test func aNegativeSchemaVersionIsRefusedClearly() throws {
        let database = try makeCountedWorkspace(migrations: 4)
        try database.execute("PRAGMA user_version = -3")
        let result = sandbox.run("status")
        #expect(result.status == 4)
        #expect(
            result.stderr
                == "error: \(sandbox.workspace) is not a trove workspace: its schema version -3 "
                + "is invalid; trove never writes one\n")
    }

    @Test func initStampsTheWorkspaceWithTrovesApplicationID() throws {
        sandbox.run("init")
        let database = try Workspace.testDatabase(at: sandbox.workspace)
        #expect(
            try database.scalar("PRAGMA application_id")
                == .integer(Int64(Workspace.applicationID)))
    }

    @Test(arguments: ["status", "init", "check"])
    func aForeignDatabaseIsRefusedAndLeftAlone(command: String) throws {
        let foreign = try Workspace.testDatabase(at: sandbox.workspace)
        // SQL: another program's database, which trove never writes.
        try foreign.execute("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine')")
        let before = try Data(contentsOf: URL(fileURLWithPath: sandbox.workspace))
        let result = sandbox.run(command)
        #expect(result.status == 4)
        #expect(
            result.stderr
                == "error: \(sandbox.workspace) is not a trove workspace: it is a SQLite database "
                + "that trove did not make; pass -w with the path of a workspace, or run "
                + "'trove init' for a new one\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: sandbox.workspace)) == before)
        #expect(
            try foreign.query("SELECT name FROM sqlite_master") { $0.text(0) ?? "" } == ["notes"])
    }

    @Test func anotherApplicationsDatabaseIsRefused() throws {
        let foreign = try Workspace.testDatabase(at: sandbox.workspace)
        try foreign.execute("PRAGMA application_id = 42")
        let result = sandbox.run("status")
        #expect(result.status == 4)
        #expect(result.stderr.contains("belongs to another application (SQLite application_id 42)"))
    }

    @Test func anEmptyFileIsNotAFreshWorkspace() throws {
        try sandbox.write("trove.sqlite", "")
        let result = sandbox.run("status")
        #expect(result.status == 4)
        #expect(
            result.stderr
                == "error: \(sandbox.workspace) is not a trove workspace: it is an empty file; "
                + "run 'trove init' to make it one (or pass -w PATH)\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: sandbox.workspace)).isEmpty)
        #expect(sandbox.run("init").status == 0)
        #expect(sandbox.run("status").status == 0)
    }

    @Test func aDroppedTableIsAWorkspaceProblemThatCheckNames() throws {
        sandbox.run("init")
        // SQL: damage no command does.
        try Workspace.testDatabase(at: sandbox.workspace).execute("DROP TABLE renditions")
        let status = sandbox.run("status")
        #expect(status.status == 4)
        #expect(
            status.stderr
                == "error: \(sandbox.workspace) is an incomplete or damaged workspace "
                + "(no such table: renditions); run 'trove check'\n")
        let check = sandbox.run("check")
        #expect(check.status == 1)
        // The table's triggers went with it and are named after it.
        #expect(check.stdout.hasPrefix("missing table renditions: the workspace is incomplete\n"))
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
        try workspace.fixture.addPost("p", user: "u", lat: 1, lon: 2, status: "pending")
        #expect(sandbox.run("review", "approve", "p", "--as", "m").status == 0)
        #expect(try workspace.testDatabase.scalar("SELECT count(*) FROM decisions")?.int64 == 1)
        // The writes under test: no command rewrites the trail, so only SQL can try.
        #expect(throws: SQLiteError.self) {
            try workspace.testDatabase.execute("UPDATE decisions SET moderator = 'x'")
        }
        #expect(throws: SQLiteError.self) {
            try workspace.testDatabase.execute("DELETE FROM decisions")
        }
    }
}
