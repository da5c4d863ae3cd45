import TroveSQLite

/// The kinds of record whose changes are tracked.
public enum RecordKind: String, Sendable {
    case treasure
    case post
}

/// What changed after a consumer's clock value.
public enum ChangeSet: Equatable, Sendable {
    /// Every record may have changed; `reason` says why, for a message.
    case everything(reason: String)
    /// Only these records changed (sorted; deleted ones included).
    case keys([String])
}

/// Which records changed, and when, recorded in the same transaction as the changes.
///
/// Writers collect what they change in `ChangeMarks` and record it before their
/// transaction commits. Consumers (an export's state, a publish target, validate) note the
/// clock when they have taken everything in, and later ask what changed since.
public enum ChangeLog {
    /// The clock's current value: every change recorded so far has a value at most this.
    ///
    /// - Throws: `SQLiteError`.
    public static func clock(in database: Database) throws -> Int64 {
        try database.scalar("SELECT seq FROM change_clock WHERE id = 1")?.int64 ?? 0
    }

    /// The subquery of the keys of `?1`'s kind changed after clock value `?2`: for
    /// restricting a query to changed records without reading the keys first.
    public static let changedKeysSQL =
        "SELECT key FROM record_changes WHERE kind = ?1 AND seq > ?2 AND key <> ''"

    /// What changed of `kind` after clock value `seq` (nil: the consumer never took
    /// anything in).
    ///
    /// - Parameter limit: beyond this many keys, answers `.everything`: rendering every
    ///   record costs less then.
    /// - Throws: `SQLiteError`.
    public static func changes(
        of kind: RecordKind, since seq: Int64?, limit: Int = .max, in database: Database
    ) throws -> ChangeSet {
        guard let seq else { return .everything(reason: "nothing was taken in before") }
        if try markedAll(kind, since: seq, in: database) {
            return .everything(reason: "every \(kind.rawValue) was written at once since")
        }
        let statement = try database.prepare(
            changedKeysSQL + " ORDER BY key LIMIT ?3")
        try statement.bind([
            .text(kind.rawValue), .integer(seq), .integer(Int64(min(limit, Int(Int32.max)) + 1)),
        ])
        let key = try statement.index(of: ChangeColumn.key)
        var keys: [String] = []
        while let row = try statement.next() {
            keys.append(row.text(key) ?? "")
        }
        if keys.count > limit {
            return .everything(reason: "more than \(limit) \(kind.rawValue)s changed since")
        }
        return .keys(keys)
    }

    /// Whether a bulk mark after clock value `seq` says every record of `kind` may have
    /// changed.
    ///
    /// - Throws: `SQLiteError`.
    public static func markedAll(_ kind: RecordKind, since seq: Int64, in database: Database)
        throws -> Bool
    {
        guard
            let bulk = try database.scalar(
                "SELECT seq FROM record_changes WHERE kind = ? AND key = ''",
                [.text(kind.rawValue)])?.int64
        else { return false }
        return bulk > seq
    }

    /// Deletes the marks every consumer has taken in: those at or before the oldest clock
    /// value one of the exports an `--update --since` can follow (each layout's last
    /// few), a publish target (or the plan in progress) or another consumer recorded. One that never took anything in renders everything and does not
    /// hold marks back. Call in the write transaction that recorded a consumer.
    ///
    /// - Throws: `SQLiteError`.
    public static func prune(in database: Database) throws {
        try database.execute(
            """
            DELETE FROM record_changes WHERE kind IN ('treasure', 'post') AND seq <= (
                SELECT min(seq) FROM (
                    SELECT l.change_seq AS seq FROM export_log AS l
                    WHERE l.id IN (SELECT k.id FROM export_log AS k WHERE k.layout = l.layout
                                   ORDER BY k.id DESC LIMIT \(ExportStore.keptStates))
                    UNION ALL SELECT change_seq FROM publish_targets
                    UNION ALL SELECT change_seq FROM publish_plans
                    UNION ALL SELECT seq FROM change_consumers)
                WHERE seq IS NOT NULL)
            """)
    }

    /// Marks every record of `kind` changed now, in the write in progress: the marks the
    /// triggers would make of each row this transaction changes from here on are left
    /// out, as this one covers them. For a writer about to change most rows of a table.
    ///
    /// - Throws: `SQLiteError`.
    public static func markEverything(_ kind: RecordKind, in database: Database) throws {
        var marks = ChangeMarks(kind)
        marks.markEverything()
        try marks.record(in: database)
    }

    /// The clock value consumer `name` last took in, and its inputs' fingerprint.
    ///
    /// - Throws: `SQLiteError`.
    public static func consumer(_ name: String, in database: Database) throws -> (
        seq: Int64, inputs: String?
    )? {
        try database.query(
            "SELECT seq, inputs FROM change_consumers WHERE name = ?", [.text(name)]
        ) { (seq: try $0.int64(ChangeColumn.seq) ?? 0, inputs: try $0.text(ChangeColumn.inputs)) }
        .first
    }

    /// Records that consumer `name` has taken in everything up to the clock's value now,
    /// or up to `seq`: the value a consumer that read outside this transaction saw when it
    /// began. Call inside the write transaction that did the taking in.
    ///
    /// - Throws: `SQLiteError`.
    public static func recordConsumer(
        _ name: String, inputs: String?, at seq: Int64? = nil, in database: Database
    ) throws {
        try database.execute(
            """
            INSERT INTO change_consumers (name, seq, inputs)
            VALUES (?1, coalesce(?3, (SELECT seq FROM change_clock WHERE id = 1)), ?2)
            ON CONFLICT (name) DO UPDATE SET seq = excluded.seq, inputs = excluded.inputs
            """, [.text(name), inputs.map { .text($0) }, seq.map { .integer($0) }])
    }
}

/// The records one write changes, recorded with `record(in:)` before it commits.
///
/// Up to `limit` keys are kept and marked one by one; beyond that, or after
/// `markEverything()`, one mark stands for every record of the kind, so a bulk write
/// costs one row here instead of one per record.
public struct ChangeMarks {
    public let kind: RecordKind
    private var keys: Set<String> = []
    private var everything = false
    private let limit: Int

    public init(_ kind: RecordKind, limit: Int = 50_000) {
        self.kind = kind
        self.limit = limit
    }

    /// Whether nothing has been marked.
    public var isEmpty: Bool { !everything && keys.isEmpty }

    /// Marks record `key` as changed (written, moved, re-rendered or deleted).
    public mutating func mark(_ key: String) {
        guard !everything else { return }
        keys.insert(key)
        if keys.count > limit { markEverything() }
    }

    /// Marks every record of the kind as changed.
    public mutating func markEverything() {
        everything = true
        keys = []
    }

    /// Writes the marks with a new clock value and clears them. Call inside the write
    /// transaction that made the changes.
    ///
    /// - Throws: `SQLiteError`.
    public mutating func record(in database: Database) throws {
        guard !isEmpty else { return }
        try database.execute("UPDATE change_clock SET seq = seq + 1 WHERE id = 1")
        let kind = SQLiteValue.text(self.kind.rawValue)
        if everything {
            // Every consumer older than this mark takes in everything, so the marks it
            // covers are of no further use.
            try database.execute("DELETE FROM record_changes WHERE kind = ?", [kind])
            try database.execute(
                """
                INSERT INTO record_changes (kind, key, seq)
                VALUES (?, '', (SELECT seq FROM change_clock WHERE id = 1))
                """, [kind])
        } else {
            let upsert = try database.prepare(
                """
                INSERT INTO record_changes (kind, key, seq)
                VALUES (?1, ?2, (SELECT seq FROM change_clock WHERE id = 1))
                ON CONFLICT (kind, key) DO UPDATE SET seq = excluded.seq
                """)
            for key in keys.sorted() {
                try upsert.run([kind, .text(key)])
            }
        }
        keys = []
        everything = false
    }
}
