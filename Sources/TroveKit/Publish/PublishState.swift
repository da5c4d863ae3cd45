import Foundation
import TroveSQLite

// What a target holds, in the two compact forms exports already keep: its database paths
// with a 64-bit hash of each value (as `export --update` compares), and its Storage
// objects with their tokens (as the Storage plan compares), each front-coded in blocks
// in path order. `planned` 0 is what the target holds; 1 what it holds once the publish
// in progress completes.

enum PublishState {
    enum Kind: String {
        case paths
        case objects
    }

    /// The blocks of one kind of a target's state, in order.
    ///
    /// - Throws: `SQLiteError`.
    static func blocks(
        _ kind: Kind, target: String, planned: Bool, database: Database
    ) throws -> () throws -> [UInt8]? {
        let statement = try database.prepare(
            """
            SELECT b.entries FROM publish_state AS s JOIN state_blocks AS b ON b.id = s.block
            WHERE s.target = ? AND s.kind = ? AND s.planned = ? ORDER BY s.seq
            """)
        try statement.bind([.text(target), .text(kind.rawValue), .integer(planned ? 1 : 0)])
        return {
            guard let row = try statement.next() else { return nil }
            return row.blob(0) ?? []
        }
    }

    /// The database paths a target holds (or will hold), with their value hashes.
    ///
    /// - Throws: `SQLiteError`, `ExportError.damagedState`.
    static func paths(target: String, planned: Bool, database: Database) throws
        -> ExportStateReader
    {
        try ExportStateReader(
            blocks: blocks(.paths, target: target, planned: planned, database: database))
    }

    /// The objects a target holds (or will hold), with their tokens.
    ///
    /// - Throws: `SQLiteError`, `StoragePlanError.damaged`.
    static func objects(target: String, planned: Bool, database: Database) throws
        -> PlannedObjectReader
    {
        try PlannedObjectReader(
            blocks: blocks(.objects, target: target, planned: planned, database: database))
    }

    /// Stores blocks of one kind as the target's planned state, numbered in order.
    ///
    /// - Throws: `SQLiteError`.
    static func store(_ kind: Kind, target: String, database: Database) throws
        -> (Int64, [UInt8]) throws -> Void
    {
        let insert = try database.prepare(
            """
            INSERT INTO publish_state (target, kind, planned, seq, first, block)
            VALUES (?, ?, 1, ?, ?, ?)
            """)
        return { seq, block in
            let id = try StateBlocks.insert(block, database: database)
            try insert.run([
                .text(target), .text(kind.rawValue), .integer(seq),
                .blob(StateBlocks.firstPath(of: block)), .integer(id),
            ])
        }
    }

    /// The block references of one kind of a target's state, in order.
    ///
    /// - Throws: `SQLiteError`.
    static func index(_ kind: Kind, target: String, planned: Bool, database: Database) throws
        -> [StateBlockReference]
    {
        try database.query(
            """
            SELECT first, block FROM publish_state WHERE target = ? AND kind = ? AND planned = ?
            ORDER BY seq
            """, [.text(target), .text(kind.rawValue), .integer(planned ? 1 : 0)]
        ) { StateBlockReference(first: $0.blob(0) ?? [], block: $0.int64(1) ?? 0) }
    }

    /// Stores block references of one kind as the target's planned state.
    ///
    /// - Throws: `SQLiteError`.
    static func storeIndex(_ kind: Kind, target: String, database: Database) throws
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

    /// Makes the planned state what the target holds, with the clock value, inputs and
    /// counts of the plan that made it.
    ///
    /// - Throws: `SQLiteError`.
    static func promotePlanned(target: String, database: Database) throws {
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
        try StateBlocks.collectGarbage(database: database)
        try ChangeLog.prune(in: database)
    }
}

/// A publish's render of the tree: compared with what the target holds rather than with
/// the layout's last export, with URLs naming the target's bucket, and its multi-path
/// update handed over in parts rather than written to a file.
struct PublishRender {
    var old: ExportStateReader
    var new: ExportStateWriter
    var bucket: String
    /// When only the records changed since the target's last publish are rendered: the
    /// base, and where the new state's block references go.
    var incremental: IncrementalBase?
    var storeIndex: (Int64, StateBlockReference) throws -> Void = { _, _ in }
    /// Receives each part of the update, in order.
    var body: ([UInt8]) throws -> Void
}
