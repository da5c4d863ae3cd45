import Foundation
import TroveBase
import TroveSQLite
import TroveStore

/// The paths and objects of a plan, for `publish --dry-run --format json`.
public struct PublishPlanDetail: Equatable, Sendable {
    public var set: [String] = []
    public var removed: [String] = []
    public var uploads: [String] = []
    public var retokens: [String] = []
    public var deletes: [String] = []

    public init() {}
}

/// The Realtime Database limits a publish's requests stay under.
///
/// The REST API takes a single write of up to 256 MB and the SDKs up to 16 MB
/// (<https://firebase.google.com/docs/database/usage/limits>); a write is also cancelled
/// when the database estimates it takes longer than its `writeSizeLimit` target. Each
/// request is kept to a few megabytes: far under both sizes, quick for the database to
/// apply, and cheap to send again after a failure.
public enum PublishLimits {
    /// The most bytes one multi-path update request holds.
    public static let requestBytes = 4 * 1024 * 1024
}

/// Computes a target's plan: the difference between the tree the workspace would export
/// for the target's layout (with URLs naming its bucket) and what the target holds.
enum PublishPlanner {

    /// Records the plan of `target` (its steps and planned state) in the caller's write
    /// transaction, against `held` (what the target holds; nil for its recorded state).
    ///
    /// - Throws: `ExportError` when the layout's export would be refused,
    ///   `PublishError.missingFiles`, `SQLiteError`.
    static func plan(
        workspace: Workspace, target: PublishTarget, layout: Layout, images: String,
        now: Date, live: LiveTree? = nil
    ) throws -> PublishPlanSummary {
        let database = workspace.database
        let store = PublishStore(database)
        try store.beginPlan(target: target.name, plannedAt: timestamp(now), images: images)
        let insertStep = try store.stepWriter(target: target.name)
        var counters: [PublishStepKind: Int64] = [:]
        func addStep(
            _ kind: PublishStepKind, name stepName: String?, token: String?, body: [UInt8]?
        )
            throws
        {
            let index = counters[kind, default: 0]
            counters[kind] = index + 1
            try insertStep(kind.base + index, kind, stepName, token, body)
        }
        var summary = PublishPlanSummary()
        // What the target took in when it was last published: with the same layout and
        // settings, only the records changed since are rendered and their objects merged.
        var incremental: IncrementalBase?
        let inputs = ExportInputs.fingerprint(
            layout: layout, storage: try Exporter.storageURL(workspace, bucket: target.bucket),
            precision: try workspace.geohashPrecision())
        let held = try store.publishedBase(target: target.name)
        if live == nil, let held, let paths = held.paths, let objects = held.objects {
            let decision = try IncrementalBase.decide(
                layout: layout, inputs: inputs, baseSeq: held.seq, baseInputs: held.inputs,
                statePaths: paths, database: database
            ) {
                try store.index(.paths, target: target.name, planned: false)
            }
            if case .incremental(let base) = decision {
                incremental = base
                try planChangedObjects(
                    database: database, target: target, layout: layout, tokens: tokens(workspace),
                    base: base, baseObjects: objects, summary: &summary, addStep: addStep)
            }
        }
        if incremental == nil {
            try planObjects(
                database: database, target: target, layout: layout, tokens: tokens(workspace),
                summary: &summary, addStep: addStep)
        }
        try checkFiles(database: database, target: target.name, images: images)

        // The tree, compared path by path with what the target holds; against a live
        // database, every path is rendered and compared with it here.
        let requests = RequestCounter()
        let rendered = RenderedEntries()
        var options = ExportOptions(update: live == nil, maxBytes: PublishLimits.requestBytes)
        options.now = now
        let render = PublishRender(
            old: try live == nil
                ? PublishState.paths(target: target.name, planned: false, database: database)
                : ExportStateReader(blocks: { nil }),
            new: ExportStateWriter(
                store: try store.plannedBlockWriter(.paths, target: target.name)),
            bucket: target.bucket, incremental: incremental,
            storeIndex: try store.plannedIndexWriter(.paths, target: target.name),
            body: { body in
                if live != nil {
                    try rendered.collect(body)
                } else {
                    try addStep(.update, name: nil, token: nil, body: body)
                    requests.count += 1
                }
            })
        let export = try Exporter.runInTransaction(
            workspace: workspace, layout: layout, options: options, publishing: render)
        summary.paths = export.statePaths
        summary.renderedChangesOnly = incremental != nil
        summary.changed = export.changed
        summary.removed = export.removed
        if let live {
            let drift = try compare(
                rendered.entries, with: live, layout: layout, target: target.name,
                database: database)
            summary.drift = drift.drift
            summary.changed = drift.drift.differ.count + drift.drift.missing.count
            summary.removed = drift.drift.extra.count
            var writer = RequestWriter { body in
                try addStep(.update, name: nil, token: nil, body: body)
                requests.count += 1
            }
            for (path, value) in drift.entries { try writer.add(path: path, value: value) }
            try writer.finish()
        }
        summary.requests = requests.count
        // A plan against a live download took in no clock value: the next plan renders all.
        try store.completePlan(
            target: target.name, summary: summary, takesInClock: live == nil,
            inputs: export.inputs)
        return summary
    }

    private final class RequestCounter {
        var count = 0
    }

    /// Every rendered (path, value), in path order.
    private final class RenderedEntries {
        var entries: [(path: String, value: JSONValue)] = []

        func collect(_ body: [UInt8]) throws {
            var parser = JSONParser(body)
            guard case .object(let members)? = try? parser.parseValue() else {
                throw PublishError.input("a rendered update does not parse (a defect in trove)")
            }
            for member in members { entries.append((member.name, member.value)) }
        }
    }

    /// The update that makes `live` hold the rendered entries at the layout's paths, and
    /// what differed.
    private static func compare(
        _ entries: [(path: String, value: JSONValue)], with live: LiveTree, layout: Layout,
        target: String, database: Database
    ) throws -> (drift: PublishDrift, entries: [(String, JSONValue?)]) {
        var recorded = Set<String>()
        var state = try PublishState.paths(target: target, planned: false, database: database)
        while !state.isAtEnd {
            recorded.insert(String(decoding: state.path, as: UTF8.self))
            try state.advance()
        }
        var drift = PublishDrift()
        var update: [(String, JSONValue?)] = []
        var renderedPaths = Set<String>()
        for (path, value) in entries {
            renderedPaths.insert(path)
            let want = LiveTree.node(value)
            let have = live.node(at: path)
            guard have != want else { continue }
            if have == nil { drift.missing.append(path) } else { drift.differ.append(path) }
            if recorded.contains(path) { drift.publishedButChanged += 1 }
            update.append((path, value))
        }
        let shapes = layout.paths.map { template in
            template.segments.map { segment -> String? in
                if case .literal(let text) = segment { return text }
                return nil
            }
        }
        for path in live.paths(shapedLike: shapes) where !renderedPaths.contains(path) {
            drift.extra.append(path)
            update.append((path, nil))
        }
        func ordered(_ a: String, _ b: String) -> Bool {
            comparePaths(Array(a.utf8), Array(b.utf8)) < 0
        }
        drift.extra.sort(by: ordered)
        update.sort { ordered($0.0, $1.0) }
        return (drift, update)
    }

    static func tokens(_ workspace: Workspace) throws -> Bool {
        try workspace.settings().tokens.usesTokens
    }

    /// Merges the objects the tree references with those the target holds (both in path
    /// order): new ones are uploaded, re-tokened ones get their token, and those nothing
    /// references any more are deleted, unless another target in the same bucket holds
    /// them.
    private static func planObjects(
        database: Database, target: PublishTarget, layout: Layout, tokens: Bool,
        summary: inout PublishPlanSummary,
        addStep: (PublishStepKind, String?, String?, [UInt8]?) throws -> Void
    ) throws {
        var previous = try PublishState.objects(
            target: target.name, planned: false, database: database)
        let store = try PublishStore(database).plannedBlockWriter(.objects, target: target.name)
        var seq: Int64 = 0
        var encoder = PlannedObjectEncoder { block in
            try store(seq, block)
            seq += 1
        }
        var gone: [String] = []
        if !layout.renditionNames.isEmpty {
            let rows = try ExportStore(database).objects(
                of: layout.recordKind, renditionNames: layout.renditionNames, tokens: tokens)
            let pathColumn = rows.column("path")
            let tokenColumn = rows.column("token")
            var last: [UInt8] = []
            var first = true
            while let row = try rows.next() {
                try row.withUTF8(pathColumn) { path in
                    // A path shared by several renditions is one object.
                    if !first && last.elementsEqual(path) { return }
                    first = false
                    last.removeAll(keepingCapacity: true)
                    last.append(contentsOf: path)
                    while !previous.isAtEnd
                        && previous.path.withUnsafeBufferPointer({
                            KeyOrderedTable.compare($0, path)
                        }) < 0
                    {
                        gone.append(String(decoding: previous.path, as: UTF8.self))
                        try previous.advance()
                    }
                    let token = row.withUTF8(tokenColumn) { $0 }
                    let name = String(decoding: path, as: UTF8.self)
                    let tokenText = token.map { String(decoding: $0, as: UTF8.self) }
                    if !previous.isAtEnd
                        && previous.path.withUnsafeBufferPointer({
                            KeyOrderedTable.compare($0, path)
                        }) == 0
                    {
                        let same =
                            switch (previous.token, token) {
                            case (nil, nil): true
                            case (let old?, let new?): old.elementsEqual(new)
                            default: false
                            }
                        if !same {
                            // The old URL works until the tree names the new one: the
                            // object holds both tokens until then.
                            let old = previous.token.map { String(decoding: $0, as: UTF8.self) }
                            let both = [old, tokenText].compactMap { $0 }.joined(separator: ",")
                            try addStep(.token, name, both, nil)
                            if both != tokenText { try addStep(.revoke, name, tokenText, nil) }
                            summary.retokens += 1
                        }
                        try previous.advance()
                    } else {
                        try addStep(.upload, name, tokenText, nil)
                        summary.uploads += 1
                    }
                    try encoder.append(path: path, token: token)
                    summary.objects += 1
                }
            }
        }
        while !previous.isAtEnd {
            gone.append(String(decoding: previous.path, as: UTF8.self))
            try previous.advance()
        }
        try encoder.finish()
        for name in try unshared(gone, target: target, database: database) {
            try addStep(.delete, name, nil, nil)
            summary.deletes += 1
        }
    }

    /// `planObjects` for the records changed since the target's last publish: their
    /// objects now are merged into the blocks of the target's objects they fall in (a
    /// record's objects all lie in its own folder), and the other blocks are shared.
    private static func planChangedObjects(
        database: Database, target: PublishTarget, layout: Layout, tokens: Bool,
        base: IncrementalBase, baseObjects: Int, summary: inout PublishPlanSummary,
        addStep: (PublishStepKind, String?, String?, [UInt8]?) throws -> Void
    ) throws {
        let store = PublishStore(database)
        let index = try store.index(.objects, target: target.name, planned: false)
        var gone: [String] = []
        summary.objects = baseObjects
        try StoragePlan.mergeChangedObjects(
            layout: layout, tokens: tokens, since: base.seq, keys: base.keys, into: index,
            database: database,
            store: try store.plannedIndexWriter(.objects, target: target.name)
        ) { path, old, new in
            let name = String(decoding: path, as: UTF8.self)
            guard let new else {
                summary.objects -= 1
                gone.append(name)
                return
            }
            let token = StoragePlan.token(inPayload: new).map {
                String(decoding: $0, as: UTF8.self)
            }
            guard let old else {
                summary.objects += 1
                try addStep(.upload, name, token, nil)
                summary.uploads += 1
                return
            }
            let previous = StoragePlan.token(inPayload: old).map {
                String(decoding: $0, as: UTF8.self)
            }
            // The old URL works until the tree names the new one: both tokens until then.
            let both = [previous, token].compactMap { $0 }.joined(separator: ",")
            try addStep(.token, name, both, nil)
            if both != token { try addStep(.revoke, name, token, nil) }
            summary.retokens += 1
        }
        for name in try unshared(gone, target: target, database: database) {
            try addStep(.delete, name, nil, nil)
            summary.deletes += 1
        }
    }

    /// The objects of `gone` that no other target in the same bucket holds or will hold.
    static func unshared(_ gone: [String], target: PublishTarget, database: Database)
        throws -> [String]
    {
        guard !gone.isEmpty else { return [] }
        var candidates = Set(gone)
        let others = try PublishStore(database).targets(
            inBucket: target.bucket, besides: target.name)
        for other in others {
            for planned in [false, true] {
                var reader = try PublishState.objects(
                    target: other, planned: planned, database: database)
                while !reader.isAtEnd && !candidates.isEmpty {
                    candidates.remove(String(decoding: reader.path, as: UTF8.self))
                    try reader.advance()
                }
            }
        }
        return gone.filter { candidates.contains($0) }
    }

    /// Every file the plan uploads must be in the images folder before anything is sent.
    private static func checkFiles(database: Database, target: String, images: String) throws {
        let names = try PublishStore(database).uploadNames(target: target)
        let missing = names.filter {
            access((images as NSString).appendingPathComponent($0), R_OK) != 0
        }
        if !missing.isEmpty { throw PublishError.missingFiles(missing, folder: images) }
    }

    /// The paths and objects of the recorded plan of `target`.
    ///
    /// - Throws: `SQLiteError`, `PublishError.input` when a request does not parse.
    package static func detail(target: String, database: Database) throws -> PublishPlanDetail {
        var detail = PublishPlanDetail()
        try PublishStore(database).forEachPendingStep(target: target) { step in
            switch step.kind {
            case .upload: detail.uploads.append(step.name)
            case .token: detail.retokens.append(step.name)
            case .delete: detail.deletes.append(step.name)
            case .revoke: break
            case .update, nil:
                var parser = JSONParser(step.body ?? [])
                guard case .object(let members)? = try? parser.parseValue() else {
                    throw PublishError.input("a recorded database request does not parse")
                }
                for member in members {
                    if member.value == .null {
                        detail.removed.append(member.name)
                    } else {
                        detail.set.append(member.name)
                    }
                }
            }
        }
        return detail
    }
}

/// Writes (path, value-or-null) entries as multi-path update bodies, each at most
/// `PublishLimits.requestBytes`.
struct RequestWriter {
    private var body: [UInt8] = []
    private var entries = 0
    private let emit: ([UInt8]) throws -> Void

    package init(emit: @escaping ([UInt8]) throws -> Void) {
        self.emit = emit
    }

    package mutating func add(path: String, value: JSONValue?) throws {
        var entry: [UInt8] = [0x0A, 0x20, 0x20]
        JSONText.appendString(path, to: &entry)
        entry.append(contentsOf: ": ".utf8)
        entry.append(contentsOf: (value?.jsonText ?? "null").utf8)
        if entries > 0 && body.count + 1 + entry.count + 3 > PublishLimits.requestBytes {
            try flush()
        }
        body.append(entries == 0 ? UInt8(ascii: "{") : UInt8(ascii: ","))
        body.append(contentsOf: entry)
        entries += 1
    }

    mutating func finish() throws {
        try flush()
    }

    private mutating func flush() throws {
        guard entries > 0 else { return }
        body.append(contentsOf: [0x0A, UInt8(ascii: "}"), 0x0A])
        try emit(body)
        body.removeAll(keepingCapacity: true)
        entries = 0
    }
}
