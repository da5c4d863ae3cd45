import CSQLite

#if canImport(Glibc)
    import Glibc
#endif

/// An error reported by SQLite, carrying its result code, its own message and the SQL
/// that failed.
///
/// Bound values are never included: they are user content.
public struct SQLiteError: Error, CustomStringConvertible, Sendable {
    /// The extended result code.
    public let code: Int32
    /// SQLite's own message (`sqlite3_errmsg`).
    public let message: String
    /// The statement that failed, when there was one.
    public let sql: String?
    /// The `errno` of the system call that failed (`sqlite3_system_errno`), 0 when none.
    public let systemErrno: Int32

    public init(code: Int32, message: String, sql: String? = nil, systemErrno: Int32 = 0) {
        self.code = code
        self.message = message
        self.sql = sql
        self.systemErrno = systemErrno
    }

    /// The primary result code (`SQLITE_BUSY`, `SQLITE_CONSTRAINT`, …).
    public var primaryCode: Int32 { code & 0xFF }

    /// True when the database stayed locked past the busy timeout.
    public var isBusy: Bool { primaryCode == SQLITE_BUSY || primaryCode == SQLITE_LOCKED }

    /// True when the file is not a database or is damaged.
    public var isCorrupt: Bool { primaryCode == SQLITE_CORRUPT || primaryCode == SQLITE_NOTADB }

    /// True when the database (or its folder) cannot be written.
    public var isReadOnly: Bool { primaryCode == SQLITE_READONLY }

    /// True when SQLite could not open the file (`SQLITE_CANTOPEN`): the file or its folder
    /// is missing or unreadable, or the folder cannot hold the journal or shared-memory file.
    public var isCannotOpen: Bool { primaryCode == SQLITE_CANTOPEN }

    /// True when the disk (or a quota) is full: `SQLITE_FULL`, or an I/O error whose
    /// write failed with `ENOSPC` or `EDQUOT` (what SQLite reports when the last few KB
    /// run out inside a write of the journal or the shared-memory file).
    public var isDiskFull: Bool {
        primaryCode == SQLITE_FULL
            || (primaryCode == SQLITE_IOERR && (systemErrno == ENOSPC || systemErrno == EDQUOT))
    }

    /// True when a statement names a table or column the database lacks: the schema is
    /// incomplete (a table was dropped), not the statement wrong.
    public var isMissingSchemaObject: Bool {
        primaryCode == SQLITE_ERROR
            && (message.hasPrefix("no such table") || message.hasPrefix("no such column"))
    }

    /// The statement cut to its first words, enough to say which one failed without
    /// quoting a screenful of SQL at the user.
    public var statementSummary: String? {
        guard let sql else { return nil }
        let words = sql.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" })
        let shown = words.prefix(Self.summaryWords).joined(separator: " ")
        return words.count > Self.summaryWords ? shown + " …" : shown
    }

    static let summaryWords = 6

    public var description: String {
        if let summary = statementSummary {
            return "SQLite error \(code): \(message) (in \(summary))"
        }
        return "SQLite error \(code): \(message)"
    }
}

/// The one place where SQLite result codes become Swift errors.
@inline(__always)
func check(_ code: Int32, _ handle: OpaquePointer?, sql: String? = nil) throws(SQLiteError) {
    guard code == SQLITE_OK || code == SQLITE_ROW || code == SQLITE_DONE else {
        let message =
            handle.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            ?? String(cString: sqlite3_errstr(code))
        let extended = handle.map { sqlite3_extended_errcode($0) } ?? code
        throw SQLiteError(
            code: extended, message: message, sql: sql,
            systemErrno: handle.map { sqlite3_system_errno($0) } ?? 0)
    }
}
