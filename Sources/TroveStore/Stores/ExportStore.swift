import Foundation
import TroveSQLite

/// One row of `export_log` as the export and publish code use it: what a recorded export
/// wrote and took in.
package struct LoggedExport: Equatable {
    package var id: Int64
    package var layout: String
    package var at: String
    /// The file written.
    package var out: String
    /// `full` or `update`.
    package var kind: String
    /// The recorded export an update was relative to.
    package var base: Int64?
    /// Names its state in `export_state` and `export_objects` while that is kept.
    package var generation: Int64
    package var records: Int
    package var paths: Int
    package var changed: Int
    package var removed: Int
    /// The clock value it took in; nil for exports from before change tracking.
    package var changeSeq: Int64?
    /// The fingerprint of its layout and settings (`ExportInputs`).
    package var inputs: String?
    /// How many Storage objects it referenced; nil where that was not recorded.
    package var objects: Int?
    package init(
        id: Int64, layout: String, at: String, out: String, kind: String, base: Int64? = nil,
        generation: Int64, records: Int, paths: Int, changed: Int, removed: Int,
        changeSeq: Int64? = nil, inputs: String? = nil, objects: Int? = nil
    ) {
        self.id = id
        self.layout = layout
        self.at = at
        self.out = out
        self.kind = kind
        self.base = base
        self.generation = generation
        self.records = records
        self.paths = paths
        self.changed = changed
        self.removed = removed
        self.changeSeq = changeSeq
        self.inputs = inputs
        self.objects = objects
    }
}

/// The SQL of the exports family: `export_log`, `exports`, the states of exports
/// (`export_state`, `export_objects`) and the blocks every state shares (`state_blocks`).
/// Rows are decoded by column name into domain values.
///
/// The records an export renders are read by `RecordQuery` (the export's hot loop), not
/// here.
package struct ExportStore {
    /// How many recorded exports of each layout keep their state for `--since`.
    package static let keptStates = 10

    package let database: Database

    package init(_ database: Database) {
        self.database = database
    }

    // MARK: - The export log

    private static let exportColumns = """
        l.id, l.layout, l.at, l.out, l.kind, l.base, l.generation, l.records, l.paths,
        l.changed, l.removed, l.change_seq, l.inputs, l.objects
        """

    private static func loggedExport(_ row: Row) throws -> LoggedExport {
        LoggedExport(
            id: try row.int64(ExportColumn.id) ?? 0,
            layout: try row.text(ExportColumn.layout) ?? "",
            at: try row.text(ExportColumn.at) ?? "",
            out: try row.text(ExportColumn.out) ?? "", kind: try row.text(ExportColumn.kind) ?? "",
            base: try row.int64(ExportColumn.base),
            generation: try row.int64(ExportColumn.generation) ?? 0,
            records: Int(try row.int64(ExportColumn.records) ?? 0),
            paths: Int(try row.int64(ExportColumn.paths) ?? 0),
            changed: Int(try row.int64(ExportColumn.changed) ?? 0),
            removed: Int(try row.int64(ExportColumn.removed) ?? 0),
            changeSeq: try row.int64(ExportColumn.changeSeq),
            inputs: try row.text(ExportColumn.inputs),
            objects: try row.int64(ExportColumn.objects).map(Int.init))
    }

    /// Every recorded export, oldest first; of one layout when `layout` is given.
    ///
    /// - Throws: `SQLiteError`.
    package func logEntries(layout: String? = nil) throws -> [ExportLogEntry] {
        try database.query(
            """
            SELECT l.id, l.layout, l.at, l.out, l.kind, l.base, l.records, l.paths, l.changed,
                   l.removed,
                   l.paths = 0 OR EXISTS (SELECT 1 FROM export_state AS s
                       WHERE s.layout = l.layout AND s.generation = l.generation) AS is_kept
            FROM export_log AS l WHERE ?1 IS NULL OR l.layout = ?1 ORDER BY l.id
            """, [layout.map { .text($0) }]
        ) { row in
            ExportLogEntry(
                id: try row.int64(ExportColumn.id) ?? 0,
                layout: try row.text(ExportColumn.layout) ?? "",
                at: try row.text(ExportColumn.at) ?? "", out: try row.text(ExportColumn.out) ?? "",
                kind: try row.text(ExportColumn.kind) ?? "", base: try row.int64(ExportColumn.base),
                records: Int(try row.int64(ExportColumn.records) ?? 0),
                paths: Int(try row.int64(ExportColumn.paths) ?? 0),
                changed: Int(try row.int64(ExportColumn.changed) ?? 0),
                removed: Int(try row.int64(ExportColumn.removed) ?? 0),
                isKept: (try row.int64(ExportColumn.isKept) ?? 0) != 0)
        }
    }

    /// Recorded export `id`.
    ///
    /// - Throws: `SQLiteError`.
    package func export(id: Int64) throws -> LoggedExport? {
        try database.query(
            "SELECT \(Self.exportColumns) FROM export_log AS l WHERE l.id = ?", [.integer(id)],
            Self.loggedExport
        ).first
    }

    /// The last recorded export written to `out`.
    ///
    /// - Throws: `SQLiteError`.
    package func lastExport(writtenTo out: String) throws -> LoggedExport? {
        try database.query(
            """
            SELECT \(Self.exportColumns) FROM export_log AS l
            WHERE l.out = ? ORDER BY l.id DESC LIMIT 1
            """, [.text(out)], Self.loggedExport
        ).first
    }

    /// The last recorded export of `layout` whose state is `generation`.
    ///
    /// - Throws: `SQLiteError`.
    package func lastExport(layout: String, generation: Int64) throws -> LoggedExport? {
        try database.query(
            """
            SELECT \(Self.exportColumns) FROM export_log AS l
            WHERE l.layout = ? AND l.generation = ? ORDER BY l.id DESC LIMIT 1
            """, [.text(layout), .integer(generation)], Self.loggedExport
        ).first
    }

    /// The latest state generation of `layout`, whether or not its state holds any path
    /// (an export of nothing keeps no block, but is still what the next one follows).
    ///
    /// - Throws: `SQLiteError`.
    package func latestGeneration(layout: String) throws -> Int64? {
        try database.scalar(
            """
            SELECT max(generation) FROM (
                SELECT max(generation) AS generation FROM export_state WHERE layout = ?1
                UNION ALL SELECT max(generation) FROM export_log WHERE layout = ?1)
            """, [.text(layout)])?.int64
    }

    /// The id of the last recorded export of `layout` with state `generation`.
    ///
    /// - Throws: `SQLiteError`.
    package func lastExportID(layout: String, generation: Int64) throws -> Int64? {
        try database.scalar(
            "SELECT max(id) FROM export_log WHERE layout = ? AND generation = ?",
            [.text(layout), .integer(generation)])?.int64
    }

    /// How many exports of `layout` were recorded after export `id`.
    ///
    /// - Throws: `SQLiteError`.
    package func exportCount(layout: String, after id: Int64) throws -> Int {
        Int(
            try database.scalar(
                "SELECT count(*) FROM export_log WHERE layout = ? AND id > ?",
                [.text(layout), .integer(id)])?.int64 ?? 0)
    }

    /// When the last export of any layout ran (ISO 8601); nil before the first.
    ///
    /// - Throws: `SQLiteError`.
    package func lastExportTime() throws -> String? {
        try database.scalar("SELECT max(at) FROM exports")?.string
    }

    /// The layout and output of the last export that named an output.
    ///
    /// - Throws: `SQLiteError`.
    package func lastWrittenExport() throws -> (layout: String, out: String)? {
        try database.query(
            "SELECT layout, out FROM exports WHERE out IS NOT NULL ORDER BY at DESC LIMIT 1"
        ) {
            (
                layout: try $0.text(ExportColumn.layout) ?? "",
                out: try $0.text(ExportColumn.out) ?? ""
            )
        }.first
    }

    /// Logs an export written to a file, makes its state the base of the next `--update`,
    /// and drops the states older than the last `Self.keptStates` exports of the
    /// layout, with the blocks and change marks nothing needs any more. Takes in the
    /// clock's value now. Call in the export's write transaction.
    ///
    /// - Throws: `SQLiteError`.
    package func record(_ export: LoggedExport) throws {
        let layout = SQLiteValue.text(export.layout)
        try database.execute(
            """
            INSERT INTO export_log
                (layout, at, out, kind, base, generation, records, paths, changed, removed,
                 change_seq, inputs, objects)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, (SELECT seq FROM change_clock), ?, ?)
            """,
            [
                layout, .text(export.at), .text(export.out), .text(export.kind),
                export.base.map { .integer($0) }, .integer(export.generation),
                .integer(Int64(export.records)), .integer(Int64(export.paths)),
                .integer(Int64(export.changed)), .integer(Int64(export.removed)),
                export.inputs.map { .text($0) }, export.objects.map { .integer(Int64($0)) },
            ])
        for table in ["export_state", "export_objects"] {
            try database.execute(
                """
                DELETE FROM \(table) WHERE layout = ?1 AND generation NOT IN (
                    SELECT generation FROM export_log WHERE layout = ?1 ORDER BY id DESC LIMIT ?2)
                """,
                [layout, .integer(Int64(Self.keptStates))])
        }
        try collectGarbage()
        try ChangeLog.prune(in: database)
        try database.execute(
            """
            INSERT INTO exports (layout, at, out) VALUES (?, ?, ?)
            ON CONFLICT (layout) DO UPDATE SET at = excluded.at, out = excluded.out
            """,
            [layout, .text(export.at), .text(export.out)])
    }

    // MARK: - States

    /// The two tables of a layout's states: its paths and the objects it referenced.
    package enum StateTable: String {
        /// `export_state`: (path, value hash) pairs.
        case paths = "export_state"
        /// `export_objects`: (object path, token) pairs.
        case objects = "export_objects"
    }

    /// Whether state `generation` of `layout` holds any block.
    ///
    /// - Throws: `SQLiteError`.
    package func isStateKept(layout: String, generation: Int64) throws -> Bool {
        try database.scalar(
            "SELECT 1 FROM export_state WHERE layout = ? AND generation = ? LIMIT 1",
            [.text(layout), .integer(generation)]) != nil
    }

    /// The blocks of one state, in order; none for a nil generation.
    ///
    /// - Throws: `SQLiteError`.
    package func blocks(_ table: StateTable, layout: String, generation: Int64?) throws
        -> () throws -> [UInt8]?
    {
        guard let generation else { return { nil } }
        let statement = try database.prepare(
            """
            SELECT b.entries AS entries FROM \(table.rawValue) AS s
            JOIN state_blocks AS b ON b.id = s.block
            WHERE s.layout = ? AND s.generation = ? ORDER BY s.seq
            """)
        try statement.bind([.text(layout), .integer(generation)])
        let entries = try statement.index(of: ExportColumn.entries)
        return {
            guard let row = try statement.next() else { return nil }
            return row.blob(entries) ?? []
        }
    }

    /// The block references of one state, in order; none for a nil generation.
    ///
    /// - Throws: `SQLiteError`.
    package func index(_ table: StateTable, layout: String, generation: Int64?) throws
        -> [StateBlockReference]
    {
        guard let generation else { return [] }
        return try database.query(
            """
            SELECT first, block FROM \(table.rawValue)
            WHERE layout = ? AND generation = ? ORDER BY seq
            """, [.text(layout), .integer(generation)], Self.reference)
    }

    package static func reference(_ row: Row) throws -> StateBlockReference {
        StateBlockReference(
            first: try row.blob(ExportColumn.first) ?? [],
            block: try row.int64(ExportColumn.block) ?? 0)
    }

    /// Stores block references as state `generation` of `layout`, numbered by the caller.
    ///
    /// - Throws: `SQLiteError`.
    package func indexWriter(_ table: StateTable, layout: String, generation: Int64) throws
        -> (_ seq: Int64, _ reference: StateBlockReference) throws -> Void
    {
        let insert = try database.prepare(
            """
            INSERT INTO \(table.rawValue) (layout, generation, seq, first, block)
            VALUES (?, ?, ?, ?, ?)
            """)
        return { seq, reference in
            try insert.run([
                .text(layout), .integer(generation), .integer(seq), .blob(reference.first),
                .integer(reference.block),
            ])
        }
    }

    /// Stores blocks as state `generation` of `layout`, each in `state_blocks` and referred
    /// to with its first path.
    ///
    /// - Throws: `SQLiteError`.
    package func blockWriter(_ table: StateTable, layout: String, generation: Int64) throws
        -> (_ seq: Int64, _ block: [UInt8]) throws -> Void
    {
        let reference = try indexWriter(table, layout: layout, generation: generation)
        return { [self] seq, block in
            let id = try insertBlock(block)
            try reference(
                seq, StateBlockReference(first: StateBlocks.firstPath(of: block), block: id))
        }
    }

    /// Makes state `generation` of `layout`'s objects refer to the blocks of generation
    /// `base`'s: the same objects, stored once.
    ///
    /// - Throws: `SQLiteError`.
    package func shareObjects(layout: String, from base: Int64, to generation: Int64) throws {
        try database.execute(
            """
            INSERT INTO export_objects (layout, generation, seq, first, block)
            SELECT layout, ?, seq, first, block FROM export_objects
            WHERE layout = ? AND generation = ?
            """, [.integer(generation), .text(layout), .integer(base)])
    }

    /// The latest generation whose objects `layout` recorded.
    ///
    /// - Throws: `SQLiteError`.
    package func latestObjectGeneration(layout: String) throws -> Int64? {
        try database.scalar(
            "SELECT max(generation) FROM export_objects WHERE layout = ?", [.text(layout)])?
            .int64
    }

    /// Every other layout with recorded objects, with its latest such generation.
    ///
    /// - Throws: `SQLiteError`.
    package func latestObjectGenerations(besides layout: String) throws
        -> [(layout: String, generation: Int64)]
    {
        try database.query(
            """
            SELECT layout, max(generation) AS generation FROM export_objects WHERE layout <> ?
            GROUP BY layout
            """, [.text(layout)]
        ) {
            (
                layout: try $0.text(ExportColumn.layout) ?? "",
                generation: try $0.int64(ExportColumn.generation) ?? 0
            )
        }
    }

    // MARK: - State blocks

    /// Stores a block; returns its id.
    ///
    /// - Throws: `SQLiteError`.
    package func insertBlock(_ entries: [UInt8]) throws -> Int64 {
        try database.execute("INSERT INTO state_blocks (entries) VALUES (?)", [.blob(entries)])
        return database.lastInsertRowID
    }

    /// Block `id`'s entries; nil when there is no such block.
    ///
    /// - Throws: `SQLiteError`.
    package func block(_ id: Int64) throws -> [UInt8]? {
        try database.query(
            "SELECT entries FROM state_blocks WHERE id = ?", [.integer(id)]
        ) { try $0.blob(ExportColumn.entries) ?? [] }.first
    }

    /// Reads blocks by id with one statement, for reading many: empty for an unknown id.
    ///
    /// - Throws: `SQLiteError`.
    package func blockReader() throws -> (_ id: Int64) throws -> [UInt8] {
        let read = try database.prepare("SELECT entries FROM state_blocks WHERE id = ?")
        let entries = try read.index(of: ExportColumn.entries)
        return { id in
            try read.bind([.integer(id)])
            defer { read.reset() }
            return try read.next()?.blob(entries) ?? []
        }
    }

    /// Deletes the blocks no state refers to any more. A few thousand ids at a million
    /// records: cheap enough to run after every change of states.
    ///
    /// - Throws: `SQLiteError`.
    func collectGarbage() throws {
        try database.execute(
            """
            DELETE FROM state_blocks WHERE id NOT IN (
                SELECT block FROM export_state UNION SELECT block FROM export_objects
                UNION SELECT block FROM publish_state)
            """)
    }

    // MARK: - What exports read beside their state

    /// A read-only connection to the same file whose snapshot is fixed now: taken inside
    /// the export's write transaction, it sees exactly the rows `database` sees, for a
    /// stream that reads on a thread of its own.
    ///
    /// - Throws: `SQLiteError`.
    package func snapshot() throws -> Database {
        let reader = try Database(
            path: database.path, mode: database.mode == .immutable ? .immutable : .readOnly)
        try reader.execute("BEGIN")
        _ = try reader.scalar("SELECT count(*) FROM sqlite_master")
        return reader
    }

    /// Ends the read transaction of a `snapshot()`, so its connection sees no fixed
    /// snapshot any more and can close.
    package static func endSnapshot(_ reader: Database) {
        try? reader.execute("COMMIT")
    }

    /// The images that could not be rendered, by owner key, for the records of `kind`.
    ///
    /// - Throws: `SQLiteError`.
    package func renditionFailures(of kind: RenditionOwner) throws
        -> [String: (source: String, reason: String)]
    {
        var failures: [String: (source: String, reason: String)] = [:]
        _ = try database.query(
            "SELECT owner_key, source, reason FROM rendition_failures WHERE owner_kind = ?",
            [.text(kind.rawValue)]
        ) { row in
            failures[try row.text(ExportColumn.ownerKey) ?? ""] = (
                try row.text(ExportColumn.source) ?? "", try row.text(ExportColumn.reason) ?? ""
            )
        }
        return failures
    }

    /// The user of each post of `ids` that has one, by id.
    ///
    /// - Throws: `SQLiteError`.
    package func postUsers(_ ids: [String]) throws -> [String: String] {
        var users: [String: String] = [:]
        let lookup = try database.prepare("SELECT user FROM posts WHERE id = ?")
        let user = try lookup.index(of: ExportColumn.user)
        for id in ids {
            try lookup.bind([.text(id)])
            if let found = try lookup.next()?.text(user) { users[id] = found }
            lookup.reset()
        }
        return users
    }

    /// The extra column names each treasure file was last read with (a JSON array per
    /// file, in file order), of the files some treasure still comes from.
    ///
    /// - Throws: `SQLiteError`.
    package func recordedExtraColumns() throws -> [String] {
        try database.query(
            """
            SELECT s.columns AS columns FROM sources AS s
            WHERE s.columns IS NOT NULL AND EXISTS (SELECT 1 FROM treasures WHERE source = s.id)
            ORDER BY s.id
            """
        ) { try $0.text(ExportColumn.columns) ?? "" }
    }

    /// Whether any treasure has extra columns from a file whose columns were never
    /// recorded.
    ///
    /// - Throws: `SQLiteError`.
    package func hasUnrecordedExtraColumns() throws -> Bool {
        let count =
            try database.scalar(
                """
                SELECT count(*) FROM treasures AS t LEFT JOIN sources AS s ON s.id = t.source
                WHERE s.columns IS NULL AND t.extra IS NOT NULL
                """)?.int64 ?? 0
        return count > 0
    }

    /// The extra column names of the treasures from files whose columns were never
    /// recorded, read from the treasures themselves.
    ///
    /// - Throws: `SQLiteError`.
    package func unrecordedExtraColumns() throws -> [String] {
        try database.query(
            """
            SELECT DISTINCT j.key AS name FROM treasures AS t
            LEFT JOIN sources AS s ON s.id = t.source, json_each(t.extra) AS j
            WHERE s.columns IS NULL AND t.extra IS NOT NULL
            """
        ) { try $0.text(ExportColumn.name) ?? "" }
    }

    /// The objects `layout` exported now references: columns `path` and `token` (NULL
    /// when tokens are off; the tokens of `bucket` when given, a publish target's, else
    /// those of exports without a target), sorted by path; a path several renditions share
    /// comes once per rendition, in consecutive rows. With `changedSince`, only the objects
    /// of the records changed after that clock value.
    ///
    /// A statement rather than values: a plan reads a million objects in place. Resolve
    /// the two columns with `column(_:)` before stepping.
    ///
    /// - Throws: `SQLiteError`.
    package func objects(
        of kind: RecordKind, renditionNames: [String], tokens: Bool, changedSince: Int64? = nil,
        bucket: String? = nil
    ) throws -> Statement {
        let statement = try database.prepare(
            Self.objectsSQL(
                of: kind, renditionNames: renditionNames, tokens: tokens,
                changedSince: changedSince != nil, fromBucket: bucket != nil))
        var values: [SQLiteValue?] = []
        if let changedSince { values.append(.integer(changedSince)) }
        if tokens, let bucket { values.append(.text(bucket)) }
        if !values.isEmpty { try statement.bind(values) }
        return statement
    }

    /// Every download token of exports without a target (`storage_tokens`): columns path
    /// and token, in path order (BINARY), for a reader that walks them beside `objects`
    /// read without tokens: one step a row where a lookup a row costs a B-tree search.
    ///
    /// - Throws: `SQLiteError`.
    package func tokensInPathOrder() throws -> Statement {
        try database.prepare(StorageTokenSQL.inPathOrder)
    }

    /// The objects of the treasures' renditions named `renditionNames`, whether or not
    /// each is of its treasure's image now: columns path, owner (the treasure's key) and
    /// source, in path order. `objects` for treasures, with the check that the source is
    /// still the treasure's image left to the reader, which walks `treasureImages()`
    /// beside it instead of searching treasures once a row.
    ///
    /// - Throws: `SQLiteError`.
    package func treasureRenditionObjects(renditionNames: [String]) throws -> Statement {
        let names = renditionNames.indices.map { "?\($0 + 1)" }.joined(separator: ", ")
        let statement = try database.prepare(
            """
            SELECT r.path AS path, r.owner_key AS owner, r.source AS source
            FROM renditions AS r INDEXED BY renditions_path
            WHERE r.owner_kind = 'treasure' AND r.name IN (\(names))
            ORDER BY r.path
            """)
        try statement.bind(renditionNames.map { .text($0) })
        return statement
    }

    /// Every treasure's image: columns key and image, in key order (BINARY).
    ///
    /// - Throws: `SQLiteError`.
    package func treasureImages() throws -> Statement {
        try database.prepare("SELECT key, image FROM treasures ORDER BY key")
    }

    /// One treasure's image: columns key and image, for the key bound as parameter 1.
    ///
    /// - Throws: `SQLiteError`.
    package func treasureImage() throws -> Statement {
        try database.prepare("SELECT key, image FROM treasures WHERE key = ?1")
    }

    static func objectsSQL(
        of kind: RecordKind, renditionNames: [String], tokens: Bool, changedSince: Bool,
        fromBucket: Bool = false
    ) -> String {
        let names = renditionNames.map {
            "'" + $0.replacingOccurrences(of: "'", with: "''") + "'"
        }
        let owner =
            kind == .treasure
            ? "JOIN treasures AS o ON r.owner_kind = 'treasure' AND o.key = r.owner_key"
                + " AND o.image = r.source"
            : "JOIN posts AS o ON r.owner_kind = 'post' AND o.id = r.owner_key"
                + " AND o.photo = r.source AND o.status = 'approved'"
        let token = tokens ? "t.token" : "NULL"
        // The bucket follows the clock value when both are bound.
        let bucketParameter = changedSince ? "?2" : "?1"
        let join =
            !tokens
            ? ""
            : fromBucket
                ? "LEFT JOIN bucket_tokens AS t ON t.bucket = \(bucketParameter) AND t.path = r.path"
                : "LEFT JOIN storage_tokens AS t ON t.path = r.path"
        // Read in the order of the path index: nothing is sorted (DISTINCT and ORDER BY
        // over the table built two temporary B-trees of every object).
        if changedSince {
            // Only the records changed after clock value ?1, looked up one by one.
            return """
                SELECT r.path AS path, \(token) AS token FROM (
                    SELECT key AS changed FROM record_changes
                    WHERE kind = '\(kind.rawValue)' AND seq > ?1 AND key <> '') AS c
                CROSS JOIN renditions AS r ON r.owner_kind = '\(kind.rawValue)' AND r.owner_key = c.changed
                \(owner) \(join)
                WHERE r.name IN (\(names.joined(separator: ", ")))
                ORDER BY r.path
                """
        }
        return """
            SELECT r.path AS path, \(token) AS token
            FROM renditions AS r INDEXED BY renditions_path \(owner) \(join)
            WHERE r.name IN (\(names.joined(separator: ", ")))
            ORDER BY r.path
            """
    }
}
