import CSQLite

// MARK: - Columns by name

/// One result column of a statement, found by name: its position is looked up once, then
/// every row reads it by that position.
public struct Column: Hashable, Sendable {
    /// The column's name in the result (its `AS` alias, or the table column's name).
    public let name: String
    /// Its 0-based position in the result.
    public let index: Int
}

/// The result columns of a statement, by name, read once with
/// [sqlite3_column_name](https://sqlite.org/c3ref/column_name.html).
///
/// Decoding by name keeps a reader right when a `SELECT` gains or reorders columns; doing
/// the lookup once per statement keeps a loop over many rows as fast as reading by index.
/// When two columns share a name (a join's `id`), the name stands for the first: alias
/// the others.
public struct Columns: Sendable {
    /// The names, in result order.
    public let names: [String]
    private let positions: [String: Int]
    private let sql: String

    /// The columns of `statement`'s result.
    public init(_ statement: Statement) {
        let count = Int(sqlite3_column_count(statement.handle))
        var names: [String] = []
        var positions: [String: Int] = [:]
        for index in 0..<count {
            let name = sqlite3_column_name(statement.handle, Int32(index)).map {
                String(cString: $0)
            }
            names.append(name ?? "")
            if let name, positions[name] == nil { positions[name] = index }
        }
        self.names = names
        self.positions = positions
        self.sql = statement.sql
    }

    /// The column called `name`.
    ///
    /// - Throws: `SQLiteError` (`SQLITE_RANGE`) naming the column and the result's
    ///   columns, when the result has no such column: a programmer error SQLite would not
    ///   catch, since reading past the columns returns NULL.
    public func column(_ name: String) throws(SQLiteError) -> Column {
        guard let index = positions[name] else {
            throw SQLiteError(
                code: SQLITE_RANGE,
                message: "no column '\(name)' in the result (its columns: "
                    + names.joined(separator: ", ") + ")",
                sql: sql)
        }
        return Column(name: name, index: index)
    }
}

extension Statement {
    /// The result columns, by name.
    public var columns: Columns { Columns(self) }

    /// The result column called `name`.
    ///
    /// - Throws: `SQLiteError` naming the unknown column.
    public func column(_ name: String) throws(SQLiteError) -> Column {
        try Columns(self).column(name)
    }

    /// Binds `values`, then calls `body` for each row with the columns looked up by name
    /// once for the whole run.
    ///
    /// - Throws: `SQLiteError`, or whatever `body` throws.
    public func forEachNamed(_ values: [SQLiteValue?], _ body: (NamedRow) throws -> Void) throws {
        try bind(values)
        let columns = Columns(self)
        while let row = try next() { try body(NamedRow(row: row, columns: columns)) }
    }

    /// Binds `values` and returns the first row decoded by `transform`, or nil; the
    /// statement is reset after.
    ///
    /// - Throws: `SQLiteError`, or whatever `transform` throws.
    public func first<T>(_ values: [SQLiteValue?], _ transform: (NamedRow) throws -> T) throws
        -> T?
    {
        try bind(values)
        defer { reset() }
        guard let row = try next() else { return nil }
        return try transform(NamedRow(row: row, columns: Columns(self)))
    }
}

extension Database {
    /// Runs a query and maps every row, its columns read by name.
    ///
    /// - Throws: `SQLiteError` (also for an unknown column name), or whatever
    ///   `transform` throws.
    public func rows<T>(
        _ sql: String, _ values: [SQLiteValue?] = [], _ transform: (NamedRow) throws -> T
    ) throws -> [T] {
        var result: [T] = []
        try prepare(sql).forEachNamed(values) { result.append(try transform($0)) }
        return result
    }
}

// MARK: - Reading a row

extension Row {
    /// The value of `column`, nil for NULL.
    @inlinable
    public subscript(column: Column) -> SQLiteValue? { self[column.index] }

    /// `column` as text, nil for NULL.
    @inlinable
    public func text(_ column: Column) -> String? { text(column.index) }

    /// `column` as a double, nil for NULL.
    @inlinable
    public func double(_ column: Column) -> Double? { double(column.index) }

    /// `column` as an integer, nil for NULL.
    @inlinable
    public func int64(_ column: Column) -> Int64? { int64(column.index) }

    /// `column` as bytes, nil for NULL.
    @inlinable
    public func blob(_ column: Column) -> [UInt8]? { blob(column.index) }

    /// Calls `body` with the UTF-8 bytes of text `column` in place; nil for NULL.
    @inlinable
    public func withUTF8<Result>(
        _ column: Column, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result
    ) rethrows -> Result? {
        try withUTF8(column.index, body)
    }
}

/// A row with its statement's columns by name: `row.text("title")`. Each read is a
/// dictionary lookup; a loop over very many rows looks its `Column`s up once instead.
public struct NamedRow {
    /// The row.
    public let row: Row
    /// Its statement's columns.
    public let columns: Columns

    /// Column `name`, nil for NULL.
    ///
    /// - Throws: `SQLiteError` naming an unknown column.
    public func value(_ name: String) throws(SQLiteError) -> SQLiteValue? {
        row[try columns.column(name)]
    }

    /// Column `name` as text, nil for NULL.
    ///
    /// - Throws: `SQLiteError` naming an unknown column.
    public func text(_ name: String) throws(SQLiteError) -> String? {
        row.text(try columns.column(name))
    }

    /// Column `name` as a double, nil for NULL.
    ///
    /// - Throws: `SQLiteError` naming an unknown column.
    public func double(_ name: String) throws(SQLiteError) -> Double? {
        row.double(try columns.column(name))
    }

    /// Column `name` as an integer, nil for NULL.
    ///
    /// - Throws: `SQLiteError` naming an unknown column.
    public func int64(_ name: String) throws(SQLiteError) -> Int64? {
        row.int64(try columns.column(name))
    }

    /// Column `name` as bytes, nil for NULL.
    ///
    /// - Throws: `SQLiteError` naming an unknown column.
    public func blob(_ name: String) throws(SQLiteError) -> [UInt8]? {
        row.blob(try columns.column(name))
    }
}
