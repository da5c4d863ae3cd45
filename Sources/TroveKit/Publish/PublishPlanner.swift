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

    /// How a plan is made beyond the target and its layout.
    struct Inputs {
        /// What the target's database holds, from `--against`: every path is rendered and
        /// compared with it, and paths at the layout's shapes the tree lacks are removed.
        var against: LiveTree?
        /// What the target's database and bucket hold, from `--refresh`: every path is
        /// rendered and sent where the database lacks it, objects missing are uploaded and
        /// tokens missing set, and what trove does not publish is named and left alone.
        var refresh: LiveTarget?
        /// Records left out of this publish.
        var heldBack: HeldBack?
        /// Whether every file to upload must be in the images folder.
        var checksFiles = true
    }

    /// What a plan found besides its counts.
    struct Outcome {
        var summary: PublishPlanSummary
        /// The differences a refresh found.
        var refresh: RefreshReport?
    }

    /// Records the plan of `target` (its steps and planned state) in the caller's write
    /// transaction, against what the target holds: its record, or what `inputs` read.
    ///
    /// - Throws: `ExportError` when the layout's export would be refused,
    ///   `PublishError.missingFiles`, `SQLiteError`.
    static func plan(
        workspace: Workspace, target: PublishTarget, layout: Layout, images: String,
        now: Date, inputs given: Inputs = Inputs()
    ) throws -> Outcome {
        let live = given.against
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
        let heldBack = given.heldBack.flatMap { $0.isEmpty ? nil : $0 }
        let comparison = try given.refresh.map(LiveComparison.init)
        // What the target took in when it was last published: with the same layout and
        // settings, only the records changed since are rendered and their objects merged.
        let incremental = try planTargetObjects(
            workspace: workspace, store: store, target: target, layout: layout, given: given,
            heldBack: heldBack, comparison: comparison, summary: &summary, addStep: addStep)
        if given.checksFiles {
            try checkFiles(database: database, target: target.name, images: images)
        }

        // The tree, compared path by path with what the target holds; against a live
        // database, every path is rendered and compared with it here.
        let requests = RequestCounter()
        // Against a download, every rendered entry is compared with it after the render.
        let rendered = live == nil ? nil : RenderedEntries()
        var options = ExportOptions(update: live == nil, maxBytes: PublishLimits.requestBytes)
        options.now = now
        let sink = PublishSink(
            old: try live == nil
                ? PublishState.paths(target: target.name, planned: false, database: database)
                : ExportStateReader(blocks: { nil }),
            new: ExportStateWriter(
                store: try store.plannedBlockWriter(.paths, target: target.name)),
            bucket: target.bucket, incremental: incremental,
            storeIndex: try store.plannedIndexWriter(.paths, target: target.name),
            against: rendered, live: comparison, heldBack: heldBack
        ) { body in
            try addStep(.update, name: nil, token: nil, body: body)
            requests.count += 1
        }
        let export = try Exporter.runInTransaction(
            workspace: workspace, layout: layout, options: options, sink: sink
        ) { sink, summary in
            try sink.sendUpdates()
            return summary
        }
        summary.paths = export.statePaths
        summary.renderedChangesOnly = incremental != nil
        summary.changed = export.changed
        summary.removed = export.removed
        if let live, let rendered {
            try planDrift(
                rendered, against: live, layout: layout, target: target, database: database,
                requests: requests, summary: &summary, addStep: addStep)
        }
        summary.requests = requests.count
        // A plan against a live download took in no clock value: the next plan renders all.
        try store.completePlan(
            target: target.name, summary: summary, takesInClock: live == nil,
            inputs: export.inputs)
        // The records left out count as changed after this plan's clock value, so that the
        // next publish takes them up again.
        for record in heldBack?.records ?? [] {
            workspace.markChanged(record.kind.record, record.key)
        }
        return Outcome(summary: summary, refresh: comparison?.report)
    }

    /// Plans the target's objects: only those of the records changed since its last
    /// publish when it took in an export with the same layout and settings (and that base
    /// is returned), else all of them.
    private static func planTargetObjects(
        workspace: Workspace, store: PublishStore, target: PublishTarget, layout: Layout,
        given: Inputs, heldBack: HeldBack?, comparison: LiveComparison?,
        summary: inout PublishPlanSummary,
        addStep: (PublishStepKind, String?, String?, [UInt8]?) throws -> Void
    ) throws -> IncrementalBase? {
        let live = given.against
        let database = workspace.database
        var incremental: IncrementalBase?
        let inputs = ExportInputs.fingerprint(
            layout: layout, storage: try Exporter.storageURL(workspace, bucket: target.bucket),
            precision: try workspace.geohashPrecision())
        let held = try store.publishedBase(target: target.name)
        if live == nil, comparison == nil, let held, let paths = held.paths,
            let objects = held.objects
        {
            let decision = try IncrementalBase.decide(
                layout: layout, inputs: inputs, baseSeq: held.seq, baseInputs: held.inputs,
                statePaths: paths, database: database
            ) {
                try store.index(.paths, target: target.name, planned: false)
            }
            if case .incremental(var base) = decision {
                // A record left out is not among the changes: what the target holds of it
                // stays.
                if let heldBack { base.keys.removeAll { heldBack.keys.contains($0) } }
                incremental = base
                try planChangedObjects(
                    database: database, target: target, layout: layout, tokens: tokens(workspace),
                    base: base, baseObjects: objects, heldBack: heldBack, summary: &summary,
                    addStep: addStep)
            }
        }
        if incremental == nil {
            let objects = try given.refresh.map { refresh in
                LiveObjects(statement: try refresh.store.objects(), comparison: comparison!)
            }
            try planObjects(
                database: database, target: target, layout: layout, tokens: tokens(workspace),
                summary: &summary, heldBack: heldBack, live: objects, addStep: addStep)
        }
        return incremental
    }

    /// Compares the entries rendered with a live download and plans the updates that bring
    /// the database to the tree, counting the differences as the plan's changes.
    private static func planDrift(
        _ rendered: RenderedEntries, against live: LiveTree, layout: Layout,
        target: PublishTarget, database: Database, requests: RequestCounter,
        summary: inout PublishPlanSummary,
        addStep: @escaping (PublishStepKind, String?, String?, [UInt8]?) throws -> Void
    ) throws {
        let drift = try compare(
            rendered.entries, with: live, layout: layout, target: target.name,
            database: database)
        summary.drift = drift.drift
        summary.changed = drift.drift.differ.count + drift.drift.missing.count
        summary.removed = drift.drift.extra.count
        var writer = RequestWriter { body in
            try addStep(.update, nil, nil, body)
            requests.count += 1
        }
        for (path, value) in drift.entries { try writer.add(path: path, value: value) }
        try writer.finish()
    }

    /// The keys of the records the next plan of `target` renders: those changed since its
    /// last publish, or nil when it renders every record (`everything`, a first publish,
    /// new settings). Read in the caller's transaction.
    ///
    /// - Throws: `SQLiteError`.
    static func changedKeys(
        workspace: Workspace, target: PublishTarget, layout: Layout, everything: Bool
    ) throws -> [String]? {
        guard !everything else { return nil }
        let database = workspace.database
        let store = PublishStore(database)
        guard let held = try store.publishedBase(target: target.name), let paths = held.paths,
            held.objects != nil
        else { return nil }
        let inputs = ExportInputs.fingerprint(
            layout: layout, storage: try Exporter.storageURL(workspace, bucket: target.bucket),
            precision: try workspace.geohashPrecision())
        let decision = try IncrementalBase.decide(
            layout: layout, inputs: inputs, baseSeq: held.seq, baseInputs: held.inputs,
            statePaths: paths, database: database
        ) { [] }
        if case .incremental(let base) = decision { return base.keys }
        return nil
    }

    private final class RequestCounter {
        var count = 0
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

    /// What a refresh read of the bucket, for the objects' merge: a cursor over its
    /// objects in path order, and where differences are noted.
    struct LiveObjects {
        let statement: Statement
        let comparison: LiveComparison
    }

    /// Merges the objects the tree references with those the target holds (both in path
    /// order): new ones are uploaded, re-tokened ones get their token, and those nothing
    /// references any more are deleted, unless another target in the same bucket holds
    /// them. With `live` (a refresh), what the bucket really holds decides instead of the
    /// record: an object missing is uploaded again, one lacking its token gets it added,
    /// and objects under the layout's prefix that no target holds are named and left
    /// alone. A left-out record's objects stay as recorded.
    private static func planObjects(
        database: Database, target: PublishTarget, layout: Layout, tokens: Bool,
        summary: inout PublishPlanSummary, heldBack: HeldBack?, live: LiveObjects?,
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
        func encode(_ path: [UInt8], _ token: [UInt8]?) throws {
            try path.withUnsafeBufferPointer { path in
                if let token {
                    try token.withUnsafeBufferPointer { try encoder.append(path: path, token: $0) }
                } else {
                    try encoder.append(path: path, token: nil)
                }
            }
            summary.objects += 1
        }
        var gone: [String] = []

        // The objects the tree references now, each path once, and what the bucket holds
        // when refreshing.
        var referenced = try ReferencedObjects(
            database: database, layout: layout, tokens: tokens, bucket: target.bucket)
        var held = try HeldObjects(live)
        var others = live == nil ? nil : try OtherHolders(target: target, database: database)

        while true {
            var first: [UInt8]?
            for candidate in [
                referenced.current?.path, previous.isAtEnd ? nil : previous.path,
                held.current?.name,
            ]
            where candidate != nil {
                if first == nil || StoragePlan.compareBytes(candidate!, first!) < 0 {
                    first = candidate
                }
            }
            guard let path = first else { break }
            let now = referenced.current?.path == path ? referenced.current : nil
            let recorded = !previous.isAtEnd && previous.path == path
            let was = recorded ? text(previous.token) : nil
            let there = held.current?.name == path ? held.current : nil
            let name = String(decoding: path, as: UTF8.self)

            if heldBack?.owns(object: path) == true {
                // Left out of this publish: the target keeps what it holds of the record.
                if recorded { try encode(path, previous.token) }
            } else if let now {
                try encode(path, now.token)
                try planReferenced(
                    name, token: text(now.token), was: was, recorded: recorded, there: there,
                    live: live, summary: &summary, addStep: addStep)
            } else if recorded {
                // Nothing references it any more; already gone when the bucket lacks it.
                if live == nil || there != nil { gone.append(name) }
            } else if let live, there != nil, try !(others?.hold(path) ?? false) {
                live.comparison.unpublishedObject(name)
            }

            if now != nil { try referenced.advance() }
            if recorded { try previous.advance() }
            if there != nil { try held.advance() }
        }
        try encoder.finish()
        for name in try unshared(gone, target: target, database: database) {
            try addStep(.delete, name, nil, nil)
            summary.deletes += 1
        }
    }

    /// The steps for an object the tree references, named `name` with the token `wanted`:
    /// `was` is the token recorded for it (when `recorded`), `there` what the bucket holds
    /// of it when refreshing.
    private static func planReferenced(
        _ name: String, token wanted: String?, was: String?, recorded: Bool,
        there: HeldObjects.Object?, live: LiveObjects?, summary: inout PublishPlanSummary,
        addStep: (PublishStepKind, String?, String?, [UInt8]?) throws -> Void
    ) throws {
        if recorded {
            if let live, there == nil {
                live.comparison.missingObject(name)
                let tokens = both(was == wanted ? nil : was, wanted)
                try addStep(.upload, name, tokens, nil)
                summary.uploads += 1
                if tokens != wanted { try addStep(.revoke, name, wanted, nil) }
            } else if was != wanted {
                if let live, let was, let there, !there.tokens.contains(was) {
                    live.comparison.missingToken(name)
                }
                // The old URL works until the tree names the new one: the object
                // holds both tokens until then.
                let tokens = both(was, wanted)
                try addStep(.token, name, tokens, nil)
                if tokens != wanted { try addStep(.revoke, name, wanted, nil) }
                summary.retokens += 1
            } else if let live, let wanted, let there, !there.tokens.contains(wanted) {
                // Tokens others put there stay; the one the tree names is added.
                live.comparison.missingToken(name)
                try addStep(
                    .token, name, (there.tokens + [wanted]).joined(separator: ","), nil)
                summary.retokens += 1
            }
        } else if let there {
            // Not recorded, but in the bucket already: only its token may be missing.
            if let wanted, !there.tokens.contains(wanted) {
                try addStep(
                    .token, name, (there.tokens + [wanted]).joined(separator: ","), nil)
                summary.retokens += 1
            }
        } else {
            try addStep(.upload, name, wanted, nil)
            summary.uploads += 1
        }
    }

    private static func text(_ bytes: [UInt8]?) -> String? {
        bytes.map { String(decoding: $0, as: UTF8.self) }
    }

    /// Tokens joined as Firebase keeps several: the old one (which live URLs carry until
    /// the database names the new) and the new.
    private static func both(_ old: String?, _ new: String?) -> String? {
        let joined = [old, new].compactMap { $0 }.joined(separator: ",")
        return joined.isEmpty ? nil : joined
    }

    /// The objects the tree references now, in path order, each path once.
    private struct ReferencedObjects {
        private let rows: Statement?
        private var pathColumn = 0
        private var tokenColumn = 0
        /// The current object; nil after the last.
        private(set) var current: (path: [UInt8], token: [UInt8]?)?

        init(database: Database, layout: Layout, tokens: Bool, bucket: String) throws {
            var rows: Statement?
            if !layout.renditionNames.isEmpty {
                let statement = try ExportStore(database).objects(
                    of: layout.recordKind, renditionNames: layout.renditionNames, tokens: tokens,
                    bucket: bucket)
                pathColumn = statement.column("path")
                tokenColumn = statement.column("token")
                rows = statement
            }
            self.rows = rows
            try advance()
        }

        mutating func advance() throws {
            while let row = try rows?.next() {
                let path = row.withUTF8(pathColumn) { Array($0) } ?? []
                // A path shared by several renditions is one object.
                if path == current?.path { continue }
                current = (path, row.withUTF8(tokenColumn) { Array($0) })
                return
            }
            current = nil
        }
    }

    /// What the bucket holds, in name order, when refreshing; nothing otherwise.
    private struct HeldObjects {
        typealias Object = (name: [UInt8], tokens: [String])
        private let live: LiveObjects?
        private var nameColumn = 0
        private var tokensColumn = 0
        /// The current object; nil after the last.
        private(set) var current: Object?

        init(_ live: LiveObjects?) throws {
            self.live = live
            if let live {
                nameColumn = live.statement.column("name")
                tokensColumn = live.statement.column("tokens")
            }
            try advance()
        }

        mutating func advance() throws {
            guard let live, let row = try live.statement.next() else {
                current = nil
                return
            }
            current = (
                row.withUTF8(nameColumn) { Array($0) } ?? [],
                (row.text(tokensColumn) ?? "").split(separator: ",").map {
                    $0.trimmingCharacters(in: .whitespaces)
                }.filter { !$0.isEmpty }
            )
        }
    }

    /// `planObjects` for the records changed since the target's last publish: their
    /// objects now are merged into the blocks of the target's objects they fall in (a
    /// record's objects all lie in its own folder), and the other blocks are shared.
    private static func planChangedObjects(
        database: Database, target: PublishTarget, layout: Layout, tokens: Bool,
        base: IncrementalBase, baseObjects: Int, heldBack: HeldBack?,
        summary: inout PublishPlanSummary,
        addStep: (PublishStepKind, String?, String?, [UInt8]?) throws -> Void
    ) throws {
        let store = PublishStore(database)
        let index = try store.index(.objects, target: target.name, planned: false)
        var gone: [String] = []
        summary.objects = baseObjects
        try StoragePlan.mergeChangedObjects(
            layout: layout, tokens: tokens, bucket: target.bucket, since: base.seq,
            keys: base.keys, skipping: heldBack?.objectFolders ?? [], into: index,
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

/// Whether the other targets that publish to a target's bucket hold (or are about to
/// hold) an object, asked in path order: a refresh names an object under the layout's
/// prefix only when no target holds it.
struct OtherHolders {
    private var readers: [PlannedObjectReader] = []

    /// - Throws: `SQLiteError`, `StoragePlanError.damaged`.
    init(target: PublishTarget, database: Database) throws {
        for other in try PublishStore(database).targets(
            inBucket: target.bucket, besides: target.name)
        {
            for planned in [false, true] {
                readers.append(
                    try PublishState.objects(target: other, planned: planned, database: database))
            }
        }
    }

    /// Whether any of them holds `path`; paths must be asked in increasing order.
    mutating func hold(_ path: [UInt8]) throws -> Bool {
        var found = false
        for index in readers.indices {
            while !readers[index].isAtEnd
                && StoragePlan.compareBytes(readers[index].path, path) < 0
            {
                try readers[index].advance()
            }
            if !readers[index].isAtEnd && readers[index].path == path { found = true }
        }
        return found
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
