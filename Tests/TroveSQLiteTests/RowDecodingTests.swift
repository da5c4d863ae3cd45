import Foundation
import Testing

@testable import TroveSQLite

@Suite struct RowDecodingTests {
    let database: Database

    init() throws {
        database = try Database(path: ":memory:")
        try database.execute(
            """
            CREATE TABLE t (id INTEGER PRIMARY KEY, title TEXT, score REAL, data BLOB);
            INSERT INTO t VALUES (1, 'Hairy Harry', 1.5, x'0102'), (2, NULL, NULL, NULL);
            """)
    }

    @Test func columnsAreFoundByNameOrAlias() throws {
        let statement = try database.prepare("SELECT score, title, id * 2 AS twice FROM t")
        #expect(statement.columns.names == ["score", "title", "twice"])
        #expect(try statement.column("title") == Column(name: "title", index: 1))
        #expect(try statement.column("twice").index == 2)
    }

    @Test func rowsAreReadByName() throws {
        let rows = try database.rows("SELECT data, score, title, id FROM t ORDER BY id") { row in
            (
                try row.int64("id"), try row.text("title"), try row.double("score"),
                try row.blob("data"), try row.value("title")
            )
        }
        #expect(rows.count == 2)
        #expect(rows[0].0 == 1 && rows[0].1 == "Hairy Harry" && rows[0].2 == 1.5)
        #expect(rows[0].3 == [1, 2] && rows[0].4 == .text("Hairy Harry"))
        #expect(rows[1].1 == nil && rows[1].2 == nil && rows[1].3 == nil && rows[1].4 == nil)
    }

    @Test func anUnknownColumnThrowsNamingItAndTheResultsColumns() throws {
        let statement = try database.prepare("SELECT id, title FROM t")
        let error = try #require(throws: SQLiteError.self) { try statement.column("titel") }
        #expect(error.message == "no column 'titel' in the result (its columns: id, title)")
        #expect(error.sql == "SELECT id, title FROM t")
        #expect(throws: SQLiteError.self) {
            _ = try database.rows("SELECT id FROM t") { try $0.text("title") }
        }
    }

    @Test func aColumnLookedUpOnceReadsEveryRow() throws {
        let statement = try database.prepare("SELECT title, id FROM t ORDER BY id")
        let title = try statement.column("title")
        var seen: [[UInt8]?] = []
        while let row = try statement.next() {
            seen.append(row.withUTF8(title) { Array($0) })
            #expect(row.text(title) == row.text(0))
        }
        #expect(seen == [Array("Hairy Harry".utf8), nil])
    }

    @Test func firstReadsOneRowAndResets() throws {
        let statement = try database.prepare("SELECT title FROM t WHERE id = ?")
        #expect(try statement.first([.integer(1)]) { try $0.text("title") } == "Hairy Harry")
        #expect(try statement.first([.integer(3)]) { try $0.text("title") } == nil)
        #expect(try statement.first([.integer(1)]) { try $0.text("title") } == "Hairy Harry")
    }

    @Test func aRepeatedNameStandsForTheFirstColumn() throws {
        let rows = try database.rows("SELECT 'a' AS x, 'b' AS x") { try $0.text("x") }
        #expect(rows == ["a"])
    }
}
