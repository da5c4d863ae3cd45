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
