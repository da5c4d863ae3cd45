/// Applies named, ordered schema migrations, tracking progress in `PRAGMA user_version`.
///
/// Migration N (1-based) brings the schema to version N. Each runs in one transaction
/// with its bookkeeping, so a failure leaves the previous version intact. A shipped
/// migration is never edited: add a new one.
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
    public enum MigrationError: Error, CustomStringConvertible {
        case newerSchema(found: Int, known: Int)

        public var description: String {
            switch self {
            case .newerSchema(let found, let known):
                return "schema version \(found) is newer than this trove knows (\(known))"
            }
        }
    }

    public let migrations: [Migration]

    public init(_ migrations: [Migration]) {
        self.migrations = migrations
    }

    /// The schema version this migrator brings a database to.
    public var latestVersion: Int { migrations.count }

    /// The database's current `user_version`.
    ///
    /// - Throws: `SQLiteError`.
    public static func version(of database: Database) throws(SQLiteError) -> Int {
        Int(try database.scalar("PRAGMA user_version")?.int64 ?? 0)
    }

    /// Brings `database` forward to the latest version in one transaction.
    ///
    /// - Returns: the names of the migrations applied.
    /// - Throws: `MigrationError.newerSchema` for a schema from a newer trove;
    ///   `SQLiteError`, or whatever a migration throws, after rolling back.
    @discardableResult
    public func migrate(_ database: Database) throws -> [String] {
        // Checked outside the write lock first so a current workspace opens read-only fast.
        let current = try Self.version(of: database)
        if current > latestVersion {
            throw MigrationError.newerSchema(found: current, known: latestVersion)
        }
        if current == latestVersion { return [] }
        return try database.transaction {
            let current = try Self.version(of: database)
            if current > latestVersion {
                throw MigrationError.newerSchema(found: current, known: latestVersion)
            }
            var applied: [String] = []
            for (index, migration) in migrations.enumerated() where index >= current {
                try migration.apply(database)
                applied.append(migration.name)
            }
            try database.execute("PRAGMA user_version = \(latestVersion)")
            return applied
        }
    }
}
