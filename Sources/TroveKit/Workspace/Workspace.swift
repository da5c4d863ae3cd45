import Foundation
import TroveSQLite

/// Why the workspace cannot be used. All map to exit status 4.
public enum WorkspaceError: Error, CustomStringConvertible {
    case missing(path: String)
    case newerSchema(path: String, found: Int, known: Int)
    case corrupt(path: String, message: String)
    case locked(path: String)
    case unusable(path: String, message: String)

    public var description: String {
        switch self {
        case .missing(let path):
            return "no workspace at \(path): run 'trove init' (or pass -w PATH)"
        case .newerSchema(let path, let found, let known):
            return
                "\(path) has schema version \(found), newer than this trove understands (\(known)); "
                + "upgrade trove"
        case .corrupt(let path, let message):
            return "\(path) is not a usable workspace: \(message)"
        case .locked(let path):
            return "\(path) is locked by another trove process; try again when it has finished"
        case .unusable(let path, let message):
            return "cannot use workspace \(path): \(message)"
        }
    }
}

/// One trove workspace: a SQLite file shared by every command.
///
/// Opening migrates an older schema forward in one transaction and refuses a newer one.
public final class Workspace {
    /// The connection. SQL text lives in TroveKit; other layers use the typed API.
    public let database: Database
    /// The path the workspace was opened from.
    public let path: String

    /// Opens the workspace at `path`.
    ///
    /// - Parameter create: create the file when it is missing (`trove init`).
    /// - Throws: `WorkspaceError`.
    public init(path: String, create: Bool = false, busyTimeout: Int32 = 5000)
        throws(WorkspaceError)
    {
        self.path = path
        if !create && !FileManager.default.fileExists(atPath: path) {
            throw .missing(path: path)
        }
        do {
            database = try Database(
                path: path, mode: create ? .readWriteCreate : .readWrite, busyTimeout: busyTimeout)
            try database.execute(
                """
                PRAGMA journal_mode = WAL;
                PRAGMA synchronous = NORMAL;
                PRAGMA foreign_keys = ON;
                PRAGMA temp_store = MEMORY;
                PRAGMA cache_size = -32000;
                """)
            try Schema.migrator.migrate(database)
        } catch let error as Migrator.MigrationError {
            if case .newerSchema(let found, let known) = error {
                throw .newerSchema(path: path, found: found, known: known)
            }
            throw .unusable(path: path, message: error.description)
        } catch let error as SQLiteError {
            throw Self.workspaceError(error, path: path)
        } catch {
            throw .unusable(path: path, message: "\(error)")
        }
    }

    /// The schema version this trove writes.
    public static var schemaVersion: Int { Schema.migrator.latestVersion }

    /// Maps a SQLite failure on the workspace to what the user should hear.
    public static func workspaceError(_ error: SQLiteError, path: String) -> WorkspaceError {
        if error.isBusy { return .locked(path: path) }
        if error.isCorrupt { return .corrupt(path: path, message: error.message) }
        return .unusable(path: path, message: error.message)
    }

    /// Runs `body` in one write transaction; SQLite busy and corrupt errors become
    /// `WorkspaceError`.
    ///
    /// - Throws: `WorkspaceError`, or whatever `body` throws.
    public func write<T>(_ body: () throws -> T) throws -> T {
        do {
            return try database.transaction(body)
        } catch let error as SQLiteError where error.isBusy || error.isCorrupt {
            throw Self.workspaceError(error, path: path)
        }
    }

    // MARK: - Settings

    /// The stored value of a setting, or nil.
    ///
    /// - Throws: `SQLiteError`.
    public func setting(_ key: String) throws -> String? {
        try database.scalar("SELECT value FROM settings WHERE key = ?", [.text(key)])?.string
    }

    /// Every stored setting, sorted by key.
    ///
    /// - Throws: `SQLiteError`.
    public func settings() throws -> [(key: String, value: String)] {
        try database.query("SELECT key, value FROM settings ORDER BY key") {
            (key: $0.text(0) ?? "", value: $0.text(1) ?? "")
        }
    }

    /// Stores a setting (validated by `Setting`).
    ///
    /// - Throws: `SQLiteError`.
    public func setSetting(_ key: String, _ value: String) throws {
        try write { () -> Void in
            try database.execute(
                "INSERT INTO settings (key, value) VALUES (?, ?) "
                    + "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                [.text(key), .text(value)])
        }
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
    /// - Throws: `SQLiteError`.
    public func geohashPrecision() throws -> Int {
        // `config set` checks the range; a value set some other way falls back too.
        let stored = try setting(Setting.geohashPrecision.key).flatMap(Int.init)
        return stored.flatMap { Geohash.precisionRange.contains($0) ? $0 : nil }
            ?? Geohash.defaultPrecision
    }
}

/// The current time as ISO 8601 in UTC, second precision.
func timestamp(_ date: Date = Date()) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    return formatter.string(from: date)
}
