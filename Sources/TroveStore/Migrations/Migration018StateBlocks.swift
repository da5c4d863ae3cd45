import TroveSQLite

extension Schema {
    /// The front-coded blocks of exports' and publish targets' states move into a table of
    /// their own, which states refer to by id with each block's first path beside it: an
    /// `export --update` or publish that changes a few records writes the few blocks they
    /// fall in and refers to the others, instead of copying megabytes. Frozen: it decodes
    /// the first path itself rather than calling the live reader.
    static let stateBlocks: @Sendable (Database) throws -> Void = { database in
        try database.execute(
            """
            -- Blocks of (path, payload) entries in path order, front-coded; shared by every
            -- state that holds the same entries. A block no state refers to is deleted.
            CREATE TABLE state_blocks (
                id      INTEGER PRIMARY KEY,
                entries BLOB NOT NULL
            );
            ALTER TABLE export_state RENAME TO export_state_inline;
            CREATE TABLE export_state (
                layout     TEXT NOT NULL,
                generation INTEGER NOT NULL,
                seq        INTEGER NOT NULL,     -- block order
                first      BLOB NOT NULL,        -- the block's first path
                block      INTEGER NOT NULL,     -- state_blocks.id
                PRIMARY KEY (layout, generation, seq)
            ) WITHOUT ROWID;
            ALTER TABLE publish_state RENAME TO publish_state_inline;
            CREATE TABLE publish_state (
                target  TEXT NOT NULL REFERENCES publish_targets (name) ON DELETE CASCADE,
                kind    TEXT NOT NULL CHECK (kind IN ('paths', 'objects')),
                planned INTEGER NOT NULL CHECK (planned IN (0, 1)),
                seq     INTEGER NOT NULL,
                first   BLOB NOT NULL,
                block   INTEGER NOT NULL,
                PRIMARY KEY (target, kind, planned, seq)
            ) WITHOUT ROWID;
            """)
        let block = try database.prepare("INSERT INTO state_blocks (entries) VALUES (?)")
        let exportRow = try database.prepare(
            "INSERT INTO export_state (layout, generation, seq, first, block) VALUES (?, ?, ?, ?, ?)"
        )
        let exports = try database.prepare(
            "SELECT layout, generation, seq, entries FROM export_state_inline")
        while let row = try exports.next() {
            let entries = row.blob(3) ?? []
            try block.run([.blob(entries)])
            try exportRow.run([
                row[0], row[1], row[2], .blob(frozenFirstPath(entries)),
                .integer(database.lastInsertRowID),
            ])
        }
        let publishRow = try database.prepare(
            """
            INSERT INTO publish_state (target, kind, planned, seq, first, block)
            VALUES (?, ?, ?, ?, ?, ?)
            """)
        let publishes = try database.prepare(
            "SELECT target, kind, planned, seq, data FROM publish_state_inline")
        while let row = try publishes.next() {
            let entries = row.blob(4) ?? []
            try block.run([.blob(entries)])
            try publishRow.run([
                row[0], row[1], row[2], row[3], .blob(frozenFirstPath(entries)),
                .integer(database.lastInsertRowID),
            ])
        }
        try database.execute(
            """
            DROP TABLE export_state_inline;
            DROP TABLE publish_state_inline;
            """)
    }

    /// A block's first entry is its whole path: the length shared with the one before
    /// (0), the length of the rest, then the rest. Frozen for migrations 018 and 020.
    static func frozenFirstPath(_ entries: [UInt8]) -> [UInt8] {
        var offset = 0
        func varint() -> Int {
            var value = 0
            var shift = 0
            while offset < entries.count, shift < 63 {
                let byte = entries[offset]
                offset += 1
                value |= Int(byte & 0x7F) << shift
                if byte < 0x80 { break }
                shift += 7
            }
            return value
        }
        _ = varint()
        let count = varint()
        return Array(entries[min(offset, entries.count)..<min(offset + count, entries.count)])
    }
}
