import Foundation
import TroveBase
import TroveSQLite
import TroveStore

/// The state of one export while it streams.
struct ExportRun {
    let database: Database
    let layout: Layout
    let options: ExportOptions
    let problems: ExportProblems
    let newGeneration: Int64
    /// The recorded export (`export log` id) this one is compared with, if logged.
    let baseExport: Int64?
    private var streams: [ParallelStream] = []
    private var oldState: ExportStateReader
    /// Nil when this export is not recorded.
    private var newState: ExportStateWriter?
    private var tree: TreeWriter?
    private(set) var updates: UpdateWriter?
    private(set) var treeFile: OutputFile?
    /// Every file that goes into place, staged before the records stream so an unwritable
    /// destination fails before the work and before any file changes.
    let outputs = OutputSet()
    private(set) var rulesFile: OutputFile?
    /// The Storage plan, written beside a recorded export as the tree streams.
    private(set) var storagePlan: StoragePlanWriter?
    private let noun: String
    /// The fingerprint of the layout and its settings, recorded with the state.
    let inputs: String
    /// The generation this export compares with.
    let baseGeneration: Int64?
    /// The base when only the records changed since it are rendered.
    private(set) var incremental: IncrementalBase?
    private let publishing: PublishRender?
    /// Why every record is rendered, when an `--update` could have rendered fewer.
    private(set) var fullRenderReason: String?
    /// The changed records' entries, collected as they stream (incremental runs only).
    private var fresh: [IncrementalBase.Entry] = []

    package init(
        database: Database, layout: Layout, options: ExportOptions, storage: StorageURL,
        tokens: Bool, precision: Int, problems: ExportProblems,
        publishing: PublishRender? = nil
    ) throws {
        self.database = database
        self.layout = layout
        self.options = options
        self.problems = problems
        self.publishing = publishing
        noun = layout.records == .treasures ? "treasure" : "post"
        let store = ExportStore(database)
        let base = try Self.chooseBase(layout: layout, options: options, store: store)
        let previous = base.previous
        baseExport = base.export
        newGeneration = (base.latest ?? 0) + 1
        if let publishing {
            // A publish compares with what its target holds and records nothing here.
            oldState = publishing.old
            newState = publishing.new
        } else {
            oldState = try ExportStateReader(
                database: database, layout: layout.name, generation: previous)
        }
        inputs = ExportInputs.fingerprint(layout: layout, storage: storage, precision: precision)
        baseGeneration = previous
        var baseObjects: Int?
        if options.update && publishing == nil, let previous {
            baseObjects = try decideIncremental(previous: previous, store: store)
        }
        if let publishing, let base = publishing.incremental {
            incremental = base
        }
        if options.isRecorded && publishing == nil && incremental == nil {
            newState = try ExportStateWriter(
                database: database, layout: layout.name, generation: newGeneration)
        }
        streams = try Self.makeStreams(
            layout: layout, options: options, storage: storage, precision: precision,
            changedSince: incremental?.seq, publishing: publishing, store: store)
        try stageOutputs(
            storage: storage, tokens: tokens, previous: previous, baseObjects: baseObjects)
    }

    /// The generations this export follows: the layout's latest recorded one, the one it
    /// compares with (`--since`'s or the latest), and the recorded export that made it.
    ///
    /// - Throws: `ExportError.unknownBase`, `SQLiteError`.
    private static func chooseBase(layout: Layout, options: ExportOptions, store: ExportStore)
        throws -> (latest: Int64?, previous: Int64?, export: Int64?)
    {
        // The latest recorded export, whether or not its state holds any path (an export
        // of nothing keeps no block, but is still what the next one follows).
        let latest = try store.latestGeneration(layout: layout.name)
        if let since = options.since {
            return (latest, try generation(of: since, layout: layout.name, store: store), since)
        }
        let export = try latest.flatMap {
            try store.lastExportID(layout: layout.name, generation: $0)
        }
        return (latest, latest, export)
    }

    /// Decides whether an `--update` renders only the records changed since generation
    /// `previous`, and returns the count of objects that base's Storage plan referenced.
    ///
    /// - Throws: `SQLiteError`.
    private mutating func decideIncremental(previous: Int64, store: ExportStore) throws -> Int? {
        let base = try store.lastExport(layout: layout.name, generation: previous)
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
        return base?.objects
    }

    /// One stream per path template, each on its own connection and thread.
    ///
    /// - Throws: `SQLiteError`.
    private static func makeStreams(
        layout: Layout, options: ExportOptions, storage: StorageURL, precision: Int,
        changedSince: Int64?, publishing: PublishRender?, store: ExportStore
    ) throws -> [ParallelStream] {
        let noun = layout.records == .treasures ? "treasure" : "post"
        // Records are checked once: positions by a stream that reads them anyway, renditions
        // by the stream that joins them anyway, so no stream reads columns it does not
        // write and the two checks run on different threads.
        func count(_ index: Int, _ include: (Field) -> Bool) -> Int {
            layout.paths[index].fields.filter(include).count
        }
        let renditionChecks =
            layout.paths.indices.max {
                count($0, { $0.renditionName != nil }) < count($1, { $0.renditionName != nil })
            } ?? 0
        let positionChecks =
            layout.paths.indices.first { count($0, { $0 == .geohash }) > 0 }
            ?? layout.paths.indices.first { count($0, { $0 == .lat || $0 == .lon }) > 0 }
            ?? renditionChecks
        var failedImages: [String: (source: String, reason: String)] = [:]
        if !layout.renditionNames.isEmpty {
            failedImages = try store.renditionFailures(
                of: layout.records == .treasures ? .treasure : .post)
        }
        var streams: [ParallelStream] = []
        for (index, template) in layout.paths.enumerated() {
            var checker = RecordChecker(
                precision: precision, renditionNames: layout.renditionNames, noun: noun,
                positions: index == positionChecks, renditions: index == renditionChecks)
            if checker.renditions { checker.failedImages = failedImages }
            var query = RecordQuery(
                records: layout.records, renditionNames: layout.renditionNames,
                needed: template.fields, checksPositions: checker.positions,
                checksRenditions: checker.renditions)
            query.readsTokens = storage.usesTokens
            query.changedSince = changedSince
            query.tokenBucket = publishing?.bucket ?? options.target?.bucket
            // Each template reads on its own connection and thread. The connection's
            // snapshot is fixed now, while this transaction holds the write lock, so every
            // template sees exactly the rows this connection sees.
            let reader = try store.snapshot()
            var stream = try TemplateStream(
                template: template, database: reader, query: query,
                renderer: Renderer(storage: storage, renditionNames: layout.renditionNames),
                checker: checker, problems: ExportProblems(shown: options.problemsShown),
                noun: noun)
            stream.skipped = publishing?.heldBack?.keys ?? []
            streams.append(ParallelStream(stream: stream, database: reader))
        }
        return streams
    }

    /// Stages every output file (the rules, the tree or the update's parts, the Storage
    /// plan) before any record streams.
    ///
    /// - Throws: `FileWriteError` naming a folder that cannot take a file, `SQLiteError`.
    private mutating func stageOutputs(
        storage: StorageURL, tokens: Bool, previous: Int64?, baseObjects: Int?
    ) throws {
        if let rules = options.rules { rulesFile = try outputs.stage(rules) }
        // Output for standard output spills to a nameless file until all is well.
        let spillFolder = FileManager.default.temporaryDirectory.path
        let output = options.output
        let makeFile: (String) throws -> OutputFile = { path in
            output == nil ? try OutputFile(spillIn: spillFolder) : try OutputFile(path: path)
        }
        if options.update || options.maxBytes != nil {
            let partPath =
                options.maxBytes == nil || output == nil
                ? { _ in output ?? "" }
                : ExportOptions.partPaths(output: output ?? "").part
            updates = UpdateWriter(maxBytes: options.maxBytes) { try makeFile(partPath($0)) }
            // Its files open as they fill: that the folder takes one is checked now, so an
            // unwritable folder is reported by the export's name before any work.
            if let output, !options.dryRun { try OutputFile(path: output).discard() }
        } else {
            let file = try makeFile(output ?? "")
            treeFile = file
            let problems = self.problems
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
                tokens: tokens, images: images, outputs: outputs, baseGeneration: previous,
                baseObjects: baseObjects ?? 0, newGeneration: newGeneration,
                listsAll: options.allObjects, changed: changes)
        }
    }

    /// Streams every record through the layout.
    mutating func execute() throws -> ExportSummary {
        var summary = ExportSummary()
        let streams = self.streams
        let storagePlan = self.storagePlan
        defer {
            for stream in streams { stream.cancel() }
            storagePlan?.cancel()
        }
        for stream in streams { stream.start() }
        storagePlan?.start()
        let cursors = streams.map(StreamCursor.init)
        for cursor in cursors { try cursor.advance() }
        let previousPath = RenderBuffer(capacity: 256)
        let previousRecord = RenderBuffer(capacity: 64)
        var hasPrevious = false
        while true {
            // The stream whose current path comes first; templates are few. Chosen by
            // index, so that only the chosen cursor is referenced.
            var best = -1
            for index in cursors.indices where !cursors[index].isDone {
                if best >= 0 && comparePaths(cursors[index].path, cursors[best].path) >= 0 {
                    continue
                }
                best = index
            }
            guard best >= 0 else { break }
            let cursor = cursors[best]
            let (order, overlaps) =
                hasPrevious ? pathOrder(previousPath, cursor.path) : (-1, false)
            if order > 0 {
                // Each stream is ordered by construction; this guards the JSON's validity
                // should that ever fail, rather than writing a broken tree.
                problems.add(
                    "paths out of database order (a defect in trove; please report it)",
                    String(decoding: cursor.path.bytes, as: UTF8.self))
            } else if overlaps {
                problems.add(
                    "paths written twice (a layout's paths overlap for these records)",
                    "\(noun)s \(String(decoding: previousRecord.bytes, as: UTF8.self)) and "
                        + "\(cursor.recordKey) both write "
                        + String(decoding: cursor.path.bytes, as: UTF8.self))
            } else {
                try cursor.withEntry { path, value, hash in
                    try write(path: path, value: value, hash: hash, &summary) {
                        cursor.recordKey
                    }
                }
            }
            cursor.copyPath(into: previousPath)
            cursor.copyRecordKey(into: previousRecord)
            hasPrevious = true
            try cursor.advance()
        }
        if let incremental {
            try finishIncremental(incremental, &summary)
        } else {
            // Whatever the last export had beyond the last current path is gone now.
            while !oldState.isAtEnd {
                try removed(oldState.path, hash: oldState.hash, &summary)
                try oldState.advance()
            }
            try publishing?.live?.finish()
            try newState?.finish()
            summary.statePaths = newState?.count ?? 0
        }
        try tree?.finish()
        try updates?.finish()
        summary.storagePlan = try storagePlan?.finish()
        summary.records = streams.map(\.counts.records).max() ?? 0
        summary.remoteImages = streams.map(\.counts.remoteImages).reduce(0, +)
        // Only the changed records were read: the count comes from the workspace's counters
        // (counting the table would read all of it).
        summary.renderedChangesOnly = incremental != nil
        if incremental != nil {
            let counts = try StatusCounters.read(in: database)
            summary.records =
                layout.records == .treasures ? counts.treasures : counts.posts["approved"] ?? 0
        }
        summary.fullRenderReason = fullRenderReason
        summary.inputs = inputs
        // The streams' problems first, in template order, so messages read the same on
        // every run whatever the threads' timing.
        let merged = ExportProblems(shown: options.problemsShown)
        for stream in streams { merged.absorb(stream.problems) }
        merged.absorb(problems)
        problems.replace(with: merged)
        return summary
    }

    private mutating func write(
        path: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, hash: UInt64,
        _ summary: inout ExportSummary, record: () -> String
    ) throws {
        if incremental != nil {
            fresh.append(IncrementalBase.Entry(path: Array(path), hash: hash, value: Array(value)))
            return
        }
        summary.paths += 1
        try newState?.append(path: path, hash: hash)
        var recorded: UInt64?
        while !oldState.isAtEnd {
            let order = oldState.path.withUnsafeBufferPointer { comparePaths($0, path) }
            if order > 0 { break }
            if order == 0 {
                recorded = oldState.hash
                try oldState.advance()
                break
            }
            try removed(oldState.path, hash: oldState.hash, &summary)
            try oldState.advance()
        }
        var changed = recorded != hash
        if let live = publishing?.live {
            // A refresh sends what the database lacks, whatever the record says.
            changed = try live.rendered(path: path, value: value, hash: hash, recorded: recorded)
        }
        if changed { summary.changed += 1 }
        try tree?.add(path: path, value: value)
        if let updates, changed || !options.update {
            if !(try updates.add(path: path, value: value)) {
                problems.add(
                    "records larger than --max-bytes \(options.maxBytes ?? 0)",
                    "\(noun) \(record()): \(String(decoding: path, as: UTF8.self)) does not fit")
            }
        }
    }

    /// Merges the changed records' entries into the base state: the update holds what
    /// differs, and the new state refers to every block they did not touch.
    private mutating func finishIncremental(
        _ base: IncrementalBase, _ summary: inout ExportSummary
    ) throws {
        let candidates = try base.candidatePaths(layout: layout, database: database)
        var store: ((Int64, StateBlockReference) throws -> Void)? = publishing?.storeIndex
        if options.isRecorded && publishing == nil {
            store = try ExportStore(database).indexWriter(
                .paths, layout: layout.name, generation: newGeneration)
        }
        let updates = self.updates
        let maxBytes = options.maxBytes
        let noun = self.noun
        let problems = self.problems
        let patch = try base.patch(
            fresh: fresh, candidates: candidates, database: database, store: store
        ) { path, value in
            guard let updates else { return }
            let fits = try path.withUnsafeBufferPointer { path in
                if let value {
                    return try value.withUnsafeBufferPointer {
                        try updates.add(path: path, value: $0)
                    }
                }
                return try updates.add(path: path, value: nil)
            }
            if !fits {
                problems.add(
                    "records larger than --max-bytes \(maxBytes ?? 0)",
                    "\(noun) path \(String(decoding: path, as: UTF8.self)) does not fit")
            }
        }
        summary.changed = patch.changed
        summary.removed = patch.removed
        summary.paths = patch.statePaths
        summary.statePaths = patch.statePaths
    }

    private mutating func removed(_ path: [UInt8], hash: UInt64, _ summary: inout ExportSummary)
        throws
    {
        if let heldBack = publishing?.heldBack,
            path.withUnsafeBufferPointer({ heldBack.owns(path: $0) })
        {
            // A record left out of this publish keeps what the target holds of it.
            try path.withUnsafeBufferPointer { path in
                try newState?.append(path: path, hash: hash)
                try publishing?.live?.kept(path: path)
            }
            return
        }
        if let live = publishing?.live,
            try !path.withUnsafeBufferPointer({ try live.removed(path: $0) })
        {
            // Already gone from the database: nothing to send.
            return
        }
        summary.removed += 1
        if options.update, let updates {
            _ = try path.withUnsafeBufferPointer { try updates.add(path: $0, value: nil) }
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
}
