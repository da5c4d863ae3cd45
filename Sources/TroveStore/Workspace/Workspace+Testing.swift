import TroveSQLite

// MARK: - For tests only

/// The hooks tests reach the workspace's SQLite file through, to arrange rows no command
/// writes or to read what a command stored.
///
/// Not API: they are reachable only through `@_spi(Testing) import TroveKit`, so no
/// command can use them by accident. Commands and other layers use the typed API of
/// TroveKit; SQL text lives in TroveKit.
extension Workspace {
    /// The workspace's own connection (foreign keys on, as every command has them).
    @_spi(Testing) public var testDatabase: Database { database }

    /// A plain SQLite connection to the file at `path`, without the identity check,
    /// migrations or settings of opening a workspace: for a file trove did not make, a
    /// schema from before a migration, or a second connection beside a running command.
    ///
    /// - Throws: `SQLiteError` when SQLite cannot open the file.
    @_spi(Testing) public static func testDatabase(
        at path: String, mode: Database.Mode = .readWriteCreate
    ) throws(SQLiteError) -> Database {
        try Database(path: path, mode: mode)
    }
}
