import CSQLite

/// A connection to one SQLite database file.
///
/// Owns its handle and closes it in `deinit`. Not thread-safe: use one connection per
/// thread. See <https://sqlite.org/c3ref/open.html>.
public final class Database {
    /// The raw `sqlite3*` handle, for the rare call this wrapper does not cover.
    public let handle: OpaquePointer
    /// The path the database was opened from.
    public let path: String
    /// How it was opened.
    public let mode: Mode

    /// How a database is opened.
    public enum Mode: Sendable {
        case readWrite
        case readWriteCreate
        case readOnly
        /// Read-only, and the file is taken to change under no one: for a file on
        /// read-only media or in a read-only folder, where the shared-memory file a WAL
        /// reader needs cannot be created. See <https://sqlite.org/uri.html#uriimmutable>.
        case immutable
    }

    /// Opens the database at `path` (`:memory:` for a private in-memory database).
    ///
    /// - Throws: `SQLiteError` when the file cannot be opened.
    public init(path: String, mode: Mode = .readWriteCreate, busyTimeout: Int32 = 5000)
        throws(SQLiteError)
    {
        _ = Self.configured
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        switch mode {
        case .readWrite: flags |= SQLITE_OPEN_READWRITE
        case .readWriteCreate: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        case .readOnly, .immutable: flags |= SQLITE_OPEN_READONLY
        }
        var raw: OpaquePointer?
        let code = sqlite3_open_v2(
            mode == .immutable ? Self.immutableURI(path) : path, &raw, flags, nil)
        guard let raw else {
            throw SQLiteError(code: code, message: String(cString: sqlite3_errstr(code)))
        }
        if code != SQLITE_OK {
            let message = String(cString: sqlite3_errmsg(raw))
            sqlite3_close_v2(raw)
            throw SQLiteError(code: code, message: message)
        }
        self.handle = raw
        self.path = path
        self.mode = mode
        sqlite3_extended_result_codes(raw, 1)
        sqlite3_busy_timeout(raw, busyTimeout)
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// Sets how long a statement waits for another connection's lock before failing with
    /// `SQLITE_BUSY`; 0 fails at once.
    /// [sqlite3_busy_timeout](https://sqlite.org/c3ref/busy_timeout.html)
    public func setBusyTimeout(_ milliseconds: Int32) {
        sqlite3_busy_timeout(handle, milliseconds)
    }

    /// A `file:` URI for `path` with `immutable=1`, its special characters escaped.
    static func immutableURI(_ path: String) -> String {
        var uri = "file:"
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "%"), UInt8(ascii: "?"), UInt8(ascii: "#"), 0x00...0x20, 0x7F...:
                uri += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            default: uri.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        return uri + "?immutable=1"
    }

    /// True when this connection cannot write: opened read-only, or SQLite fell back to
    /// read-only because the file is not writable.
    public var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    /// Process-wide settings, applied once before the first connection opens.
    private static let configured: Bool = {
        trove_sqlite3_disable_memstatus() == SQLITE_OK
    }()

    // MARK: - Executing

    /// Runs one or more statements that take no parameters.
    ///
    /// - Throws: `SQLiteError` carrying the failing SQL.
    public func execute(_ sql: String) throws(SQLiteError) {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if code != SQLITE_OK {
            let message =
                errorMessage.map { String(cString: $0) }
                ?? String(
                    cString: sqlite3_errstr(code))
            sqlite3_free(errorMessage)
            throw SQLiteError(
                code: sqlite3_extended_errcode(handle), message: message, sql: sql,
                systemErrno: sqlite3_system_errno(handle))
        }
    }

    /// Runs one statement with bound parameters and returns the number of changed rows.
    ///
    /// - Throws: `SQLiteError`.
    @discardableResult
    public func execute(_ sql: String, _ values: [SQLiteValue?]) throws(SQLiteError) -> Int {
        let statement = try prepare(sql)
        try statement.bind(values)
        try statement.step()
        return changes
    }

    /// Compiles `sql` into a reusable statement.
    ///
    /// - Throws: `SQLiteError` when the SQL does not compile.
    public func prepare(_ sql: String) throws(SQLiteError) -> Statement {
        try Statement(database: self, sql: sql)
    }

    /// Runs a query and maps every row.
    ///
    /// - Throws: `SQLiteError`, or whatever `transform` throws.
    public func query<T>(
        _ sql: String, _ values: [SQLiteValue?] = [], _ transform: (Row) throws -> T
    ) throws -> [T] {
        let statement = try prepare(sql)
        try statement.bind(values)
        var result: [T] = []
        while let row = try statement.next() {
            result.append(try transform(row))
        }
        return result
    }

    /// The first column of the first row of a query, or nil when it returns no row.
    ///
    /// - Throws: `SQLiteError`.
    public func scalar(_ sql: String, _ values: [SQLiteValue?] = []) throws(SQLiteError)
        -> SQLiteValue?
    {
        let statement = try prepare(sql)
        try statement.bind(values)
        guard let row = try statement.next() else { return nil }
        return row[0]
    }

    /// Rows changed by the most recent INSERT, UPDATE or DELETE.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    /// The rowid of the most recent successful INSERT.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// True while a transaction is open.
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Pages this connection has had to read because its cache did not hold them: on a
    /// fresh connection, how much of the file a piece of work touched.
    public var pagesRead: Int {
        var current: Int32 = 0
        var highest: Int32 = 0
        sqlite3_db_status(handle, SQLITE_DBSTATUS_CACHE_MISS, &current, &highest, 0)
        return Int(current)
    }

    // MARK: - Reading

    /// Runs `body` with SQLite reading the file through a memory map of up to `bytes`,
    /// then gives the connection its previous limit back, so one scan-heavy query does
    /// not change how the rest of the program reads. See <https://sqlite.org/mmap.html>.
    ///
    /// - Throws: `SQLiteError`, or whatever `body` throws.
    public func withMemoryMap<T>(bytes: Int, _ body: () throws -> T) throws -> T {
        let previous = try scalar("PRAGMA mmap_size")?.int64 ?? 0
        try execute("PRAGMA mmap_size = \(max(bytes, 0))")
        defer { try? execute("PRAGMA mmap_size = \(previous)") }
        return try body()
    }

    // MARK: - Transactions

    /// Runs `body` in a transaction: commits when it returns, rolls back when it throws.
    ///
    /// `BEGIN IMMEDIATE` takes the write lock at once, so two writers never deadlock
    /// halfway; the second waits for the busy timeout, then fails with `SQLITE_BUSY`.
    /// - Throws: `SQLiteError` from SQLite, or whatever `body` throws.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            if isInTransaction { try? execute("ROLLBACK") }
            throw error
        }
    }

    // MARK: - Functions

    /// Registers a deterministic scalar SQL function implemented in Swift.
    ///
    /// The body reads its arguments in place (no array per call), so a function can run
    /// over a million rows in one statement.
    /// - Throws: `SQLiteError` when SQLite refuses the registration.
    public func createFunction(
        _ name: String, argumentCount: Int32,
        _ body: @escaping (FunctionArguments) -> SQLiteValue?
    ) throws(SQLiteError) {
        let box = Unmanaged.passRetained(FunctionBox(body)).toOpaque()
        let code = sqlite3_create_function_v2(
            handle, name, argumentCount, SQLITE_UTF8 | SQLITE_DETERMINISTIC, box,
            { context, count, arguments in
                let box = Unmanaged<FunctionBox>.fromOpaque(sqlite3_user_data(context))
                    .takeUnretainedValue()
                let result = box.body(FunctionArguments(values: arguments, count: Int(count)))
                SQLiteValue.result(result, context: context)
            }, nil, nil,
            { pointer in
                if let pointer { Unmanaged<FunctionBox>.fromOpaque(pointer).release() }
            })
        try check(code, handle)
    }
}

/// The arguments of one call of a SQL function, read in place.
public struct FunctionArguments {
    let values: UnsafeMutablePointer<OpaquePointer?>?
    /// How many arguments there are.
    public let count: Int

    /// Argument `index` as a double, nil for NULL or non-numeric values.
    public func double(_ index: Int) -> Double? {
        guard let value = values?[index] else { return nil }
        let type = sqlite3_value_type(value)
        guard type == SQLITE_FLOAT || type == SQLITE_INTEGER else { return nil }
        return sqlite3_value_double(value)
    }

    /// Argument `index` as an integer, nil for NULL or non-integer values.
    public func int64(_ index: Int) -> Int64? {
        guard let value = values?[index], sqlite3_value_type(value) == SQLITE_INTEGER else {
            return nil
        }
        return sqlite3_value_int64(value)
    }

    /// Argument `index` as a value, nil for NULL.
    public subscript(index: Int) -> SQLiteValue? {
        values.flatMap { SQLiteValue(value: $0[index]) }
    }
}

private final class FunctionBox {
    let body: (FunctionArguments) -> SQLiteValue?
    init(_ body: @escaping (FunctionArguments) -> SQLiteValue?) { self.body = body }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
