import TroveBase
import TroveSQLite

// MARK: - Sources

extension TreasureStore {
    /// The `sources` row of a file, created when new. `path` identifies the file (its
    /// `SourceIdentity`, or `<stdin>`); `name` is how messages name it.
    ///
    /// - Returns: the id, and whether the workspace knew the file before.
    /// - Throws: `SQLiteError`.
    package func source(path: String, name: String) throws -> (id: Int64, known: Bool) {
        if let id = try knownSource(path: path, name: name) { return (id, true) }
        try database.execute(
            "INSERT INTO sources (path, name) VALUES (?, ?)", [.text(path), .text(name)])
        return (database.lastInsertRowID, false)
    }

    /// The id of the file `path` identifies, when the workspace knows it (its name becomes
    /// `name`); nil otherwise.
    ///
    /// - Throws: `SQLiteError`.
    package func knownSource(path: String, name: String) throws -> Int64? {
        if let id = try database.scalar("SELECT id FROM sources WHERE path = ?", [.text(path)])?
            .int64
        {
            try database.execute(
                "UPDATE sources SET name = ? WHERE id = ?", [.text(name), .integer(id)])
            return id
        }
        // A workspace from before sources had names stored the path as typed.
        if let id = try database.scalar(
            "SELECT id FROM sources WHERE path = ? AND name IS NULL", [.text(name)])?.int64
        {
            try database.execute(
                "UPDATE sources SET path = ?, name = ? WHERE id = ?",
                [.text(path), .text(name), .integer(id)])
            return id
        }
        return nil
    }

    /// The sources whose recorded path ends in the file name `fileName` and that some
    /// treasure still comes from: the candidates for a file the workspace knew elsewhere.
    ///
    /// - Throws: `SQLiteError`.
    package func sources(named fileName: String) throws -> [(id: Int64, path: String)] {
        let named = try database.query("SELECT id, path FROM sources ORDER BY path") {
            (id: try $0.int64(TreasureColumn.id) ?? 0, path: try $0.text(TreasureColumn.path) ?? "")
        }.filter { LexicalPath.fileName($0.path) == fileName }
        // Only those of that name: `treasures` has no index on its source.
        return try named.filter {
            try database.scalar(
                "SELECT 1 FROM treasures WHERE source = ? LIMIT 1", [.integer($0.id)]) != nil
        }
    }

    /// Records that source `id` is now the file `path` identifies, named `name`.
    ///
    /// - Throws: `SQLiteError`.
    package func moveSource(_ id: Int64, to path: String, name: String) throws {
        try database.execute(
            "UPDATE sources SET path = ?, name = ? WHERE id = ?",
            [.text(path), .text(name), .integer(id)])
    }

    /// The columns the file `source` was last read with, or nil when none are stored.
    ///
    /// - Throws: `SQLiteError`.
    package func columns(ofSource source: Int64) throws -> [String]? {
        guard
            let stored = try database.scalar(
                "SELECT columns FROM sources WHERE id = ?", [.integer(source)])?.string
        else { return nil }
        var parser = JSONParser(Array(stored.utf8))
        guard case .array(let values)? = try? parser.parseValue() else { return nil }
        return values.compactMap {
            if case .string(let name) = $0 { return name }
            return nil
        }
    }

    /// Stores the columns the file `source` was read with, and whether its commas are
    /// decimal commas.
    ///
    /// - Throws: `SQLiteError`.
    package func setColumns(_ columns: [String], decimalComma: Bool, ofSource source: Int64) throws
    {
        try database.execute(
            "UPDATE sources SET columns = ?, decimal_comma = ? WHERE id = ?",
            [
                .text(JSONValue.array(columns.map { .string($0) }).jsonText),
                .integer(decimalComma ? 1 : 0), .integer(source),
            ])
    }

    /// The name every source goes by in listings and findings, by id: its path relative
    /// to the workspace's folder (`SourceIdentity`), the same wherever the project is.
    ///
    /// - Throws: `SQLiteError`.
    package func sourceNames() throws -> [Int64: String?] {
        Dictionary(
            try database.query("SELECT id, path AS name FROM sources") {
                (try $0.int64(TreasureColumn.id) ?? 0, try $0.text(TreasureColumn.name))
            }, uniquingKeysWith: { first, _ in first })
    }

    // MARK: - The treasures of a source

    /// The key, name, position and image of every treasure last imported from `source`,
    /// oldest line first (rows gone from the file last), then by key.
    ///
    /// - Throws: `SQLiteError`, or what `body` throws.
    package func forEachTreasureInLineOrder(
        ofSource source: Int64, _ body: (Treasure) throws -> Void
    )
        throws
    {
        let scan = try database.prepare(
            """
            SELECT key, name, lat, lon, image FROM treasures WHERE source = ?
            ORDER BY source_line IS NULL, source_line, key
            """)
        try scan.bind([.integer(source)])
        let key = try scan.index(of: TreasureColumn.key)
        let name = try scan.index(of: TreasureColumn.name)
        let latitude = try scan.index(of: TreasureColumn.lat)
        let longitude = try scan.index(of: TreasureColumn.lon)
        let image = try scan.index(of: TreasureColumn.image)
        while let row = try scan.next() {
            try body(
                Treasure(
                    key: row.text(key) ?? "", name: row.text(name) ?? "",
                    latitude: row.double(latitude) ?? .nan,
                    longitude: row.double(longitude) ?? .nan, image: row.text(image)))
        }
    }

    /// The key, position and image of each treasure of `source`, in key order, but for
    /// those whose key `skip` accepts (read in place: no text is made of them).
    ///
    /// - Throws: `SQLiteError`, or what `body` throws.
    package func forEachTreasure(
        ofSource source: Int64, skipping skip: (UnsafeBufferPointer<UInt8>) -> Bool,
        _ body: (Treasure) throws -> Void
    ) throws {
        let scan = try database.prepare(
            "SELECT key, lat, lon, image FROM treasures WHERE source = ? ORDER BY key")
        try scan.bind([.integer(source)])
        let key = try scan.index(of: TreasureColumn.key)
        let latitude = try scan.index(of: TreasureColumn.lat)
        let longitude = try scan.index(of: TreasureColumn.lon)
        let image = try scan.index(of: TreasureColumn.image)
        while let row = try scan.next() {
            if row.withUTF8(key, skip) ?? false { continue }
            try body(
                Treasure(
                    key: row.text(key) ?? "", name: "", latitude: row.double(latitude) ?? .nan,
                    longitude: row.double(longitude) ?? .nan, image: row.text(image)))
        }
    }

    // MARK: - Keys new to an import

    /// Notes, until ``stopNotingNewKeys()``, the key of every treasure inserted.
    ///
    /// - Throws: `SQLiteError`.
    package func startNotingNewKeys() throws {
        try database.execute(
            """
            CREATE TEMP TABLE import_new_keys (key TEXT PRIMARY KEY NOT NULL) WITHOUT ROWID;
            CREATE TEMP TRIGGER import_new_key AFTER INSERT ON main.treasures
            BEGIN INSERT OR IGNORE INTO import_new_keys (key) VALUES (NEW.key); END;
            """)
    }

    /// Stops noting new keys and forgets them.
    ///
    /// - Throws: `SQLiteError`.
    package func stopNotingNewKeys() throws {
        try database.execute("DROP TRIGGER temp.import_new_key; DROP TABLE temp.import_new_keys;")
    }

    /// The treasures inserted since ``startNotingNewKeys()``, in key order: their key,
    /// position, image and line, with the id of their source.
    ///
    /// - Throws: `SQLiteError`, or what `body` throws.
    package func forEachNewlyKeyed(_ body: (Treasure, _ source: Int64?) throws -> Void) throws {
        // CROSS JOIN keeps the few new keys the outer loop: without statistics the planner
        // would scan every treasure and look each up among them.
        let statement = try database.prepare(
            """
            SELECT t.key, t.source, t.lat, t.lon, t.image, t.source_line
            FROM temp.import_new_keys AS n CROSS JOIN treasures AS t ON t.key = n.key
            ORDER BY n.key
            """)
        while let row = try statement.next() {
            let treasure = Treasure(
                key: try row.text(TreasureColumn.key) ?? "", name: "",
                latitude: try row.double(TreasureColumn.lat) ?? .nan,
                longitude: try row.double(TreasureColumn.lon) ?? .nan,
                image: try row.text(TreasureColumn.image),
                source: SourceLine.location(
                    file: nil, stored: try row.int64(TreasureColumn.sourceLine))
                    ?? Diagnostic.Location())
            try body(treasure, try row.int64(TreasureColumn.source))
        }
    }

    // MARK: - Counting

    /// Whether there are no treasures, from the first row alone.
    ///
    /// - Throws: `SQLiteError`.
    package func isEmpty() throws -> Bool {
        try database.scalar("SELECT 1 FROM treasures LIMIT 1") == nil
    }

    /// How many treasures there are, as the status counters keep it (no scan).
    ///
    /// - Throws: `SQLiteError`.
    package func counted() throws -> Int {
        try StatusCounters.read(in: database).treasures
    }

    /// How many treasures there are, by a scan of the table.
    ///
    /// - Throws: `SQLiteError`.
    package func count() throws -> Int {
        Int(try database.scalar("SELECT count(*) AS count FROM treasures")?.int64 ?? 0)
    }
}

// MARK: - Writing packed treasures

/// The statements `import treasures` writes its rows with, prepared once for the whole
/// import and bound in place from a batch's packed text.
package final class TreasureRowWriter {
    private let database: Database
    private let upsert: Statement
    private let insert: Statement
    /// `insert` of `Self.chunk` rows at once: a statement's run has a fixed cost (its
    /// cursor, the VM's start and end) that one row a run paid every time.
    private let insertChunk: Statement
    package static let chunk = 32
    private let relocate: Statement

    /// - Throws: `SQLiteError`.
    package init(_ store: TreasureStore) throws {
        database = store.database
        // The WHERE clause makes an identical row a no-op, so `changes` tells us whether
        // anything was written. A moved treasure's geohash turns stale until `trove geohash`.
        upsert = try database.prepare(
            """
            INSERT INTO treasures
                (key, name, lat, lon, description, image, extra, source, source_line)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
            ON CONFLICT (key) DO UPDATE SET
                name = excluded.name, lat = excluded.lat, lon = excluded.lon,
                description = excluded.description, image = excluded.image,
                extra = excluded.extra, source = excluded.source,
                source_line = excluded.source_line
            WHERE (treasures.name, treasures.lat, treasures.lon, treasures.description,
                   treasures.image, treasures.extra)
               IS NOT (excluded.name, excluded.lat, excluded.lon, excluded.description,
                       excluded.image, excluded.extra)
            """)
        // Into a table that was empty, a key's first use in this import is new for
        // certain: a plain insert skips the conflict handling of the upsert above.
        insert = try database.prepare(
            """
            INSERT INTO treasures
                (key, name, lat, lon, description, image, extra, source, source_line)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
            """)
        let rows = (0..<Self.chunk).map { row in
            let base = 1 + row * 8
            let fields = (1...7).map { "?\(base + $0)" }.joined(separator: ", ")
            return "(\(fields), ?1, ?\(base + 8))"
        }
        insertChunk = try database.prepare(
            """
            INSERT INTO treasures
                (key, name, lat, lon, description, image, extra, source, source_line)
            VALUES \(rows.joined(separator: ", "))
            """)
        // An unchanged row may still sit on another line or in another file now: that is
        // not an update of the treasure, but its location must stay true.
        relocate = try database.prepare(
            """
            UPDATE treasures SET source = ?8, source_line = ?9
            WHERE key = ?1 AND (source, source_line) IS NOT (?8, ?9)
            """)
    }

    /// Points the rows written after this at source `id` (nil: none).
    ///
    /// - Throws: `SQLiteError`.
    package func setSource(_ id: Int64?) throws {
        for statement in [upsert, insert, relocate] { try statement.bind(int: id, at: 8) }
        try insertChunk.bind(int: id, at: 1)
    }

    /// Inserts `rows`, whose keys no treasure has, `chunk` at a time.
    ///
    /// - Throws: `SQLiteError`.
    package func insert(_ rows: ArraySlice<PackedTreasures.Row>, bytes: UnsafeRawBufferPointer)
        throws
    {
        var start = rows.startIndex
        while rows.endIndex - start >= Self.chunk {
            for offset in 0..<Self.chunk {
                try bind(
                    rows[start + offset], after: Int32(1 + offset * 8), in: insertChunk,
                    bytes: bytes)
            }
            try insertChunk.step()
            start += Self.chunk
        }
        for row in rows[start...] {
            try bind(row, after: 0, in: insert, bytes: bytes)
            try insert.step()
        }
    }

    /// Inserts `row`, or updates the treasure with its key when it differs.
    ///
    /// - Returns: whether anything was written.
    /// - Throws: `SQLiteError`.
    package func upsert(_ row: PackedTreasures.Row, bytes: UnsafeRawBufferPointer) throws -> Bool {
        try bind(row, after: 0, in: upsert, bytes: bytes)
        try upsert.step()
        return database.changes > 0
    }

    /// Moves the treasure of `row`'s key to `row`'s line (and the current source).
    ///
    /// - Throws: `SQLiteError`.
    package func relocate(_ row: PackedTreasures.Row, bytes: UnsafeRawBufferPointer) throws {
        try bind(row.key, at: 1, in: relocate, bytes: bytes)
        try relocate.bind(int: row.line, at: 9)
        try relocate.step()
    }

    private func bind(
        _ slice: PackedTreasures.Slice, at index: Int32, in statement: Statement,
        bytes: UnsafeRawBufferPointer
    ) throws {
        if slice.count < 0 {
            try statement.bindNull(at: index)
        } else if slice.count == 0 {
            try statement.bind(text: "", at: index)
        } else {
            try statement.bindText(
                borrowing: bytes.baseAddress! + Int(slice.start), count: Int(slice.count),
                at: index)
        }
    }

    /// Binds a row's fields to the parameters after `base`, in the order of `insertChunk`
    /// (`upsert` and `insert` take the source at 8, the line at 9).
    private func bind(
        _ row: PackedTreasures.Row, after base: Int32, in statement: Statement,
        bytes: UnsafeRawBufferPointer
    ) throws {
        try bind(row.key, at: base + 1, in: statement, bytes: bytes)
        try bind(row.name, at: base + 2, in: statement, bytes: bytes)
        try statement.bind(double: row.latitude, at: base + 3)
        try statement.bind(double: row.longitude, at: base + 4)
        try bind(row.description, at: base + 5, in: statement, bytes: bytes)
        try bind(row.image, at: base + 6, in: statement, bytes: bytes)
        try bind(row.extra, at: base + 7, in: statement, bytes: bytes)
        try statement.bind(int: row.line, at: statement === insertChunk ? base + 8 : 9)
    }
}
