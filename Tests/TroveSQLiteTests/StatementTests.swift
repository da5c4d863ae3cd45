import Foundation
import Testing

@testable import TroveSQLite

@Suite struct StatementTests {
    let folder: URL
    let database: Database

    init() throws {
        folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("trove-statement-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        database = try Database(path: folder.appendingPathComponent("t.sqlite").path)
        try database.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, score REAL)")
        try database.execute(
            "INSERT INTO t VALUES (1, 'Hairy Harry', 1.5), (2, NULL, NULL), (3, '', 0)")
    }

    @Test func textIsReadInPlaceAndNullIsNil() throws {
        let statement = try database.prepare("SELECT name FROM t ORDER BY id")
        var seen: [[UInt8]?] = []
        while let row = try statement.next() {
            seen.append(row.withUTF8(0) { Array($0) })
        }
        #expect(seen == [Array("Hairy Harry".utf8), nil, []])
    }

    @Test func columnsAreReadByTheirNamesAndAliases() throws {
        let statement = try database.prepare(
            "SELECT score, id AS key, name, length(name) AS letters FROM t ORDER BY id")
        var rows: [String] = []
        while let row = try statement.next() {
            let name = row.text("name") ?? "NULL"
            let letters = row.int64("letters").map(String.init) ?? "NULL"
            let score = row.double("score").map { "\($0)" } ?? "NULL"
            rows.append("\(row.int64("key")!) \(name) \(letters) \(score)")
            #expect(row["key"] == .integer(row.int64(1)!))
        }
        #expect(rows == ["1 Hairy Harry 11 1.5", "2 NULL NULL NULL", "3  0 0.0"])
    }

    @Test func firstDecodesOneRowAndLeavesTheStatementReady() throws {
        let statement = try database.prepare("SELECT name FROM t WHERE id = ?")
        #expect(try statement.first([.integer(1)]) { $0.text("name") } == "Hairy Harry")
        #expect(try statement.first([.integer(9)]) { $0.text("name") } == nil)
        #expect(try statement.first([.integer(3)]) { $0.text("name") } == "")
    }

    @Test func aNameTheSQLDoesNotSelectStops() async {
        await #expect(processExitsWith: .failure) {
            let folder = FileManager.default.temporaryDirectory
                .appendingPathComponent("trove-column-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let database = try Database(path: folder.appendingPathComponent("t.sqlite").path)
            let statement = try database.prepare("SELECT 1 AS one")
            _ = try statement.next()?.int64("two")
        }
    }

    @Test func doublesDistinguishNullFromZero() throws {
        let scores = try database.query("SELECT score FROM t ORDER BY id", []) { $0.double(0) }
        #expect(scores == [1.5, nil, 0])
    }

    @Test func bindingTheWrongNumberOfValuesThrowsNamingBothCounts() throws {
        let statement = try database.prepare("SELECT name FROM t WHERE id = ? AND score > ?")
        #expect(statement.parameterCount == 2)
        for values: [SQLiteValue?] in [[.integer(1)], [.integer(1), .real(0), .integer(3)]] {
            let error = try #require(throws: SQLiteError.self) { try statement.bind(values) }
            #expect(error.message == "\(values.count) values bound to 2 parameters")
            #expect(error.sql == statement.sql)
        }
        #expect(throws: SQLiteError.self) {
            try database.execute("UPDATE t SET name = ? WHERE id = ?", [.text("x")])
        }
        #expect(
            try database.query("SELECT name FROM t WHERE id = 1", []) { $0.text(0) } == [
                "Hairy Harry"
            ])
    }

    @Test func rebindingClearsValuesBoundOneByOne() throws {
        let statement = try database.prepare("SELECT ?1 IS NULL, ?2 IS NULL")
        try statement.bind(.integer(7), at: 2)
        try statement.bind([.integer(1), nil])
        let row = try #require(try statement.next())
        #expect(row.int64(0) == 0)
        #expect(row.int64(1) == 1)
    }

    @Test func aStatementRunsAgainWithNewBindings() throws {
        let statement = try database.prepare("SELECT name FROM t WHERE id = ?")
        try statement.bind([.integer(1)])
        #expect(try statement.next()?.text(0) == "Hairy Harry")
        try statement.bind([.integer(3)])
        #expect(try statement.next()?.text(0) == "")
        #expect(try statement.next() == nil)
    }

    @Test func bindingMoreValuesThanParametersThrows() throws {
        let statement = try database.prepare("SELECT name FROM t WHERE id = ?")
        #expect(throws: SQLiteError.self) { try statement.bind([.integer(1), .integer(2)]) }
    }

    @Test func memoryMapIsGivenBackAfterTheBody() throws {
        try database.execute("PRAGMA mmap_size = 4096")
        let inside = try database.withMemoryMap(bytes: 1 << 20) {
            try database.scalar("PRAGMA mmap_size")?.int64
        }
        #expect(inside == 1 << 20)
        #expect(try database.scalar("PRAGMA mmap_size")?.int64 == 4096)
    }

    @Test func memoryMapIsGivenBackWhenTheBodyThrows() throws {
        struct Stop: Error {}
        try database.execute("PRAGMA mmap_size = 0")
        #expect(throws: Stop.self) {
            try database.withMemoryMap(bytes: 1 << 20) { throw Stop() }
        }
        #expect(try database.scalar("PRAGMA mmap_size")?.int64 == 0)
    }
}
