import Foundation
import TroveBase
import TroveSQLite

/// Why the workspace cannot be used. All map to exit status 4.
public enum WorkspaceError: Error, CustomStringConvertible {
    case missing(path: String)
    case newerSchema(path: String, found: Int, known: Int)
    /// Written by a newer trove: it records migrations this one does not know.
    case unknownMigrations(path: String, names: [String])
    case corrupt(path: String, message: String)
    /// Busy past the wait; `waited` in seconds.
    case locked(path: String, waited: Double)
    case unusable(path: String, message: String)
    /// A SQLite file that trove did not make, or an empty file.
    case notAWorkspace(path: String, reason: String)
    /// The file or its folder cannot be written and the command needs to write.
    case readOnly(path: String)
    /// A table or column trove needs is missing.
    case incomplete(path: String, message: String)
    /// The disk filled up while writing; the transaction was rolled back.
    case diskFull(path: String)

    public var description: String {
        switch self {
        case .missing(let path):
            return "no workspace at \(path): run 'trove init' (or pass -w PATH)"
        case .newerSchema(let path, let found, let known):
            return
                "\(path) has schema version \(found), newer than this trove understands (\(known)); "
                + "upgrade trove"
        case .unknownMigrations(let path, let names):
            return
                "\(path) was written by a newer trove (it records migrations this one does not "
                + "know: \(names.joined(separator: ", "))); upgrade trove"
        case .corrupt(let path, let message):
            return "\(path) is not a usable workspace: \(message)"
        case .locked(let path, let waited):
            return
                "\(path) is locked by another trove process (waited \(Self.seconds(waited)) s); "
                + "try again when it has finished, or wait longer with TROVE_BUSY_TIMEOUT=SECONDS"
        case .unusable(let path, let message):
            return "cannot use workspace \(path): \(message)"
        case .notAWorkspace(let path, let reason):
            return "\(path) is not a trove workspace: \(reason)"
        case .readOnly(let path):
            return
                "workspace is read-only: \(path); this command changes it, so the file and its "
                + "folder must be writable (reading commands such as status, near and check work)"
        case .incomplete(let path, let message):
            return
                "\(path) is an incomplete or damaged workspace (\(message)); run 'trove check'"
        case .diskFull(let path):
            return
                "the disk is full: cannot write to \(path); nothing was changed. Free some space "
                + "and run the command again"
        }
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}

/// One trove workspace: a SQLite file shared by every command.
///
/// Opening checks the file is trove's (SQLite's `application_id`, or the tables and
/// migration record of a workspace made before trove stamped it), migrates an older
/// schema forward in one transaction and refuses a newer one. A file that cannot be
/// written opens read-only: reading commands work, writing ones fail with
/// `WorkspaceError.readOnly`.
public final class Workspace {
    /// The connection. SQL text lives in TroveKit; other layers use the typed API, and
    /// tests `testDatabase` (Workspace+Testing.swift).
    package let database: Database
    /// The path the workspace was opened from.
    public let path: String
    /// How long a writer waits for another one, in milliseconds.
    public let busyTimeout: Int32
    /// What the write transaction in progress changed, recorded just before it commits.
    private var treasureChanges = ChangeMarks(.treasure)
    private var postChanges = ChangeMarks(.post)

    /// SQLite's `application_id` of a trove workspace: "TROV" in ASCII.
    public static let applicationID: Int32 = 0x5452_4F56

    /// How long a writer waits for another writer by default: long enough for the
    /// writers of a `make -j` pipeline to take turns.
    public static let defaultBusyTimeout: Int32 = 60_000

    /// Opens the workspace at `path`.
    ///
    /// - Parameter create: create the file when it is missing (`trove init`).
    /// - Parameter busyTimeout: how long to wait for another writer, in milliseconds.
    /// - Throws: `WorkspaceError`.
    public init(path: String, create: Bool = false, busyTimeout: Int32 = defaultBusyTimeout)
        throws(WorkspaceError)
    {
        self.path = path
        self.busyTimeout = busyTimeout
        var status = stat()
        let existed = stat(path, &status) == 0
        if !create && !existed { throw .missing(path: path) }
        // SQLite would put a -journal beside a device (`/dev/null-journal`).
        if existed && status.st_mode & S_IFMT != S_IFREG {
            throw .notAWorkspace(path: path, reason: "it is not a regular file")
        }
        do {
            var database = try Database(
                path: path, mode: create ? .readWriteCreate : .readWrite, busyTimeout: busyTimeout)
            do {
                try Self.checkIdentity(database, path: path, create: create)
            } catch let error as SQLiteError where Self.needsImmutableOpen(error, path: path) {
                // A WAL reader needs the -shm file beside the workspace; in a read-only
                // folder it cannot be made, and with no -wal left nothing can have
                // changed under an immutable open.
                database = try Database(path: path, mode: .immutable, busyTimeout: busyTimeout)
                try Self.checkIdentity(database, path: path, create: false)
            }
            Self.keepSidecarsWritable(path)
            // A damaged file is refused before it is switched to WAL or migrated.
            if create && existed { try Self.checkIntegrity(database, path: path) }
            let readOnly = database.isReadOnly
            if !readOnly { try database.execute("PRAGMA journal_mode = WAL") }
            try database.execute(
                """
                PRAGMA synchronous = NORMAL;
                PRAGMA foreign_keys = ON;
                PRAGMA temp_store = MEMORY;
                PRAGMA cache_size = -32000;
                """)
            try Schema.migrator.migrate(database, readOnly: readOnly) { database in
                try database.execute("PRAGMA application_id = \(Self.applicationID)")
            }
            self.database = database
        } catch let error as WorkspaceError {
            throw error
        } catch let error as Migrator.MigrationError {
            switch error {
            case .newerSchema(let found, let known):
                throw .newerSchema(path: path, found: found, known: known)
            case .unknownMigrations(let names):
                throw .unknownMigrations(path: path, names: names)
            case .readOnly:
                throw .readOnly(path: path)
            case .invalidVersion:
                throw .notAWorkspace(
                    path: path, reason: "\(error.description); trove never writes one")
            }
        } catch let error as SQLiteError {
            throw Self.workspaceError(error, path: path, busyTimeout: busyTimeout)
        } catch {
            throw .unusable(path: path, message: "\(error)")
        }
    }

    /// Opens the workspace at `path` for a look-up that only reads: read-only, without
    /// migrating it or switching its journal, so that looking something up never writes
    /// to the file. An older schema is read as it is.
    ///
    /// - Throws: `WorkspaceError`.
    public init(readingOnly path: String) throws(WorkspaceError) {
        self.path = path
        busyTimeout = 0
        var status = stat()
        guard stat(path, &status) == 0 else { throw .missing(path: path) }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw .notAWorkspace(path: path, reason: "it is not a regular file")
        }
        do {
            let database = try Database(path: path, mode: .readOnly, busyTimeout: 0)
            try Self.checkIdentity(database, path: path, create: false)
            self.database = database
        } catch let error as WorkspaceError {
            throw error
        } catch let error as SQLiteError {
            throw Self.workspaceError(error, path: path, busyTimeout: 0)
        } catch {
            throw .unusable(path: path, message: "\(error)")
        }
    }

    /// Refuses a file that is not trove's before anything writes to it: a foreign
    /// database must not gain trove's tables, and an empty file is no workspace.
    private static func checkIdentity(_ database: Database, path: String, create: Bool) throws {
        let identity = try database.scalar("PRAGMA application_id")?.int64 ?? 0
        if identity == Int64(applicationID) { return }
        if identity != 0 {
            throw WorkspaceError.notAWorkspace(
                path: path,
                reason: "it belongs to another application (SQLite application_id \(identity))")
        }
        let tables = Set(
            try database.query(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            ) { $0.text(0) ?? "" })
        if tables.isEmpty {
            // Another program's database before it made its tables: trove must not count
            // its user_version as migrations applied.
            let version = try Migrator.version(of: database)
            if version != 0 {
                throw WorkspaceError.notAWorkspace(
                    path: path,
                    reason: "it is a SQLite database that trove did not make (no tables, "
                        + "user_version \(version)); pass -w with the path of a workspace, or "
                        + "run 'trove init' for a new one")
            }
            if create { return }
            throw WorkspaceError.notAWorkspace(
                path: path,
                reason: "it is an empty file; run 'trove init' to make it one (or pass -w PATH)")
        }
        // Workspaces from before the stamp: trove's own tables and its migration record.
        let counted = try Migrator.version(of: database)
        let earlierTrove =
            tables.isSuperset(of: ["settings", "sources", "treasures"])
            && (tables.contains(Schema.migrator.table) || counted != 0)
        if !earlierTrove {
            throw WorkspaceError.notAWorkspace(
                path: path,
                reason: "it is a SQLite database that trove did not make; "
                    + "pass -w with the path of a workspace, or run 'trove init' for a new one")
        }
    }

    /// A reader that cannot write the workspace (mode 0444) makes the WAL's `-shm` (and
    /// `-wal`) with the workspace's mode, which no writer could use once the workspace is
    /// writable again: they keep their owner's write bit.
    private static func keepSidecarsWritable(_ path: String) {
        guard access(path, W_OK) != 0 else { return }
        for suffix in ["-shm", "-wal"] {
            var status = stat()
            guard stat(path + suffix, &status) == 0, status.st_uid == geteuid(),
                status.st_mode & S_IWUSR == 0
            else { continue }
            chmod(path + suffix, (status.st_mode & 0o7777) | S_IWUSR)
        }
    }

    /// SQLite's integrity check: `init` says "ready" only for a sound file.
    private static func checkIntegrity(_ database: Database, path: String) throws {
        let problems = try database.query("PRAGMA integrity_check", []) { $0.text(0) ?? "" }
        if problems != ["ok"] {
            let shown = problems.prefix(3).joined(separator: "; ")
            throw WorkspaceError.corrupt(
                path: path,
                message: "database disk image is malformed (\(shown)"
                    + (problems.count > 3 ? "; and \(problems.count - 3) more" : "")
                    + "); run 'trove check'")
        }
    }

    /// Whether opening failed only because a read-only folder cannot hold the WAL's
    /// shared-memory file, with no write-ahead log left that an immutable open would miss.
    private static func needsImmutableOpen(_ error: SQLiteError, path: String) -> Bool {
        guard error.isCannotOpen || error.isReadOnly else { return false }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        if access(folder, W_OK) == 0 { return false }
        let log = (try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size]
        return (log as? NSNumber)?.int64Value ?? 0 == 0
    }

    /// The schema version this trove writes.
    public static var schemaVersion: Int { Schema.migrator.latestVersion }

    /// True when the workspace opened read-only (the file or its folder is not writable).
    public var isReadOnly: Bool { database.isReadOnly }

    /// Maps a SQLite failure on the workspace to what the user should hear.
    public static func workspaceError(
        _ error: SQLiteError, path: String, busyTimeout: Int32 = defaultBusyTimeout
    ) -> WorkspaceError {
        classify(error, path: path, busyTimeout: busyTimeout)
            ?? .unusable(path: path, message: error.message)
    }

    /// The workspace problem any error stands for, or nil when it is not a SQLite error
    /// that is one.
    public static func classify(
        any error: Error, path: String, busyTimeout: Int32 = defaultBusyTimeout
    ) -> WorkspaceError? {
        guard let error = error as? SQLiteError else { return nil }
        return classify(error, path: path, busyTimeout: busyTimeout)
    }

    /// The workspace problem a SQLite failure stands for, or nil when it is not one (a
    /// defect, reported as it is).
    public static func classify(
        _ error: SQLiteError, path: String, busyTimeout: Int32 = defaultBusyTimeout
    ) -> WorkspaceError? {
        if error.isBusy { return .locked(path: path, waited: Double(busyTimeout) / 1000) }
        if error.isCorrupt { return .corrupt(path: path, message: error.message) }
        if error.isReadOnly { return .readOnly(path: path) }
        if error.isDiskFull { return .diskFull(path: path) }
        if error.isMissingSchemaObject { return .incomplete(path: path, message: error.message) }
        return nil
    }

    /// Runs `body` in one write transaction; SQLite errors that are workspace problems
    /// (busy, corrupt, read-only, disk full, missing tables) become `WorkspaceError`.
    ///
    /// - Throws: `WorkspaceError`, or whatever `body` throws.
    public func write<T>(_ body: () throws -> T) throws -> T {
        if isReadOnly { throw WorkspaceError.readOnly(path: path) }
        // Marks left by a transaction that failed must not reach the next one.
        defer {
            treasureChanges = ChangeMarks(.treasure)
            postChanges = ChangeMarks(.post)
        }
        do {
            return try database.transaction {
                let result = try body()
                try treasureChanges.record(in: database)
                try postChanges.record(in: database)
                return result
            }
        } catch let error as SQLiteError {
            throw Self.classify(error, path: path, busyTimeout: busyTimeout) ?? error
        }
    }

    /// Runs `body` in one write transaction if the write lock is free now, without waiting
    /// for it: nil when another writer holds it or the workspace is read-only.
    ///
    /// - Throws: `WorkspaceError` other than a lock, or whatever `body` throws.
    public func writeIfFree<T>(_ body: () throws -> T) throws -> T? {
        if isReadOnly { return nil }
        database.setBusyTimeout(0)
        defer { database.setBusyTimeout(busyTimeout) }
        do {
            return try write(body)
        } catch let error as WorkspaceError {
            if case .locked = error { return nil }
            throw error
        }
    }

    /// Runs `body` in one read transaction: one snapshot, no write lock, so it works on a
    /// read-only workspace. `body` must not write.
    ///
    /// - Throws: `WorkspaceError` for workspace problems, or whatever `body` throws.
    public func read<T>(_ body: () throws -> T) throws -> T {
        do {
            try database.execute("BEGIN DEFERRED")
            defer { if database.isInTransaction { try? database.execute("ROLLBACK") } }
            return try body()
        } catch let error as SQLiteError {
            throw Self.classify(error, path: path, busyTimeout: busyTimeout) ?? error
        }
    }

    // MARK: - Changes

    /// Notes that the record `key` of `kind` changed (was written, deleted, or had what an
    /// export renders of it change) in the write transaction in progress.
    public func markChanged(_ kind: RecordKind, _ key: String) {
        switch kind {
        case .treasure: treasureChanges.mark(key)
        case .post: postChanges.mark(key)
        }
    }

    /// Records the marks of the write in progress now, with a new clock value, so that a
    /// consumer recorded after this in the same write takes them in. Call inside `write`.
    ///
    /// - Throws: `SQLiteError`.
    public func recordChanges() throws {
        try treasureChanges.record(in: database)
        try postChanges.record(in: database)
    }

    /// Notes that every record of `kind` may have changed in the write in progress.
    public func markAllChanged(_ kind: RecordKind) {
        switch kind {
        case .treasure: treasureChanges.markEverything()
        case .post: postChanges.markEverything()
        }
    }

    // MARK: - Settings

    /// The stored value of a setting, or nil.
    ///
    /// - Throws: `SQLiteError`.
    public func setting(_ key: String) throws -> String? {
        try database.scalar("SELECT value FROM settings WHERE key = ?", [.text(key)])?.string
    }

    /// The settings, parsed: what commands use.
    ///
    /// - Throws: `SettingError` for a stored value `config set` would refuse, `SQLiteError`.
    public func settings() throws -> Settings {
        try Settings(stored: Dictionary(storedSettings(), uniquingKeysWith: { first, _ in first }))
    }

    /// Every stored setting as stored, sorted by key.
    ///
    /// - Throws: `SQLiteError`.
    public func storedSettings() throws -> [(key: String, value: String)] {
        try database.query("SELECT key, value FROM settings ORDER BY key") {
            (key: $0.text(0) ?? "", value: $0.text(1) ?? "")
        }
    }

    /// Stores a setting (validated by `Setting`).
    ///
    /// - Throws: `SQLiteError`.
    public func setSetting(_ key: String, _ value: String) throws {
        try write { try putSetting(key, value) }
    }

    /// Stores a setting in the write in progress.
    ///
    /// - Throws: `SQLiteError`.
    package func putSetting(_ key: String, _ value: String) throws {
        try database.execute(
            "INSERT INTO settings (key, value) VALUES (?, ?) "
                + "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            [.text(key), .text(value)])
    }

    /// Removes a setting; returns whether it was set.
    ///
    /// - Throws: `SQLiteError`.
    @discardableResult
    public func unsetSetting(_ key: String) throws -> Bool {
        try write {
            try database.execute("DELETE FROM settings WHERE key = ?", [.text(key)]) > 0
        }
    }

    /// The configured geohash precision (default 10).
    ///
    /// - Throws: `SettingError`, `SQLiteError`.
    public func geohashPrecision() throws -> Int {
        try settings().geohashPrecision
    }
}
