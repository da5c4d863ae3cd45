import Foundation
import TroveBase
import TroveSQLite
import TroveStore

/// An export's sink for `trove export`: the tree (or the update, or its `--max-bytes`
/// parts) in a file beside the output, or spilled for standard output; the rules
/// fragment; the Storage plan, written on its own thread as the tree streams; and, for a
/// recorded export, the new state that the next `--update` compares with.
struct FileExportSink: ExportSink {
    let database: Database
    let layout: Layout
    let options: ExportOptions
    /// The generation this export records.
    private(set) var newGeneration: Int64 = 0
    /// The recorded export (`export log` id) this one is compared with, if logged.
    private(set) var baseExport: Int64?
    /// The generation this export compares with.
    private(set) var baseGeneration: Int64?
    /// The objects the base's Storage plan referenced, when it is recorded.
    private var baseObjects: Int?
    /// The base when only the records changed since it are rendered.
    private var incremental: IncrementalBase?
    /// Why every record is rendered, when an `--update` could have rendered fewer.
    private var fullRenderReason: String?
    private var tree: TreeWriter?
    private(set) var updates: UpdateWriter?
    private(set) var treeFile: OutputFile?
    /// Every file that goes into place, staged before the records stream so an unwritable
    /// destination fails before the work and before any file changes.
    let outputs = OutputSet()
    private(set) var rulesFile: OutputFile?
    /// The Storage plan, written beside a recorded export as the tree streams.
    private(set) var storagePlan: StoragePlanWriter?

    var bucket: String? { options.target?.bucket }
    var skipped: Set<String> { [] }

    init(database: Database, layout: Layout, options: ExportOptions) {
        self.database = database
        self.layout = layout
        self.options = options
    }

    // MARK: - The base

    mutating func base(inputs: String) throws -> ExportBase {
        let store = ExportStore(database)
        // The latest recorded export, whether or not its state holds any path (an export
        // of nothing keeps no block, but is still what the next one follows).
        let latest = try store.latestGeneration(layout: layout.name)
        var previous = latest
        if let since = options.since {
            previous = try Self.generation(of: since, layout: layout.name, store: store)
            baseExport = since
        } else {
            baseExport = try latest.flatMap {
                try store.lastExportID(layout: layout.name, generation: $0)
            }
        }
        newGeneration = (latest ?? 0) + 1
        baseGeneration = previous
        let old = try ExportStateReader(
            database: database, layout: layout.name, generation: previous)
        if options.update, let previous {
            try decideIncremental(previous: previous, inputs: inputs, store: store)
        }
        var new: ExportStateWriter?
        if options.isRecorded && incremental == nil {
            new = try ExportStateWriter(
                database: database, layout: layout.name, generation: newGeneration)
        }
        return ExportBase(old: old, new: new, incremental: incremental)
    }

    /// Decides whether an `--update` renders only the records changed since generation
    /// `previous`, and notes the count of objects that base's Storage plan referenced.
    ///
    /// - Throws: `SQLiteError`.
    private mutating func decideIncremental(previous: Int64, inputs: String, store: ExportStore)
        throws
    {
        let base = try store.lastExport(layout: layout.name, generation: previous)
        baseObjects = base?.objects
        let name = layout.name
        let decision = try IncrementalBase.decide(
            layout: layout, inputs: inputs, baseSeq: base?.changeSeq, baseInputs: base?.inputs,
            statePaths: base?.paths ?? 0, database: database
        ) {
            try store.index(.paths, layout: name, generation: previous)
        }
        switch decision {
        case .incremental(let base):
            incremental = base
        case .everything(let reason):
            fullRenderReason = reason
        }
    }

    /// The state generation of recorded export `id`, which must be of `layout` and kept.
    ///
    /// - Throws: `ExportError.unknownBase`, `SQLiteError`.
    private static func generation(of id: Int64, layout: String, store: ExportStore) throws
        -> Int64
    {
        guard let export = try store.export(id: id) else {
            throw ExportError.unknownBase(
                "no recorded export \(id); 'trove export log' lists them")
        }
        guard export.layout == layout else {
            throw ExportError.unknownBase(
                "export \(id) was of layout \(export.layout), not \(layout)")
        }
        if try !store.isStateKept(layout: layout, generation: export.generation) {
            let newest = try store.exportCount(layout: layout, after: id)
            // An export that wrote nothing has no state to keep, and needs none.
            if export.paths > 0 {
                throw ExportError.unknownBase(
                    "the state of export \(id) is no longer kept (\(newest) later exports; "
                        + "only the last \(ExportOptions.keptStates) per layout are); "
                        + "run a full export instead")
            }
        }
        return export.generation
    }

    // MARK: - The outputs

    mutating func stage(storage: StorageURL, tokens: Bool, problems: ExportProblems) throws {
        if let rules = options.rules { rulesFile = try outputs.stage(rules) }
        // Output for standard output spills to a nameless file until all is well.
        let spillFolder = FileManager.default.temporaryDirectory.path
        let output = options.output
        // Only `--max-bytes` parts are named by their content's hash.
        let makeFile: (String, Bool) throws -> OutputFile = { path, named in
            output == nil
                ? try OutputFile(spillIn: spillFolder)
                : try OutputFile(path: path, hashesContent: named)
        }
        if options.update || options.maxBytes != nil {
            let parts = options.maxBytes != nil && output != nil
            let partPath =
                parts ? ExportOptions.partPaths(output: output ?? "").part : { _ in output ?? "" }
            updates = UpdateWriter(maxBytes: options.maxBytes) {
                try makeFile(partPath($0), parts)
            }
            // Its files open as they fill: that the folder takes one is checked now, so an
            // unwritable folder is reported by the export's name before any work.
            if let output, !options.dryRun { try OutputFile(path: output).discard() }
        } else {
            let file = try makeFile(output ?? "", false)
            treeFile = file
            tree = TreeWriter(file: file) { path, message in
                problems.add("objects Firebase would store as arrays", "\(path): \(message)")
            }
        }
        // Staged after the export itself, so an unwritable folder is reported by its name.
        if options.isRecorded, let output = options.output, let images = options.images {
            // With the changes alone rendered, the plan lists the changed records' objects;
            // that needs the count of the base's objects, which older records lack.
            let changes = incremental.flatMap { base in
                options.allObjects || baseObjects == nil ? nil : (seq: base.seq, keys: base.keys)
            }
            storagePlan = try StoragePlanWriter(
                database: database, layout: layout, output: output, bucket: storage.bucket,
                tokens: tokens, images: images, outputs: outputs, baseGeneration: baseGeneration,
                baseObjects: baseObjects ?? 0, newGeneration: newGeneration,
                listsAll: options.allObjects, changed: changes)
        }
    }

    func start() {
        storagePlan?.start()
    }

    // MARK: - The entries

    mutating func emit(
        path: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, hash: UInt64,
        recorded: UInt64?
    ) throws -> ExportEmitted {
        let changed = recorded != hash
        try tree?.add(path: path, value: value)
        if let updates, changed || !options.update {
            return ExportEmitted(changed: changed, fits: try updates.add(path: path, value: value))
        }
        return ExportEmitted(changed: changed)
    }

    mutating func remove(path: UnsafeBufferPointer<UInt8>) throws -> ExportRemoval {
        if options.update, let updates { _ = try updates.add(path: path, value: nil) }
        return .removed
    }

    mutating func patch(path: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>?)
        throws -> Bool
    {
        guard let updates else { return true }
        return try updates.add(path: path, value: value)
    }

    func stateIndex() throws -> ExportBase.IndexWriter? {
        guard options.isRecorded else { return nil }
        return try ExportStore(database).indexWriter(
            .paths, layout: layout.name, generation: newGeneration)
    }

    mutating func finish(_ summary: inout ExportSummary) throws {
        try tree?.finish()
        try updates?.finish()
        summary.storagePlan = try storagePlan?.finish()
        summary.fullRenderReason = fullRenderReason
    }

    func cancel() {
        storagePlan?.cancel()
    }
}
