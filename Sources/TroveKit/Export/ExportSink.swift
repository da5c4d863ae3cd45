import Foundation
import TroveBase
import TroveStore

/// Where an export's tree goes.
///
/// An `ExportRun` renders the records, merges the templates' entries in path order and
/// compares each with the base the sink names; the sink decides what an entry becomes
/// (a file's tree or update, a publish's requests) and what happens once every record
/// has streamed. `FileExportSink` writes files beside the output; `PublishSink` plans a
/// publish target's requests.
protocol ExportSink {
    /// The bucket image URLs name instead of the configured one; nil for the settings'.
    var bucket: String? { get }
    /// The keys of records not rendered at all.
    var skipped: Set<String> { get }

    /// What the tree is compared with, decided once before the records' queries are made
    /// (an incremental base reads only the records changed since it).
    ///
    /// - Parameter inputs: the fingerprint of the layout and the settings it renders with.
    /// - Throws: `ExportError.unknownBase`, `SQLiteError`.
    mutating func base(inputs: String) throws -> ExportBase

    /// Stages where the entries go, once the streams are made and before any record
    /// streams.
    ///
    /// - Throws: `FileWriteError` naming a folder that cannot take a file, `SQLiteError`.
    mutating func stage(storage: StorageURL, tokens: Bool, problems: ExportProblems) throws

    /// Starts the sink's own work beside the streams.
    func start()

    /// An entry of the tree, in path order, with the base's hash of its path (nil when the
    /// base lacks it).
    ///
    /// - Throws: `ExportError.cannotWrite`, `SQLiteError`.
    mutating func emit(
        path: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, hash: UInt64,
        recorded: UInt64?
    ) throws -> ExportEmitted

    /// A path of the base the tree no longer has, in path order among the entries.
    ///
    /// - Throws: `ExportError.cannotWrite`, `SQLiteError`.
    mutating func remove(path: UnsafeBufferPointer<UInt8>) throws -> ExportRemoval

    /// A path an incremental run sets (with its value) or removes (nil), in path order.
    /// Returns false when the entry does not fit in one update.
    ///
    /// - Throws: `ExportError.cannotWrite`.
    mutating func patch(path: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>?)
        throws -> Bool

    /// Where an incremental run's new state refers to its blocks; nil to record none.
    ///
    /// - Throws: `SQLiteError`.
    func stateIndex() throws -> ExportBase.IndexWriter?

    /// Ends the entries, after the new state is complete, and notes in `summary` what
    /// the sink made.
    ///
    /// - Throws: `ExportError.cannotWrite`, `FileWriteError`, `SQLiteError`,
    ///   `StoragePlanError`.
    mutating func finish(_ summary: inout ExportSummary) throws

    /// Stops the sink's own work early (the run failed).
    func cancel()

    /// Removes every temporary file the sink made.
    func discard()
}

/// What an export's tree is compared with, and where its new state goes.
struct ExportBase {
    /// Records the new state's block reference `seq` (an incremental run's).
    typealias IndexWriter = (_ seq: Int64, _ reference: StateBlockReference) throws -> Void

    /// The base state's paths and hashes, in path order.
    var old: ExportStateReader
    /// Where the new state goes; nil when the run records none.
    var new: ExportStateWriter?
    /// When only the records changed since the base are rendered: the base.
    var incremental: IncrementalBase?
}

/// What a sink made of one entry.
struct ExportEmitted {
    /// Whether the entry counts as changed from the base.
    var changed: Bool
    /// False when the entry does not fit in one update (nothing was written of it).
    var fits = true
}

/// What a sink made of a path the tree no longer has.
enum ExportRemoval {
    /// Removed: counted, and written as such where the sink writes removals.
    case removed
    /// Already gone from where the sink sends the tree: nothing to remove.
    case alreadyGone
    /// Kept as the base holds it: it stays in the new state.
    case kept
}
