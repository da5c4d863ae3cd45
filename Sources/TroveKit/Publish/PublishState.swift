import Foundation
import TroveSQLite
import TroveStore

// What a target holds, in the two compact forms exports already keep: its database paths
// with a 64-bit hash of each value (as `export --update` compares), and its Storage
// objects with their tokens (as the Storage plan compares), each front-coded in blocks
// in path order. `planned` 0 is what the target holds; 1 what it holds once the publish
// in progress completes.

enum PublishState {
    /// The database paths a target holds (or will hold), with their value hashes.
    ///
    /// - Throws: `SQLiteError`, `ExportError.damagedState`.
    static func paths(target: String, planned: Bool, database: Database) throws
        -> ExportStateReader
    {
        try ExportStateReader(
            blocks: PublishStore(database).blocks(.paths, target: target, planned: planned))
    }

    /// The objects a target holds (or will hold), with their tokens.
    ///
    /// - Throws: `SQLiteError`, `StoragePlanError.damaged`.
    static func objects(target: String, planned: Bool, database: Database) throws
        -> PlannedObjectReader
    {
        try PlannedObjectReader(
            blocks: PublishStore(database).blocks(.objects, target: target, planned: planned))
    }
}

/// A publish's render of the tree: compared with what the target holds rather than with
/// the layout's last export, with URLs naming the target's bucket, and its multi-path
/// update handed over in parts rather than written to a file.
struct PublishRender {
    var old: ExportStateReader
    package var new: ExportStateWriter
    var bucket: String
    /// When only the records changed since the target's last publish are rendered: the
    /// base, and where the new state's block references go.
    var incremental: IncrementalBase?
    var storeIndex: (Int64, StateBlockReference) throws -> Void = { _, _ in }
    /// Receives each part of the update, in order.
    package var body: ([UInt8]) throws -> Void
    /// For `publish --refresh`: what the target's database really holds, which decides
    /// what is sent instead of the record alone.
    var live: LiveComparison?
    /// Records left out of this publish: not rendered, and what the target holds of them
    /// kept as it is.
    var heldBack: HeldBack?
}
