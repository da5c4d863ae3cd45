import TroveSQLite

/// The front-coded blocks of exports' and publish targets' states, kept once in
/// `state_blocks` and referred to by id: a state that changes a few entries stores the
/// blocks they fall in and refers to the rest.
enum StateBlocks {
    /// Stores a block; returns its id.
    ///
    /// - Throws: `SQLiteError`.
    static func insert(_ entries: [UInt8], database: Database) throws -> Int64 {
        try database.execute("INSERT INTO state_blocks (entries) VALUES (?)", [.blob(entries)])
        return database.lastInsertRowID
    }

    /// Deletes the blocks no state refers to any more. A few thousand ids at a million
    /// records: cheap enough to run after every change of states.
    ///
    /// - Throws: `SQLiteError`.
    static func collectGarbage(database: Database) throws {
        try database.execute(
            """
            DELETE FROM state_blocks WHERE id NOT IN (
                SELECT block FROM export_state UNION SELECT block FROM export_objects
                UNION SELECT block FROM publish_state)
            """)
    }

    /// The path of a block's first entry, which is stored whole.
    static func firstPath(of entries: [UInt8]) -> [UInt8] {
        var reader = FrontCodedReader(block: entries, damaged: ExportError.damagedState)
        guard (try? reader.advance()) != nil, !reader.isAtEnd else { return [] }
        return reader.path
    }
}
