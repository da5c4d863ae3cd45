import CSQLite

// Rows decoded through a column enum per table: `try row.text(Post.Column.user)`. A
// misspelled column is a build error, and a column the statement does not select (SQL
// and record out of step) or a value of the wrong kind is a thrown `RowDecodingError`
// naming the table and column, never a trap. The names of a statement's result columns are
// looked up once per statement, as `column(_:)` does.

/// A column of a table that records decode from: its raw value is the column's name in a
/// result (its `AS` alias, or its bare name).
///
///     enum Column: String, TableColumn {
///         static let table = "posts"
///         case id, user, lat, lon
///         case signalNames = "signal_names"
///     }
public protocol TableColumn: RawRepresentable<String>, Sendable {
    /// The table the column belongs to, for messages.
    static var table: String { get }
}

/// A row that cannot be decoded into its record: the statement does not select a column
/// the record needs, or a column holds what the record cannot take.
public struct RowDecodingError: Error, CustomStringConvertible, Equatable, Sendable {
    public let table: String
    public let column: String
    /// What is wrong, e.g. "is not in the result" or "is NULL".
    public let problem: String

    public init(table: String, column: String, problem: String) {
        self.table = table
        self.column = column
        self.problem = problem
    }

    public init<Column: TableColumn>(_ column: Column, _ problem: String) {
        self.init(table: Column.table, column: column.rawValue, problem: problem)
    }

    public var description: String { "cannot read \(table).\(column): it \(problem)" }
}

extension Statement {
    /// The 0-based index of the result column named `name`, or nil when the statement does
    /// not select it.
    public func columnIndex(_ name: String) -> Int? {
        if columnIndexes == nil {
            var indexes: [String: Int] = [:]
            for index in 0..<Int(sqlite3_column_count(handle)) {
                if let pointer = sqlite3_column_name(handle, Int32(index)) {
                    let column = String(cString: pointer)
                    if indexes[column] == nil { indexes[column] = index }
                }
            }
            columnIndexes = indexes
        }
        return columnIndexes?[name]
    }

    /// The index of `column` in the result.
    ///
    /// - Throws: `RowDecodingError` when the statement does not select it.
    public func index<Column: TableColumn>(of column: Column) throws(RowDecodingError) -> Int {
        guard let index = columnIndex(column.rawValue) else {
            throw RowDecodingError(column, "is not in the result of: \(sql)")
        }
        return index
    }
}

extension Row {
    /// Column `column` as text, nil for NULL.
    ///
    /// - Throws: `RowDecodingError` when the statement does not select it.
    public func text<Column: TableColumn>(_ column: Column) throws(RowDecodingError) -> String? {
        text(try statement.index(of: column))
    }

    /// Column `column` as a double, nil for NULL.
    ///
    /// - Throws: `RowDecodingError` when the statement does not select it.
    public func double<Column: TableColumn>(_ column: Column) throws(RowDecodingError) -> Double? {
        double(try statement.index(of: column))
    }

    /// Column `column` as an integer, nil for NULL.
    ///
    /// - Throws: `RowDecodingError` when the statement does not select it.
    public func int64<Column: TableColumn>(_ column: Column) throws(RowDecodingError) -> Int64? {
        int64(try statement.index(of: column))
    }

    /// Column `column` as bytes, nil for NULL.
    ///
    /// - Throws: `RowDecodingError` when the statement does not select it.
    public func blob<Column: TableColumn>(_ column: Column) throws(RowDecodingError) -> [UInt8]? {
        blob(try statement.index(of: column))
    }

    /// Column `column` as text that may not be NULL.
    ///
    /// - Throws: `RowDecodingError` when it is not selected or is NULL.
    public func required<Column: TableColumn>(_ column: Column) throws(RowDecodingError) -> String {
        guard let value = try text(column) else { throw RowDecodingError(column, "is NULL") }
        return value
    }

    /// Column `column` as an integer that may not be NULL.
    ///
    /// - Throws: `RowDecodingError` when it is not selected or is NULL.
    public func requiredInt64<Column: TableColumn>(_ column: Column) throws(RowDecodingError)
        -> Int64
    {
        guard let value = try int64(column) else { throw RowDecodingError(column, "is NULL") }
        return value
    }

    /// Column `column` as a value of `type` named by its text (a status, a kind), nil for
    /// NULL.
    ///
    /// - Throws: `RowDecodingError` when it is not selected or names no value of `type`.
    public func value<Column: TableColumn, Value: RawRepresentable<String>>(
        _ column: Column, as type: Value.Type
    ) throws(RowDecodingError) -> Value? {
        guard let text = try text(column) else { return nil }
        guard let value = Value(rawValue: text) else {
            throw RowDecodingError(column, "holds '\(text)', which is not a \(Value.self)")
        }
        return value
    }
}
