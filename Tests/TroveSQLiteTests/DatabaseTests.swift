import CSQLite
import Foundation
import Testing

@testable import TroveSQLite

@Suite struct DatabaseTests {
    let database: Database

    init() throws {
        database = try Database(path: ":memory:")
        try database.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)")
    }

    @Test func boundParametersRoundTripEveryType() throws {
        try database.execute("CREATE TABLE v (a, b, c, d, e)")
        try database.execute(
            "INSERT INTO v VALUES (?, ?, ?, ?, ?)",
            [
                .integer(7), .real(40.7128), .text("007 ☃'; DROP TABLE v; --"), .blob([0, 1, 255]),
                nil,
            ])
        let row = try database.query("SELECT a, b, c, d, e FROM v") { row in
            [row[0], row[1], row[2], row[3], row[4]]
        }
        #expect(
            row == [
                [
                    .integer(7), .real(40.7128), .text("007 ☃'; DROP TABLE v; --"),
                    .blob([0, 1, 255]), nil,
                ]
            ])
    }

    @Test func errorTextCutsTheStatementToItsFirstWords() {
        let sql =
            "INSERT OR IGNORE INTO sources (path) VALUES (?) " + String(repeating: "x ", count: 300)
        let error = SQLiteError(code: 13, message: "database or disk is full", sql: sql)
        #expect(
            error.description
                == "SQLite error 13: database or disk is full (in INSERT OR IGNORE INTO sources (path) …)"
        )
        #expect(error.sql == sql)
        #expect(error.isDiskFull)
    }

    @Test func aMissingFileOpenedWithoutCreateCannotOpen() {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("missing-\(UUID().uuidString)/none.db").path
        let error = #expect(throws: SQLiteError.self) {
            _ = try Database(path: path, mode: .readOnly)
        }
        #expect(error?.isCannotOpen == true)
        #expect(error?.isReadOnly == false)
    }

    @Test func immutableURIsEscapeTheirPath() {
        #expect(
            Database.immutableURI("/a b/c?d#e%.db") == "file:/a%20b/c%3Fd%23e%25.db?immutable=1")
    }

    @Test func errorsCarrySQLitesMessageAndTheSQL() throws {
        let error = #expect(throws: SQLiteError.self) {
            try database.execute("INSERT INTO missing VALUES (1)", [])
        }
        #expect(error?.message == "no such table: missing")
        #expect(error?.sql == "INSERT INTO missing VALUES (1)")
    }

    @Test func transactionRollsBackWhenTheBodyThrows() throws {
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try database.transaction {
                try database.execute("INSERT INTO t (name) VALUES (?)", ["a"])
                throw Stop()
            }
        }
        #expect(try database.scalar("SELECT count(*) FROM t") == .integer(0))
        #expect(!database.isInTransaction)
    }

    @Test func transactionCommitsWhenTheBodyReturns() throws {
        let inserted = try database.transaction {
            try database.execute("INSERT INTO t (name) VALUES (?)", ["a"])
        }
        #expect(inserted == 1)
        #expect(try database.scalar("SELECT name FROM t") == .text("a"))
    }

    @Test func swiftFunctionsAreCallableFromSQL() throws {
        try database.createFunction("twice", argumentCount: 1) { arguments in
            arguments.int64(0).map { .integer($0 * 2) }
        }
        #expect(try database.scalar("SELECT twice(21)") == .integer(42))
        #expect(try database.scalar("SELECT twice(NULL)") == nil)
    }

    @Test func emptyTextBindsAsEmptyNotNull() throws {
        let statement = try database.prepare("SELECT ? IS NULL, length(?1)")
        try [UInt8]().withUnsafeBytes { try statement.bindText($0, at: 1) }
        let row = try #require(try statement.next())
        #expect(row.int64(0) == 0)
        #expect(row.int64(1) == 0)
    }
}

@Suite struct MigratorTests {
    let migrator = Migrator([
        .init("001-a", sql: "CREATE TABLE a (x)"),
        .init("002-b", sql: "CREATE TABLE b (y)"),
    ])

    @Test func appliesOnlyTheMissingMigrations() throws {
        let database = try Database(path: ":memory:")
        try Migrator([migrator.migrations[0]]).migrate(database)
        try database.execute("INSERT INTO a VALUES (1)")
        let applied = try migrator.migrate(database)
        #expect(applied == ["002-b"])
        #expect(try Migrator.version(of: database) == 2)
        #expect(try database.scalar("SELECT count(*) FROM a") == .integer(1))
        #expect(try migrator.migrate(database).isEmpty)
    }

    @Test func migrationsAreRecordedByName() throws {
        let database = try Database(path: ":memory:")
        try migrator.migrate(database)
        #expect(try migrator.appliedNames(database) == ["001-a", "002-b"])
        #expect(try Migrator.version(of: database) == 2)
    }

    @Test func aCountedDatabaseIsRecordedByNameAndMigratedForward() throws {
        // As databases were before the record: the first migration's tables, counted.
        let database = try Database(path: ":memory:")
        try database.execute(
            "CREATE TABLE a (x); INSERT INTO a VALUES (1); PRAGMA user_version = 1")
        let applied = try migrator.migrate(database)
        #expect(applied == ["002-b"])
        #expect(try migrator.appliedNames(database) == ["001-a", "002-b"])
        #expect(try database.scalar("SELECT count(*) FROM a") == .integer(1))
        #expect(try migrator.migrate(database).isEmpty)
    }

    @Test func aCurrentCountedDatabaseGetsItsRecordWithoutRunningAnything() throws {
        let database = try Database(path: ":memory:")
        try database.execute("CREATE TABLE a (x); CREATE TABLE b (y); PRAGMA user_version = 2")
        #expect(try migrator.migrate(database).isEmpty)
        #expect(try migrator.appliedNames(database) == ["001-a", "002-b"])
    }

    @Test func aMigrationMissingBetweenRecordedOnesIsApplied() throws {
        // Two branches each added one: the database has the later one, not the other.
        let database = try Database(path: ":memory:")
        try Migrator([migrator.migrations[0], .init("003-c", sql: "CREATE TABLE c (z)")])
            .migrate(database)
        let merged = Migrator(migrator.migrations + [.init("003-c", sql: "CREATE TABLE c (z)")])
        #expect(try merged.migrate(database) == ["002-b"])
        #expect(try merged.appliedNames(database) == ["001-a", "003-c", "002-b"])
        #expect(try Migrator.version(of: database) == 3)
    }

    @Test func aRecordedNameThisMigratorDoesNotKnowIsRefused() throws {
        let database = try Database(path: ":memory:")
        try Migrator(migrator.migrations + [.init("003-future", sql: "CREATE TABLE f (z)")])
            .migrate(database)
        let error = #expect(throws: Migrator.MigrationError.self) {
            try migrator.migrate(database)
        }
        #expect(error == .unknownMigrations(["003-future"]))
        #expect(try database.scalar("SELECT count(*) FROM f") == .integer(0))
    }

    @Test func aNegativeCountIsInvalid() throws {
        let database = try Database(path: ":memory:")
        try database.execute("PRAGMA user_version = -3")
        let error = #expect(throws: Migrator.MigrationError.self) {
            try migrator.migrate(database)
        }
        #expect(error == .invalidVersion(-3))
    }

    @Test func aReadOnlyDatabaseOpensOnlyWhenCurrent() throws {
        let database = try Database(path: ":memory:")
        try Migrator([migrator.migrations[0]]).migrate(database)
        let error = #expect(throws: Migrator.MigrationError.self) {
            try migrator.migrate(database, readOnly: true)
        }
        #expect(error == .readOnly(pending: ["002-b"]))
        try migrator.migrate(database)
        #expect(try migrator.migrate(database, readOnly: true).isEmpty)
    }

    @Test func refusesANewerSchema() throws {
        let database = try Database(path: ":memory:")
        try database.execute("PRAGMA user_version = 9")
        #expect(throws: Migrator.MigrationError.self) { try migrator.migrate(database) }
    }

    @Test func aFailingMigrationLeavesThePreviousVersion() throws {
        let database = try Database(path: ":memory:")
        let broken = Migrator([
            .init("001-a", sql: "CREATE TABLE a (x)"),
            .init("002-broken", sql: "CREATE TABLE a (x)"),
        ])
        #expect(throws: SQLiteError.self) { try broken.migrate(database) }
        #expect(try Migrator.version(of: database) == 0)
        #expect(try broken.appliedNames(database) == nil)
        #expect(try database.scalar("SELECT count(*) FROM sqlite_master") == .integer(0))
    }
}
