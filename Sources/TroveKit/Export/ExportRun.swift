import Foundation
import TroveBase
import TroveSQLite
import TroveStore

/// The state of one export while it streams: the records rendered through the layout,
/// the templates' entries merged in path order and compared with the sink's base, and
/// each entry handed to the sink.
struct ExportRun<Sink: ExportSink> {
    let database: Database
    let layout: Layout
    let options: ExportOptions
    let problems: ExportProblems
    /// Where the entries go.
    private(set) var sink: Sink
    private var streams: [ParallelStream] = []
    private var oldState: ExportStateReader
    /// Nil when this export is not recorded.
    private var newState: ExportStateWriter?
    private let noun: String
    /// The fingerprint of the layout and its settings, recorded with the state.
    let inputs: String
    /// The base when only the records changed since it are rendered.
    private let incremental: IncrementalBase?
    /// The changed records' entries, collected as they stream (incremental runs only).
    private var fresh: [IncrementalBase.Entry] = []

    init(
        database: Database, layout: Layout, options: ExportOptions, storage: StorageURL,
        tokens: Bool, precision: Int, problems: ExportProblems, sink: Sink
    ) throws {
        self.database = database
        self.layout = layout
        self.options = options
        self.problems = problems
        noun = layout.records == .treasures ? "treasure" : "post"
        inputs = ExportInputs.fingerprint(layout: layout, storage: storage, precision: precision)
        var sink = sink
        let base = try sink.base(inputs: inputs)
        oldState = base.old
        newState = base.new
        incremental = base.incremental
        streams = try Self.makeStreams(
            layout: layout, options: options, storage: storage, precision: precision,
            changedSince: base.incremental?.seq, bucket: sink.bucket, skipped: sink.skipped,
            store: ExportStore(database))
        try sink.stage(storage: storage, tokens: tokens, problems: problems)
        self.sink = sink
    }

    /// One stream per path template, each on its own connection and thread.
    ///
    /// - Throws: `SQLiteError`.
    private static func makeStreams(
        layout: Layout, options: ExportOptions, storage: StorageURL, precision: Int,
        changedSince: Int64?, bucket: String?, skipped: Set<String>, store: ExportStore
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
            query.tokenBucket = bucket
            // Each template reads on its own connection and thread. The connection's
            // snapshot is fixed now, while this transaction holds the write lock, so every
            // template sees exactly the rows this connection sees.
            let reader = try store.snapshot()
            var stream = try TemplateStream(
                template: template, database: reader, query: query,
                renderer: Renderer(storage: storage, renditionNames: layout.renditionNames),
                checker: checker, problems: ExportProblems(shown: options.problemsShown),
                noun: noun)
            stream.skipped = skipped
            streams.append(ParallelStream(stream: stream, database: reader))
        }
        return streams
    }

    /// Streams every record through the layout.
    mutating func execute() throws -> ExportSummary {
        var summary = ExportSummary()
        let streams = self.streams
        defer {
            for stream in streams { stream.cancel() }
            sink.cancel()
        }
        for stream in streams { stream.start() }
        sink.start()
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
        try finish(streams, &summary)
        return summary
    }

    /// After the last path: what the last export had beyond it is gone, the state and
    /// the sink are finished, and the summary takes the streams' counts and problems.
    private mutating func finish(_ streams: [ParallelStream], _ summary: inout ExportSummary)
        throws
    {
        if let incremental {
            try finishIncremental(incremental, &summary)
        } else {
            // Whatever the last export had beyond the last current path is gone now.
            while !oldState.isAtEnd {
                try removed(oldState.path, hash: oldState.hash, &summary)
                try oldState.advance()
            }
            try newState?.finish()
            summary.statePaths = newState?.count ?? 0
        }
        try sink.finish(&summary)
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
        summary.inputs = inputs
        // The streams' problems first, in template order, so messages read the same on
        // every run whatever the threads' timing.
        let merged = ExportProblems(shown: options.problemsShown)
        for stream in streams { merged.absorb(stream.problems) }
        merged.absorb(problems)
        problems.replace(with: merged)
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
        let emitted = try sink.emit(path: path, value: value, hash: hash, recorded: recorded)
        if emitted.changed { summary.changed += 1 }
        if !emitted.fits {
            problems.add(
                "records larger than --max-bytes \(options.maxBytes ?? 0)",
                "\(noun) \(record()): \(String(decoding: path, as: UTF8.self)) does not fit")
        }
    }

    /// Merges the changed records' entries into the base state: the update holds what
    /// differs, and the new state refers to every block they did not touch.
    private mutating func finishIncremental(
        _ base: IncrementalBase, _ summary: inout ExportSummary
    ) throws {
        let candidates = try base.candidatePaths(layout: layout, database: database)
        let store = try sink.stateIndex()
        let maxBytes = options.maxBytes
        let noun = self.noun
        let problems = self.problems
        var sink = self.sink
        defer { self.sink = sink }
        let patch = try base.patch(
            fresh: fresh, candidates: candidates, database: database, store: store
        ) { path, value in
            let fits = try path.withUnsafeBufferPointer { path in
                if let value {
                    return try value.withUnsafeBufferPointer {
                        try sink.patch(path: path, value: $0)
                    }
                }
                return try sink.patch(path: path, value: nil)
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
        switch try path.withUnsafeBufferPointer({ try sink.remove(path: $0) }) {
        case .kept:
            try path.withUnsafeBufferPointer { try newState?.append(path: $0, hash: hash) }
        case .alreadyGone:
            break
        case .removed:
            summary.removed += 1
        }
    }
}
