import TroveBase
import TroveSQLite

/// What a target took in at its last publish: the clock value and inputs its state was
/// rendered with, and how many paths and objects it holds. Nil fields were not recorded
/// (a target never published, or published before they were).
package struct PublishedBase: Equatable {
    package var seq: Int64?
    package var inputs: String?
    package var paths: Int?
    package var objects: Int?
}

/// A completed publish, or a plan marked applied, as `publish_log` records it.
package struct PublishLogEntry: Equatable {
    package enum Kind: String {
        case publish
        case markApplied = "mark-applied"
    }

    package var target: String
    package var at: String
    package var kind: Kind
    package var paths: Int
    package var changed: Int
    package var removed: Int
    package var uploaded: Int
    package var retokened: Int
    package var deleted: Int
    /// The plan file, for a plan marked applied.
    package var source: String?
    package init(
        target: String, at: String, kind: Kind, paths: Int, changed: Int, removed: Int,
        uploaded: Int, retokened: Int, deleted: Int, source: String? = nil
    ) {
        self.target = target
        self.at = at
        self.kind = kind
        self.paths = paths
        self.changed = changed
        self.removed = removed
        self.uploaded = uploaded
        self.retokened = retokened
        self.deleted = deleted
        self.source = source
    }
}

/// The SQL of the publish family: `publish_targets`, what each holds (`publish_state`),
/// the publish in progress (`publish_plans`, `publish_steps`) and `publish_log`. Rows are
/// decoded by column name into domain values.
package struct PublishStore {
    package let database: Database

    package init(_ database: Database) {
        self.database = database
    }

    // MARK: - Targets

    /// Every target, by name.
    ///
    /// - Throws: `SQLiteError`.
    package func targets() throws -> [PublishTarget] {
        try database.query(
            """
            SELECT name, database_url, bucket, layout, is_default, published_at
            FROM publish_targets ORDER BY name
            """
        ) { row in
            PublishTarget(
                name: try row.text(PublishColumn.name) ?? "",
                databaseURL: try row.text(PublishColumn.databaseURL) ?? "",
                bucket: try row.text(PublishColumn.bucket) ?? "",
                layout: try row.text(PublishColumn.layout) ?? "",
                isDefault: try row.int64(PublishColumn.isDefault) == 1,
                publishedAt: try row.text(PublishColumn.publishedAt))
        }
    }

    /// Whether a target is named `name`.
    ///
    /// - Throws: `SQLiteError`.
    package func hasTarget(_ name: String) throws -> Bool {
        try database.scalar("SELECT 1 FROM publish_targets WHERE name = ?", [.text(name)]) != nil
    }

    /// How many targets there are.
    ///
    /// - Throws: `SQLiteError`.
    package func targetCount() throws -> Int {
        Int(try database.scalar("SELECT count(*) FROM publish_targets")?.int64 ?? 0)
    }

    /// Adds `target` as it is (checked by the caller), added at `addedAt`; when it is the
    /// default, no other target is any more.
    ///
    /// - Throws: `SQLiteError`.
    package func insert(_ target: PublishTarget, addedAt: String) throws {
        if target.isDefault {
            try database.execute("UPDATE publish_targets SET is_default = 0")
        }
        try database.execute(
            """
            INSERT INTO publish_targets
                (name, database_url, bucket, layout, is_default, added_at)
            VALUES (?, ?, ?, ?, ?, ?)
            """,
            [
                .text(target.name), .text(target.databaseURL), .text(target.bucket),
                .text(target.layout), .integer(target.isDefault ? 1 : 0), .text(addedAt),
            ])
    }

    /// Removes target `name` and, by cascade, everything recorded of it.
    ///
    /// - Throws: `SQLiteError`.
    package func deleteTarget(_ name: String) throws {
        try database.execute("DELETE FROM publish_targets WHERE name = ?", [.text(name)])
    }

    /// Changes where target `target.name` publishes and with what layout, and makes it
    /// the default when `target.isDefault` (no other is then); a target that is the
    /// default stays so.
    ///
    /// - Throws: `SQLiteError`.
    package func update(_ target: PublishTarget) throws {
        if target.isDefault {
            try database.execute(
                "UPDATE publish_targets SET is_default = 0 WHERE name <> ?", [.text(target.name)])
        }
        try database.execute(
            """
            UPDATE publish_targets SET database_url = ?, bucket = ?, layout = ?,
                is_default = max(is_default, ?)
            WHERE name = ?
            """,
            [
                .text(target.databaseURL), .text(target.bucket), .text(target.layout),
                .integer(target.isDefault ? 1 : 0), .text(target.name),
            ])
    }

    /// Forgets what the target holds of one kind, as when it moves to another database
    /// (`.paths`) or bucket (`.objects`): the next plan renders every record and sends all
    /// of that kind to the new place. A database moved is also never published.
    ///
    /// - Throws: `SQLiteError`.
    package func forgetHeld(_ kind: PublishStateKind, target: String) throws {
        try database.execute(
            "DELETE FROM publish_state WHERE target = ? AND kind = ? AND planned = 0",
            [.text(target), .text(kind.rawValue)])
        let counts = kind == .paths ? "paths = NULL, published_at = NULL" : "objects = NULL"
        try database.execute(
            "UPDATE publish_targets SET change_seq = NULL, inputs = NULL, \(counts) WHERE name = ?",
            [.text(target)])
        try ExportStore(database).collectGarbage()
    }

    /// What `target` took in at its last publish; nil for an unknown target.
    ///
    /// - Throws: `SQLiteError`.
    package func publishedBase(target: String) throws -> PublishedBase? {
        try database.query(
            "SELECT change_seq, inputs, paths, objects FROM publish_targets WHERE name = ?",
            [.text(target)]
        ) { row in
            PublishedBase(
                seq: try row.int64(PublishColumn.changeSeq),
                inputs: try row.text(PublishColumn.inputs),
                paths: try row.int64(PublishColumn.paths).map(Int.init),
                objects: try row.int64(PublishColumn.objects).map(Int.init))
        }.first
    }

    /// The other targets that publish to `bucket`.
    ///
    /// - Throws: `SQLiteError`.
    package func targets(inBucket bucket: String, besides target: String) throws -> [String] {
        try database.query(
            "SELECT name FROM publish_targets WHERE bucket = ? AND name <> ?",
            [.text(bucket), .text(target)]
        ) { try $0.text(PublishColumn.name) ?? "" }
    }

    /// Whether another target than `target` publishes to `bucket`.
    ///
    /// - Throws: `SQLiteError`.
    package func sharesBucket(_ bucket: String, besides target: String) throws -> Bool {
        try database.scalar(
            "SELECT 1 FROM publish_targets WHERE bucket = ? AND name <> ? LIMIT 1",
            [.text(bucket), .text(target)]) != nil
    }

    /// Records when `target`'s last publish completed.
    ///
    /// - Throws: `SQLiteError`.
    package func setPublishedAt(_ at: String, target: String) throws {
        try database.execute(
            "UPDATE publish_targets SET published_at = ? WHERE name = ?",
            [.text(at), .text(target)])
    }

    // MARK: - What targets hold

    /// The blocks of one kind of a target's state, in order.
    ///
    /// - Throws: `SQLiteError`.
    package func blocks(_ kind: PublishStateKind, target: String, planned: Bool) throws
        -> () throws -> [UInt8]?
    {
        let statement = try database.prepare(
            """
            SELECT b.entries AS entries FROM publish_state AS s
            JOIN state_blocks AS b ON b.id = s.block
            WHERE s.target = ? AND s.kind = ? AND s.planned = ? ORDER BY s.seq
            """)
        try statement.bind([.text(target), .text(kind.rawValue), .integer(planned ? 1 : 0)])
        let entries = try statement.index(of: PublishColumn.entries)
        return {
            guard let row = try statement.next() else { return nil }
            return row.blob(entries) ?? []
        }
    }

    /// The block references of one kind of a target's state, in order.
    ///
    /// - Throws: `SQLiteError`.
    package func index(_ kind: PublishStateKind, target: String, planned: Bool) throws
        -> [StateBlockReference]
    {
        try database.query(
            """
            SELECT first, block FROM publish_state WHERE target = ? AND kind = ? AND planned = ?
            ORDER BY seq
            """, [.text(target), .text(kind.rawValue), .integer(planned ? 1 : 0)],
            ExportStore.reference)
    }

    /// Stores block references of one kind as the target's planned state, numbered by
    /// the caller.
    ///
    /// - Throws: `SQLiteError`.
    package func plannedIndexWriter(_ kind: PublishStateKind, target: String) throws
        -> (Int64, StateBlockReference) throws -> Void
    {
        let insert = try database.prepare(
            """
            INSERT INTO publish_state (target, kind, planned, seq, first, block)
            VALUES (?, ?, 1, ?, ?, ?)
            """)
        return { seq, reference in
            try insert.run([
                .text(target), .text(kind.rawValue), .integer(seq), .blob(reference.first),
                .integer(reference.block),
            ])
        }
    }

    /// Stores blocks of one kind as the target's planned state, each in `state_blocks`
    /// and referred to with its first path.
    ///
    /// - Throws: `SQLiteError`.
    package func plannedBlockWriter(_ kind: PublishStateKind, target: String) throws
        -> (Int64, [UInt8]) throws -> Void
    {
        let reference = try plannedIndexWriter(kind, target: target)
        let blocks = ExportStore(database)
        return { seq, block in
            let id = try blocks.insertBlock(block)
            try reference(
                seq, StateBlockReference(first: StateBlocks.firstPath(of: block), block: id))
        }
    }

    /// Forgets the target's planned state.
    ///
    /// - Throws: `SQLiteError`.
    package func deletePlannedState(target: String) throws {
        try database.execute(
            "DELETE FROM publish_state WHERE target = ? AND planned = 1", [.text(target)])
    }

    /// Makes the states of recorded export `generation` of `layout` (its paths and its
    /// objects, blocks shared) the target's planned state.
    ///
    /// - Throws: `SQLiteError`.
    package func planExportState(target: String, layout: String, generation: Int64) throws {
        for (kind, table) in [("paths", "export_state"), ("objects", "export_objects")] {
            try database.execute(
                """
                INSERT INTO publish_state (target, kind, planned, seq, first, block)
                SELECT ?, '\(kind)', 1, seq, first, block FROM \(table)
                WHERE layout = ? AND generation = ?
                """, [.text(target), .text(layout), .integer(generation)])
        }
    }

    /// Makes the planned state what the target holds, with the clock value, inputs and
    /// counts of the plan that made it, and drops the blocks and change marks nothing
    /// needs any more. Call in a write transaction.
    ///
    /// - Throws: `SQLiteError`.
    package func promotePlanned(target: String) throws {
        try database.execute(
            """
            UPDATE publish_targets SET change_seq = p.change_seq, inputs = p.inputs,
                paths = p.paths, objects = p.objects
            FROM publish_plans AS p WHERE p.target = publish_targets.name AND p.target = ?
            """, [.text(target)])
        try database.execute(
            "DELETE FROM publish_state WHERE target = ? AND planned = 0", [.text(target)])
        try database.execute(
            "UPDATE publish_state SET planned = 0 WHERE target = ? AND planned = 1",
            [.text(target)])
        try ExportStore(database).collectGarbage()
        try ChangeLog.prune(in: database)
    }

    /// Records that the target holds what recorded export `id` took in: its clock value,
    /// inputs and counts.
    ///
    /// - Throws: `SQLiteError`.
    package func adoptExport(_ id: Int64, target: String) throws {
        try database.execute(
            """
            UPDATE publish_targets SET change_seq = l.change_seq, inputs = l.inputs,
                paths = l.paths, objects = l.objects
            FROM export_log AS l WHERE l.id = ? AND publish_targets.name = ?
            """, [.integer(id), .text(target)])
    }

    // MARK: - The publish in progress

    /// Starts the target's plan afresh: no planned state, no steps, nothing counted yet.
    ///
    /// - Throws: `SQLiteError`.
    package func beginPlan(target: String, plannedAt: String, images: String) throws {
        try deletePlannedState(target: target)
        try deletePlan(target: target)
        try database.execute(
            """
            INSERT INTO publish_plans
                (target, planned_at, images, paths, objects, changed, removed)
            VALUES (?, ?, ?, 0, 0, 0, 0)
            """, [.text(target), .text(plannedAt), .text(images)])
    }

    /// Adds steps to the target's plan.
    ///
    /// - Throws: `SQLiteError`.
    package func stepWriter(target: String) throws -> (
        _ seq: Int64, _ kind: PublishStepKind, _ name: String?, _ token: String?,
        _ body: [UInt8]?
    ) throws -> Void {
        let insert = try database.prepare(
            "INSERT INTO publish_steps (target, seq, kind, name, token, body) VALUES (?, ?, ?, ?, ?, ?)"
        )
        return { seq, kind, name, token, body in
            try insert.run([
                .text(target), .integer(seq), .text(kind.rawValue), name.map { .text($0) },
                token.map { .text($0) }, body.map { .blob(CompressedBlob.pack($0)) },
            ])
        }
    }

    /// Records the plan's counts and what it took in: the clock's value now when
    /// `takesInClock`, none otherwise (a plan against a live download).
    ///
    /// - Throws: `SQLiteError`.
    package func completePlan(
        target: String, summary: PublishPlanSummary, takesInClock: Bool, inputs: String
    ) throws {
        try database.execute(
            """
            UPDATE publish_plans SET paths = ?, objects = ?, changed = ?, removed = ?,
                change_seq = CASE WHEN ? THEN (SELECT seq FROM change_clock) END, inputs = ?
            WHERE target = ?
            """,
            [
                .integer(Int64(summary.paths)), .integer(Int64(summary.objects)),
                .integer(Int64(summary.changed)), .integer(Int64(summary.removed)),
                .integer(takesInClock ? 1 : 0), .text(inputs), .text(target),
            ])
    }

    /// The counts of the target's plan (paths, objects, changed, removed); nil when no
    /// publish is in progress.
    ///
    /// - Throws: `SQLiteError`.
    package func plan(target: String) throws -> PublishPlanSummary? {
        try database.query(
            "SELECT paths, objects, changed, removed FROM publish_plans WHERE target = ?",
            [.text(target)]
        ) { row in
            var summary = PublishPlanSummary()
            summary.paths = Int(try row.int64(PublishColumn.paths) ?? 0)
            summary.objects = Int(try row.int64(PublishColumn.objects) ?? 0)
            summary.changed = Int(try row.int64(PublishColumn.changed) ?? 0)
            summary.removed = Int(try row.int64(PublishColumn.removed) ?? 0)
            return summary
        }.first
    }

    /// The images folder the plan's uploads read from.
    ///
    /// - Throws: `SQLiteError`.
    package func planImages(target: String) throws -> String? {
        try database.scalar(
            "SELECT images FROM publish_plans WHERE target = ?", [.text(target)])?.string
    }

    /// How many steps of each kind the plan has not done yet.
    ///
    /// - Throws: `SQLiteError`.
    package func pendingStepCounts(target: String) throws -> [PublishStepKind: Int] {
        var counts: [PublishStepKind: Int] = [:]
        _ = try database.query(
            """
            SELECT kind, count(*) AS steps FROM publish_steps WHERE target = ? AND done = 0
            GROUP BY kind
            """, [.text(target)]
        ) { row in
            if let kind = PublishStepKind(rawValue: try row.text(PublishColumn.kind) ?? "") {
                counts[kind] = Int(try row.int64(PublishColumn.steps) ?? 0)
            }
        }
        return counts
    }

    /// How many steps the plan has not done yet.
    ///
    /// - Throws: `SQLiteError`.
    package func pendingStepCount(target: String) throws -> Int {
        Int(
            try database.scalar(
                "SELECT count(*) FROM publish_steps WHERE target = ? AND done = 0",
                [.text(target)])?.int64 ?? 0)
    }

    /// Calls `body` with each step not done yet, with its body, in order, one row at a
    /// time.
    ///
    /// - Throws: `SQLiteError`, or what `body` throws.
    package func forEachPendingStep(target: String, _ body: (PublishStep) throws -> Void) throws {
        let steps = try database.prepare(
            """
            SELECT seq, kind, name, token, body FROM publish_steps
            WHERE target = ? AND done = 0 ORDER BY seq
            """)
        try steps.bind([.text(target)])
        while let row = try steps.next() {
            try body(Self.step(row, kind: nil, withBody: true))
        }
    }

    private static func step(_ row: Row, kind: PublishStepKind?, withBody: Bool = false)
        throws -> PublishStep
    {
        PublishStep(
            seq: try row.int64(PublishColumn.seq) ?? 0,
            kind: try kind ?? PublishStepKind(rawValue: try row.text(PublishColumn.kind) ?? ""),
            name: try row.text(PublishColumn.name) ?? "", token: try row.text(PublishColumn.token),
            body: withBody ? try Self.body(row) : nil)
    }

    /// A step's body as the plan made it (stored compressed, `CompressedBlob`).
    private static func body(_ row: Row) throws -> [UInt8]? {
        guard let stored = try row.blob(PublishColumn.body) else { return nil }
        guard let body = CompressedBlob.unpack(stored) else {
            throw RowDecodingError(PublishColumn.body, "is not a body trove wrote")
        }
        return body
    }

    /// The names of the objects the plan uploads, in order.
    ///
    /// - Throws: `SQLiteError`.
    package func uploadNames(target: String) throws -> [String] {
        try database.query(
            "SELECT name FROM publish_steps WHERE target = ? AND kind = 'upload' ORDER BY seq",
            [.text(target)]
        ) { try $0.text(PublishColumn.name) ?? "" }
    }

    /// The plan's steps of `kind` not done yet (without bodies), in order.
    ///
    /// - Throws: `SQLiteError`.
    package func pendingSteps(target: String, kind: PublishStepKind) throws -> [PublishStep] {
        try database.query(
            """
            SELECT seq, name, token FROM publish_steps
            WHERE target = ? AND kind = ? AND done = 0 ORDER BY seq
            """, [.text(target), .text(kind.rawValue)]
        ) { try Self.step($0, kind: kind) }
    }

    /// Up to `limit` steps not done yet (without bodies) numbered after `after` and
    /// before `before`, in order: those of one kind, whose numbers all lie in its range.
    ///
    /// - Throws: `SQLiteError`.
    package func pendingSteps(
        target: String, kind: PublishStepKind, after: Int64, before: Int64, limit: Int
    ) throws -> [PublishStep] {
        try database.query(
            """
            SELECT seq, name, token FROM publish_steps
            WHERE target = ? AND seq > ? AND seq < ? AND done = 0 ORDER BY seq LIMIT ?
            """,
            [.text(target), .integer(after), .integer(before), .integer(Int64(limit))]
        ) { try Self.step($0, kind: kind) }
    }

    /// The body of step `seq`; nil when there is no such step.
    ///
    /// - Throws: `SQLiteError`.
    package func stepBody(target: String, seq: Int64) throws -> [UInt8]? {
        try database.query(
            "SELECT body FROM publish_steps WHERE target = ? AND seq = ?",
            [.text(target), .integer(seq)]
        ) { try Self.body($0) ?? [] }.first
    }

    /// Marks step `seq` done.
    ///
    /// - Throws: `SQLiteError`.
    package func markDone(target: String, seq: Int64) throws {
        try database.execute(
            "UPDATE publish_steps SET done = 1 WHERE target = ? AND seq = ?",
            [.text(target), .integer(seq)])
    }

    /// The log entry of the target's plan as it completes at `at`: its counts, and the
    /// objects its steps uploaded, re-tokened and deleted. Nil when there is no plan.
    ///
    /// - Throws: `SQLiteError`.
    package func completedPlanEntry(target: String, at: String) throws -> PublishLogEntry? {
        try database.query(
            """
            SELECT p.paths AS paths, p.changed AS changed, p.removed AS removed,
                (SELECT count(*) FROM publish_steps WHERE target = p.target AND kind = 'upload')
                    AS uploaded,
                (SELECT count(*) FROM publish_steps WHERE target = p.target AND kind = 'token')
                    AS retokened,
                (SELECT count(*) FROM publish_steps WHERE target = p.target AND kind = 'delete')
                    AS deleted
            FROM publish_plans AS p WHERE p.target = ?
            """, [.text(target)]
        ) { row in
            PublishLogEntry(
                target: target, at: at, kind: .publish,
                paths: Int(try row.int64(PublishColumn.paths) ?? 0),
                changed: Int(try row.int64(PublishColumn.changed) ?? 0),
                removed: Int(try row.int64(PublishColumn.removed) ?? 0),
                uploaded: Int(try row.int64(PublishColumn.uploaded) ?? 0),
                retokened: Int(try row.int64(PublishColumn.retokened) ?? 0),
                deleted: Int(try row.int64(PublishColumn.deleted) ?? 0))
        }.first
    }

    /// Drops the target's plan and, by cascade, its steps.
    ///
    /// - Throws: `SQLiteError`.
    package func deletePlan(target: String) throws {
        try database.execute("DELETE FROM publish_plans WHERE target = ?", [.text(target)])
    }

    // MARK: - The log

    /// Appends `entry` to the publish log.
    ///
    /// - Throws: `SQLiteError`.
    package func appendLog(_ entry: PublishLogEntry) throws {
        try database.execute(
            """
            INSERT INTO publish_log
                (target, at, kind, paths, changed, removed, uploaded, retokened, deleted,
                 source)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(entry.target), .text(entry.at), .text(entry.kind.rawValue),
                .integer(Int64(entry.paths)), .integer(Int64(entry.changed)),
                .integer(Int64(entry.removed)), .integer(Int64(entry.uploaded)),
                .integer(Int64(entry.retokened)), .integer(Int64(entry.deleted)),
                entry.source.map { .text($0) },
            ])
    }

    /// The publish log, oldest first; of one target when `target` is given.
    ///
    /// - Throws: `SQLiteError`.
    package func log(target: String? = nil) throws -> [PublishLogEntry] {
        try database.query(
            """
            SELECT target, at, kind, paths, changed, removed, uploaded, retokened, deleted,
                   source
            FROM publish_log WHERE ?1 IS NULL OR target = ?1 ORDER BY id
            """, [target.map { .text($0) }]
        ) { row in
            PublishLogEntry(
                target: try row.text(PublishColumn.target) ?? "",
                at: try row.text(PublishColumn.at) ?? "",
                kind: PublishLogEntry.Kind(rawValue: try row.text(PublishColumn.kind) ?? "")
                    ?? .publish,
                paths: Int(try row.int64(PublishColumn.paths) ?? 0),
                changed: Int(try row.int64(PublishColumn.changed) ?? 0),
                removed: Int(try row.int64(PublishColumn.removed) ?? 0),
                uploaded: Int(try row.int64(PublishColumn.uploaded) ?? 0),
                retokened: Int(try row.int64(PublishColumn.retokened) ?? 0),
                deleted: Int(try row.int64(PublishColumn.deleted) ?? 0),
                source: try row.text(PublishColumn.source))
        }
    }
}
