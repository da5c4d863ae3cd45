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
        #expect(try database.scalar("SELECT count(*) FROM sqlite_master") == .integer(0))
    }
}
