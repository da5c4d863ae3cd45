import CSQLite

/// A value stored in or bound to SQLite.
public enum SQLiteValue: Equatable, Sendable {
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    init?(value: OpaquePointer?) {
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: self = .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: self = .real(sqlite3_value_double(value))
        case SQLITE_TEXT: self = .text(String(cString: sqlite3_value_text(value)))
        case SQLITE_BLOB:
            let count = Int(sqlite3_value_bytes(value))
            let bytes = sqlite3_value_blob(value)
            self = .blob(
                count == 0 ? [] : Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default: return nil
        }
    }

    static func result(_ value: SQLiteValue?, context: OpaquePointer?) {
        switch value {
        case nil: sqlite3_result_null(context)
        case .integer(let int): sqlite3_result_int64(context, int)
        case .real(let double): sqlite3_result_double(context, double)
        case .text(var string):
            // In place, without the C-string copy an implicit conversion makes; an empty
            // buffer may have no address, which SQLite would take for NULL.
            string.withUTF8 { utf8 in
                if let base = utf8.baseAddress {
                    base.withMemoryRebound(to: CChar.self, capacity: utf8.count) {
                        sqlite3_result_text(context, $0, Int32(utf8.count), SQLITE_TRANSIENT)
                    }
                } else {
                    sqlite3_result_text(context, "", 0, SQLITE_TRANSIENT)
                }
            }
        case .blob(let bytes):
            bytes.withUnsafeBytes {
                sqlite3_result_blob(context, $0.baseAddress, Int32($0.count), SQLITE_TRANSIENT)
            }
        }
    }

    /// The value as text, when it is text.
    public var string: String? {
        if case .text(let text) = self { return text }
        return nil
    }

    /// The value as an integer, when it is an integer.
    public var int64: Int64? {
        if case .integer(let int) = self { return int }
        return nil
    }

    /// The value as a double, when it is numeric.
    public var double: Double? {
        switch self {
        case .real(let double): return double
        case .integer(let int): return Double(int)
        default: return nil
        }
    }
}

extension SQLiteValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    public init(stringLiteral value: String) { self = .text(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
}

// `SQLITE_TRANSIENT` is a macro Swift cannot import.
let SQLITE_TRANSIENT = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// A compiled statement. Owns its handle and finalizes it in `deinit`.
///
/// See <https://sqlite.org/c3ref/stmt.html>.
public final class Statement {
    @usableFromInline let handle: OpaquePointer
    /// The SQL text, for error messages.
    public let sql: String
    unowned let database: Database
    /// Result column names to indexes, filled on the first read by name (`column(_:)`).
    var columnIndexes: [String: Int]?

    init(database: Database, sql: String) throws(SQLiteError) {
        var raw: OpaquePointer?
        let code = sqlite3_prepare_v3(
            database.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
        try check(code, database.handle, sql: sql)
        guard let raw else {
            throw SQLiteError(code: SQLITE_MISUSE, message: "empty statement", sql: sql)
        }
        self.handle = raw
        self.sql = sql
        self.database = database
    }

    deinit {
        sqlite3_finalize(handle)
    }

    // MARK: - Binding

    /// The number of parameters the SQL declares (the largest `?NNN` index).
    public var parameterCount: Int { Int(sqlite3_bind_parameter_count(handle)) }

    /// Resets the statement, clears every earlier binding and binds `values` to its
    /// parameters, in order.
    ///
    /// A count that differs from the statement's parameters is a programmer error that
    /// SQLite would not report (a missing value binds NULL, an extra one is ignored), so
    /// it throws `SQLITE_RANGE` naming both counts.
    ///
    /// - Throws: `SQLiteError`.
    public func bind(_ values: [SQLiteValue?]) throws(SQLiteError) {
        reset()
        sqlite3_clear_bindings(handle)
        guard values.count == parameterCount else {
            throw SQLiteError(
                code: SQLITE_RANGE,
                message: "\(values.count) values bound to \(parameterCount) parameters", sql: sql)
        }
        for (offset, value) in values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    /// Binds one value to the 1-based parameter `index`.
    ///
    /// - Throws: `SQLiteError`.
    public func bind(_ value: SQLiteValue?, at index: Int32) throws(SQLiteError) {
        let code: Int32
        switch value {
        case nil: code = sqlite3_bind_null(handle, index)
        case .integer(let int): code = sqlite3_bind_int64(handle, index, int)
        case .real(let double): code = sqlite3_bind_double(handle, index, double)
        case .text(let string):
            code = sqlite3_bind_text(handle, index, string, -1, SQLITE_TRANSIENT)
        case .blob(let bytes):
            code = bytes.withUnsafeBytes {
                sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), SQLITE_TRANSIENT)
            }
        }
        try check(code, database.handle, sql: sql)
    }

    // MARK: Binding without wrapping, for hot loops

    /// Binds text (or NULL for nil) to the 1-based parameter `index`.
    ///
    /// - Throws: `SQLiteError`.
    public func bind(text: String?, at index: Int32) throws(SQLiteError) {
        guard var text else {
            try check(sqlite3_bind_null(handle, index), database.handle, sql: sql)
            return
        }
        let code = text.withUTF8 { utf8 in
            // Empty text may come without an address, which SQLite would store as NULL.
            guard let base = utf8.baseAddress, utf8.count > 0 else {
                return sqlite3_bind_text(handle, index, "", 0, SQLITE_TRANSIENT)
            }
            return UnsafeRawPointer(base).withMemoryRebound(to: CChar.self, capacity: utf8.count) {
                sqlite3_bind_text(handle, index, $0, Int32(utf8.count), SQLITE_TRANSIENT)
            }
        }
        try check(code, database.handle, sql: sql)
    }

    /// Binds a double to the 1-based parameter `index`.
    ///
    /// - Throws: `SQLiteError`.
    public func bind(double: Double, at index: Int32) throws(SQLiteError) {
        try check(sqlite3_bind_double(handle, index, double), database.handle, sql: sql)
    }

    /// Binds an integer (or NULL for nil) to the 1-based parameter `index`.
    ///
    /// - Throws: `SQLiteError`.
    public func bind(int: Int64?, at index: Int32) throws(SQLiteError) {
        let code =
            int.map { sqlite3_bind_int64(handle, index, $0) } ?? sqlite3_bind_null(handle, index)
        try check(code, database.handle, sql: sql)
    }

    /// Binds UTF-8 text the caller keeps alive and unchanged until the statement is next
    /// reset or rebound: SQLite reads it in place instead of copying it.
    ///
    /// - Throws: `SQLiteError`.
    public func bindText(
        borrowing base: UnsafeRawPointer, count: Int, at index: Int32
    ) throws(SQLiteError) {
        let code = sqlite3_bind_text(
            handle, index, base.assumingMemoryBound(to: CChar.self), Int32(count), nil)
        try check(code, database.handle, sql: sql)
    }

    /// Binds NULL to the 1-based parameter `index`.
    ///
    /// - Throws: `SQLiteError`.
    public func bindNull(at index: Int32) throws(SQLiteError) {
        try check(sqlite3_bind_null(handle, index), database.handle, sql: sql)
    }

    /// Binds UTF-8 bytes as text without building a `String` (the import hot path).
    ///
    /// - Throws: `SQLiteError`.
    public func bindText(_ bytes: UnsafeRawBufferPointer, at index: Int32) throws(SQLiteError) {
        // An empty buffer may have no address; SQLite needs one to store '' rather than NULL.
        let code = withUnsafeBytes(of: 0 as UInt8) { empty in
            let base = (bytes.baseAddress ?? empty.baseAddress!)
                .assumingMemoryBound(to: CChar.self)
            return sqlite3_bind_text(handle, index, base, Int32(bytes.count), SQLITE_TRANSIENT)
        }
        try check(code, database.handle, sql: sql)
    }

    /// Resets the statement so it can run again; bindings stay.
    public func reset() {
        sqlite3_reset(handle)
    }

    // MARK: - Stepping

    /// Runs the statement to completion, ignoring any rows.
    ///
    /// - Throws: `SQLiteError`.
    public func step() throws(SQLiteError) {
        var code = sqlite3_step(handle)
        while code == SQLITE_ROW { code = sqlite3_step(handle) }
        defer { sqlite3_reset(handle) }
        try check(code, database.handle, sql: sql)
    }

    /// Binds `values`, runs the statement and returns the number of changed rows.
    ///
    /// - Throws: `SQLiteError`.
    @discardableResult
    public func run(_ values: [SQLiteValue?]) throws(SQLiteError) -> Int {
        try bind(values)
        try step()
        return database.changes
    }

    /// The next row, or nil when the statement is done.
    ///
    /// - Throws: `SQLiteError`.
    public func next() throws(SQLiteError) -> Row? {
        try stepToRow() ? Row(statement: self) : nil
    }

    /// Calls `body` for each row, without collecting them.
    ///
    /// - Throws: `SQLiteError`, or whatever `body` throws.
    public func forEach(_ body: (Row) throws -> Void) throws {
        while let row = try next() { try body(row) }
    }
}

/// The current row of a stepping statement; valid until the statement steps again.
public struct Row {
    @usableFromInline let statement: Statement

    /// The number of columns.
    public var count: Int { Int(sqlite3_column_count(statement.handle)) }

    /// The value of column `index` (0-based), nil for NULL.
    public subscript(index: Int) -> SQLiteValue? {
        let column = Int32(index)
        let handle = statement.handle
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT: return .text(text(index)!)
        case SQLITE_BLOB: return .blob(blob(index)!)
        default: return nil
        }
    }

    /// Column `index` as text, nil for NULL.
    public func text(_ index: Int) -> String? { statement.text(index) }

    /// Calls `body` with the UTF-8 bytes of text column `index` in place, without copying
    /// them; nil for NULL.
    @inlinable
    public func withUTF8<Result>(
        _ index: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result
    ) rethrows -> Result? {
        try statement.withUTF8(index, body)
    }

    /// Column `index` as a double, nil for NULL.
    public func double(_ index: Int) -> Double? { statement.double(index) }

    /// Column `index` as an integer, nil for NULL.
    public func int64(_ index: Int) -> Int64? { statement.int64(index) }

    /// Column `index` as bytes, nil for NULL.
    public func blob(_ index: Int) -> [UInt8]? { statement.blob(index) }
}

// MARK: - The current row, read in place

// A loop over millions of rows reads them through the statement itself: a `Row` holds a
// reference to its statement, and taking and dropping one a row is measurable there.
extension Statement {
    /// Steps to the next row: true when there is one, to be read with the column readers
    /// below until the next step; false when the statement is done.
    ///
    /// - Throws: `SQLiteError`.
    public func stepToRow() throws(SQLiteError) -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        sqlite3_reset(handle)
        try check(code, database.handle, sql: sql)
        return false
    }

    /// Column `index` as text, nil for NULL.
    public func text(_ index: Int) -> String? {
        guard let pointer = sqlite3_column_text(handle, Int32(index)) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, Int32(index)))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// Calls `body` with the UTF-8 bytes of text column `index` in place, without copying
    /// them; nil for NULL.
    @inlinable
    public func withUTF8<Result>(
        _ index: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result
    ) rethrows -> Result? {
        guard let pointer = sqlite3_column_text(handle, Int32(index)) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, Int32(index)))
        return try body(UnsafeBufferPointer(start: pointer, count: count))
    }

    /// Column `index` as a double, nil for NULL.
    public func double(_ index: Int) -> Double? {
        if sqlite3_column_type(handle, Int32(index)) == SQLITE_NULL { return nil }
        return sqlite3_column_double(handle, Int32(index))
    }

    /// Column `index` as an integer, nil for NULL.
    public func int64(_ index: Int) -> Int64? {
        if sqlite3_column_type(handle, Int32(index)) == SQLITE_NULL { return nil }
        return sqlite3_column_int64(handle, Int32(index))
    }

    /// Column `index` as bytes, nil for NULL.
    public func blob(_ index: Int) -> [UInt8]? {
        if sqlite3_column_type(handle, Int32(index)) == SQLITE_NULL { return nil }
        let count = Int(sqlite3_column_bytes(handle, Int32(index)))
        guard count > 0, let pointer = sqlite3_column_blob(handle, Int32(index)) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}
