import CSQLite

// Rows read by column name: `row.text("name")`, `row.double("lat")`. The names of a
// statement's result columns are looked up once per statement, on its first read by name,
// and a name is then an index: reading by name costs what reading by index does, apart
// from one dictionary look-up.

extension Statement {
    /// The 0-based index of the result column named `name` (its `AS` alias, or its bare
    /// name). A name the SQL does not select is a mistake in trove's SQL, not in anything
    /// a user gave: it stops with the name and the statement.
    public func column(_ name: String) -> Int {
        guard let index = columnIndex(name) else {
            preconditionFailure("no column '\(name)' in the result of: \(sql)")
        }
        return index
    }
}

extension Row {
    /// Column `name`'s value, nil for NULL.
    public subscript(name: String) -> SQLiteValue? { self[statement.column(name)] }

    /// Column `name` as text, nil for NULL.
    public func text(_ name: String) -> String? { text(statement.column(name)) }

    /// Column `name` as a double, nil for NULL.
    public func double(_ name: String) -> Double? { double(statement.column(name)) }

    /// Column `name` as an integer, nil for NULL.
    public func int64(_ name: String) -> Int64? { int64(statement.column(name)) }

    /// Column `name` as bytes, nil for NULL.
    public func blob(_ name: String) -> [UInt8]? { blob(statement.column(name)) }

    /// Calls `body` with the UTF-8 bytes of text column `name` in place; nil for NULL.
    public func withUTF8<Result>(
        _ name: String, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result
    ) rethrows -> Result? {
        try withUTF8(statement.column(name), body)
    }
}

extension Statement {
    /// Binds `values` and returns the first row decoded by `transform`, or nil; the
    /// statement is reset after, for its next use.
    ///
    /// - Throws: `SQLiteError`, or whatever `transform` throws.
    public func first<T>(_ values: [SQLiteValue?], _ transform: (Row) throws -> T) throws -> T? {
        try bind(values)
        defer { reset() }
        guard let row = try next() else { return nil }
        return try transform(row)
    }
}
