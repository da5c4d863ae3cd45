/// Applies named, ordered schema migrations, recording each one applied by name in a
/// table of the database.
///
/// Names, not a count, are the record: two branches that each add a migration cannot both
/// claim "version 7", and a database that holds a name this migrator does not know was
/// written by a newer program and is refused. Each run applies every missing migration in
/// declaration order, with its bookkeeping, in one transaction, so a failure leaves the
/// previous state intact. A shipped migration is never edited: add a new one.
///
/// Databases from before the table existed recorded their progress as a count in
/// `PRAGMA user_version`; the first run records the first that many names as applied.
/// `user_version` is kept equal to the number of applied migrations, so a program that
/// still counts sees a newer database as newer.
public struct Migrator: Sendable {
    /// One step of the schema.
    public struct Migration: Sendable {
        public let name: String
        public let apply: @Sendable (Database) throws -> Void
        public init(_ name: String, apply: @escaping @Sendable (Database) throws -> Void) {
            self.name = name
            self.apply = apply
        }
        public init(_ name: String, sql: String) {
            self.init(name) { try $0.execute(sql) }
        }
    }

    /// Why a database cannot be migrated.
    public enum MigrationError: Error, CustomStringConvertible, Equatable {
        /// Counted by `user_version` beyond the migrations known here.
        case newerSchema(found: Int, known: Int)
        /// Recorded migrations this migrator does not know: a newer program wrote them.
        case unknownMigrations([String])
        /// `user_version` holds a count no migrator writes (negative).
        case invalidVersion(Int)
        /// Migrations are pending but the database is opened read-only.
        case readOnly(pending: [String])

        public var description: String {
            switch self {
            case .newerSchema(let found, let known):
                return "schema version \(found) is newer than this program knows (\(known))"
            case .unknownMigrations(let names):
                return "it records migrations this program does not know ("
                    + names.joined(separator: ", ") + ")"
            case .invalidVersion(let version):
                return "its schema version \(version) is invalid"
            case .readOnly(let pending):
                return "it needs migrations (" + pending.joined(separator: ", ")
                    + ") but is read-only"
            }
        }
    }

    /// The migrations, in the order they apply.
    public let migrations: [Migration]
    /// The table that records applied migrations by name.
    public let table: String

    public init(_ migrations: [Migration], table: String = "schema_migrations") {
        precondition(
            Set(migrations.map(\.name)).count == migrations.count, "migration names repeat")
        self.migrations = migrations
        self.table = table
    }

    /// The number of migrations this migrator knows.
    public var latestVersion: Int { migrations.count }

    /// The database's `user_version`: the count of applied migrations.
    ///
    /// - Throws: `SQLiteError`.
    public static func version(of database: Database) throws(SQLiteError) -> Int {
        Int(try database.scalar("PRAGMA user_version")?.int64 ?? 0)
    }

    /// The names of the migrations recorded as applied, in the order they were applied;
    /// nil when the database has no record table (it is new, or it counted).
    ///
    /// - Throws: `SQLiteError`.
    public func appliedNames(_ database: Database) throws -> [String]? {
        let exists = try database.scalar(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?",
            [.text(table)])
        guard exists == .integer(1) else { return nil }
        return try database.query("SELECT name FROM \"\(table)\" ORDER BY seq") {
            $0.text(0) ?? ""
        }
    }

    /// What `migrate` would apply, without writing.
    ///
    /// - Returns: the pending migration names, and whether the record itself needs
    ///   writing (a database that still counts in `user_version`).
    /// - Throws: `MigrationError` for a newer or invalid database, `SQLiteError`.
    public func plan(_ database: Database) throws -> (pending: [String], recordOnly: Bool) {
        let applied: Set<String>
        var needsRecord = false
        if let names = try appliedNames(database) {
            let known = Set(migrations.map(\.name))
            let unknown = names.filter { !known.contains($0) }
            if !unknown.isEmpty { throw MigrationError.unknownMigrations(unknown) }
            // The count is kept equal to the record: a larger one was written by a newer
            // program (or is no migrator's).
            let counted = try Self.version(of: database)
            if counted < 0 { throw MigrationError.invalidVersion(counted) }
            if counted > names.count {
                throw MigrationError.newerSchema(found: counted, known: latestVersion)
            }
            applied = Set(names)
        } else {
            let counted = try Self.version(of: database)
            if counted < 0 { throw MigrationError.invalidVersion(counted) }
            if counted > latestVersion {
                throw MigrationError.newerSchema(found: counted, known: latestVersion)
            }
            applied = Set(migrations.prefix(counted).map(\.name))
            needsRecord = true
        }
        let pending = migrations.map(\.name).filter { !applied.contains($0) }
        return (pending, needsRecord && pending.isEmpty)
    }

    /// Brings `database` forward in one transaction: records a counted database's
    /// migrations by name, then applies every missing migration in declaration order.
    ///
    /// - Parameter readOnly: the database cannot be written; only a database that is
    ///   current (or needs no more than its record rewritten) opens.
    /// - Parameter inTransaction: runs in the same transaction as the migrations, when
    ///   anything is written (e.g. to stamp an identity).
    /// - Returns: the names of the migrations applied.
    /// - Throws: `MigrationError` for a newer, invalid or read-only database;
    ///   `SQLiteError`, or whatever a migration throws, after rolling back.
    @discardableResult
    public func migrate(
        _ database: Database, readOnly: Bool = false,
        inTransaction: (Database) throws -> Void = { _ in }
    ) throws -> [String] {
        // Planned outside the write lock first, so a current database opens without it.
        let first = try plan(database)
        if first.pending.isEmpty && (!first.recordOnly || readOnly) { return [] }
        if readOnly { throw MigrationError.readOnly(pending: first.pending) }
        return try database.transaction {
            // Another process may have migrated while this one waited for the lock.
            let (pending, recordOnly) = try plan(database)
            if pending.isEmpty && !recordOnly { return [] }
            if try appliedNames(database) == nil {
                try database.execute(
                    """
                    CREATE TABLE "\(table)" (
                        seq  INTEGER PRIMARY KEY,
                        name TEXT NOT NULL UNIQUE,
                        -- NULL for migrations counted before this record existed
                        applied_at TEXT DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
                    )
                    """)
                let counted = try Self.version(of: database)
                for migration in migrations.prefix(counted) {
                    try database.execute(
                        "INSERT INTO \"\(table)\" (name, applied_at) VALUES (?, NULL)",
                        [.text(migration.name)])
                }
            }
            for name in pending {
                guard let migration = migrations.first(where: { $0.name == name }) else {
                    continue
                }
                try migration.apply(database)
                try database.execute(
                    "INSERT INTO \"\(table)\" (name) VALUES (?)", [.text(migration.name)])
            }
            let count = try database.scalar("SELECT count(*) FROM \"\(table)\"")?.int64 ?? 0
            try database.execute("PRAGMA user_version = \(count)")
            try inTransaction(database)
            return pending
        }
    }
}
