import CSQLite

extension Database {
    /// The version of the SQLite library in use (`sqlite3_libversion()`), e.g. `3.46.1`.
    public static var libraryVersion: String { String(cString: sqlite3_libversion()) }
}
