import Foundation
import TroveBase
import TroveStore

/// A publish's sink: the tree compared with what the target holds rather than with the
/// layout's last export, with URLs naming the target's bucket, and its multi-path update
/// handed over in request-sized parts once the render succeeded, rather than written to
/// a file.
struct PublishSink: ExportSink {
    private var old: ExportStateReader
    private var new: ExportStateWriter
    let bucket: String?
    /// When only the records changed since the target's last publish are rendered: the
    /// base, and where the new state's block references go.
    private var incremental: IncrementalBase?
    private let storeIndex: ExportBase.IndexWriter
    /// For `publish --against`: receives every entry, for the comparison with the download,
    /// and nothing is sent from the render itself.
    private let against: RenderedEntries?
    /// Receives each part of the update, in order.
    private let body: ([UInt8]) throws -> Void
    /// For `publish --refresh`: what the target's database really holds, which decides
    /// what is sent instead of the record alone.
    private let live: LiveComparison?
    /// Records left out of this publish: not rendered, and what the target holds of them
    /// kept as it is.
    private let heldBack: HeldBack?
    private let updates: UpdateWriter

    init(
        old: ExportStateReader, new: ExportStateWriter, bucket: String,
        incremental: IncrementalBase?, storeIndex: @escaping ExportBase.IndexWriter,
        against: RenderedEntries?, live: LiveComparison?, heldBack: HeldBack?,
        body: @escaping ([UInt8]) throws -> Void
    ) {
        self.old = old
        self.new = new
        self.bucket = bucket
        self.incremental = incremental
        self.storeIndex = storeIndex
        self.against = against
        self.live = live
        self.heldBack = heldBack
        self.body = body
        // The parts spill to nameless files until the whole render is known to be good.
        let spillFolder = FileManager.default.temporaryDirectory.path
        updates = UpdateWriter(maxBytes: PublishLimits.requestBytes) { _ in
            try OutputFile(spillIn: spillFolder)
        }
    }

    var skipped: Set<String> { heldBack?.keys ?? [] }

    /// A publish compares with what its target holds and records nothing in the export log.
    mutating func base(inputs: String) throws -> ExportBase {
        ExportBase(old: old, new: new, incremental: incremental)
    }

    mutating func stage(storage: StorageURL, tokens: Bool, problems: ExportProblems) throws {}

    func start() {}

    mutating func emit(
        path: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, hash: UInt64,
        recorded: UInt64?
    ) throws -> ExportEmitted {
        var changed = recorded != hash
        if let live {
            // A refresh sends what the database lacks, whatever the record says.
            changed = try live.rendered(path: path, value: value, hash: hash, recorded: recorded)
        }
        if let against {
            // Refused as it would be in a request of its own.
            guard updates.fits(path: path, value: value) else {
                return ExportEmitted(changed: changed, fits: false)
            }
            try against.add(path: path, value: value)
            return ExportEmitted(changed: changed)
        }
        if changed {
            return ExportEmitted(changed: changed, fits: try updates.add(path: path, value: value))
        }
        return ExportEmitted(changed: changed)
    }

    mutating func remove(path: UnsafeBufferPointer<UInt8>) throws -> ExportRemoval {
        if let heldBack, heldBack.owns(path: path) {
            // A record left out of this publish keeps what the target holds of it.
            try live?.kept(path: path)
            return .kept
        }
        // Already gone from the database: nothing to send.
        if let live, try !live.removed(path: path) { return .alreadyGone }
        if against == nil { _ = try updates.add(path: path, value: nil) }
        return .removed
    }

    mutating func patch(path: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>?)
        throws -> Bool
    {
        try updates.add(path: path, value: value)
    }

    func stateIndex() throws -> ExportBase.IndexWriter? { storeIndex }

    mutating func finish(_ summary: inout ExportSummary) throws {
        try live?.finish()
        try updates.finish()
    }

    func cancel() {}

    func discard() {
        for file in updates.files { file.discard() }
    }

    /// Hands the update's parts over, in order (after a render without problems).
    ///
    /// - Throws: `FileWriteError`, what `body` throws.
    func sendUpdates() throws {
        for file in updates.files {
            var part: [UInt8] = []
            try file.drain { part.append(contentsOf: $0) }
            try body(part)
        }
    }
}

/// Every entry a render emitted, in path order, with its value read back from the rendered
/// JSON, for the comparison with a `firebase database:get /` download.
final class RenderedEntries {
    private(set) var entries: [(path: String, value: JSONValue)] = []

    /// - Throws: `PublishError.input` when the value is not JSON (a defect in trove).
    func add(path: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) throws {
        var parser = JSONParser(Array(value))
        guard let parsed = try? parser.parseValue() else {
            throw PublishError.input("a rendered value does not parse (a defect in trove)")
        }
        entries.append((String(decoding: path, as: UTF8.self), parsed))
    }
}
