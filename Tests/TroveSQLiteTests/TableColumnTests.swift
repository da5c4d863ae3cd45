import Testing

@testable import TroveSQLite

@Suite struct TableColumnTests {
    enum Column: String, TableColumn {
        static let table = "posts"
        case id, status
        case signalNames = "signal_names"
    }

    enum Status: String { case pending, approved }

    let database: Database

    init() throws {
        database = try Database(path: ":memory:")
        try database.execute("CREATE TABLE posts (id TEXT, status TEXT, signal_names TEXT)")
        try database.execute("INSERT INTO posts VALUES ('a', 'approved', NULL)")
        try database.execute("INSERT INTO posts VALUES ('b', 'spam', 'x')")
    }

    @Test func aRecordReadsItsColumnsByNameInAnyOrder() throws {
        let rows = try database.query(
            "SELECT signal_names, status, id FROM posts WHERE id = 'a'"
        ) { row in
            (
                try row.required(Column.id), try row.value(Column.status, as: Status.self),
                try row.text(Column.signalNames)
            )
        }
        #expect(rows.count == 1)
        #expect(rows[0].0 == "a")
        #expect(rows[0].1 == .approved)
        #expect(rows[0].2 == nil)
    }

    @Test func aColumnTheStatementDoesNotSelectIsAnErrorNamingIt() throws {
        #expect(
            throws: RowDecodingError(
                table: "posts", column: "status",
                problem: "is not in the result of: SELECT id FROM posts")
        ) {
            try database.query("SELECT id FROM posts") { try $0.text(Column.status) }
        }
    }

    @Test func aValueOfNoKnownKindAndANullRequiredColumnAreErrorsNotTraps() throws {
        #expect(
            throws: RowDecodingError(
                table: "posts", column: "status", problem: "holds 'spam', which is not a Status")
        ) {
            try database.query("SELECT status FROM posts WHERE id = 'b'") {
                try $0.value(Column.status, as: Status.self)
            }
        }
        #expect(
            throws: RowDecodingError(table: "posts", column: "signal_names", problem: "is NULL")
        ) {
            try database.query("SELECT signal_names FROM posts WHERE id = 'a'") {
                try $0.required(Column.signalNames)
            }
        }
    }
}
