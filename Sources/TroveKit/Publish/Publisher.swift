import Foundation
import TroveBase
import TroveStore

/// What one `trove publish` did.
public struct PublishResult: Equatable, Sendable {
    public var target: String
    /// The interrupted publish this run completed first, with what was left of it.
    public var resumed: PublishPlanSummary?
    /// The plan of the changes since, as applied (or as it would be, for a dry run).
    public var plan: PublishPlanSummary
    /// The plan's paths and objects, for a dry run's JSON.
    public var detail: PublishPlanDetail?
    /// What `--refresh` found where the target differs from its record.
    public var refresh: RefreshReport?
    /// Records whose renditions were missing and that the publish rendered (a dry run:
    /// would render first).
    public var rendered: [PublishedRecord] = []
    /// Records left out of this publish, and why: their renditions are missing and cannot
    /// be made. The target keeps what it holds of them; the next publish tries again.
    public var leftOut: [LeftOutRecord] = []
}

/// What a publish has reached, for its command to say as it goes.
public enum PublishProgress: Sendable {
    /// A refresh read the target: paths of its database, objects of its bucket.
    case read(paths: Int, objects: Int)
    /// The plan is recorded, with what it found; its steps are sent next.
    case planned(PublishResult)
}

/// A treasure or post named in a publish's result.
public struct PublishedRecord: Equatable, Sendable {
    public var kind: RenditionOwner
    public var key: String
}

/// A record a publish left out, and why.
public struct LeftOutRecord: Equatable, Sendable {
    public var kind: RenditionOwner
    public var key: String
    public var reason: String
}

/// How a publish runs, beyond its target.
public struct PublishOptions {
    /// The folder `trove images` writes the renditions to; uploads read from it, and the
    /// renditions a publish makes go there.
    public var images: String
    /// Plan against this `firebase database:get /` download instead of the record.
    public var against: LiveTree?
    /// Read what the target's database and bucket hold, and repair what differs.
    public var refresh = false
    /// Where a refresh keeps what it reads while it runs (`TMPDIR`).
    public var scratchFolder = "/tmp"
    /// How records whose renditions are missing are rendered; nil leaves them out.
    public var renditions: Renditions.Options?
    public var now = Date()
    /// Told what the publish reached, as it reaches it.
    public var progress: ((PublishProgress) -> Void)?

    public init(images: String) {
        self.images = images
    }
}

/// Publishes a workspace's tree to a target through two transports, and records what
/// the target holds.
///
/// The plan is computed and recorded in one short write transaction; then each step is
/// sent and marked done in a transaction of its own, so other commands work meanwhile
/// (what they change goes to the next publish) and a run stopped anywhere resumes after
/// the last step it recorded. Objects are uploaded first and deleted last, so the tree
/// never names an object the bucket lacks; the target's state moves only when every step
/// is done.
///
/// What is ready is published: a record whose renditions are missing is rendered first
/// (`options.renditions`), and one whose renditions cannot be made is left out, named,
/// with what the target holds of it kept.
public struct Publisher {
    public let workspace: Workspace
    public let storage: any StorageTransport
    public let database: any DatabaseTransport
    /// How many objects one transport call is handed.
    var batchSize = 1000

    public init(
        workspace: Workspace, storage: any StorageTransport, database: any DatabaseTransport
    ) {
        self.workspace = workspace
        self.storage = storage
        self.database = database
    }

    /// Completes the target's interrupted publish, if any, then plans and applies what
    /// changed since (or, with `options.refresh`, what differs from what the target
    /// really holds).
    ///
    /// - Throws: `PublishError`, `ExportError`, `WorkspaceError`, `SQLiteError`,
    ///   `TransportError` when a refresh cannot read the target.
    public func publish(target name: String?, layout: Layout, options: PublishOptions) throws
        -> PublishResult
    {
        let target = try PublishTargets.find(name, in: workspace)
        let lock = try PublishLock(workspace: workspace)
        defer { lock.release() }
        var result = PublishResult(target: target.name, plan: PublishPlanSummary())
        if let pending = try Self.pendingSummary(target: target.name, in: workspace) {
            try apply(target, renditions: options.renditions)
            try finish(target, now: options.now)
            result.resumed = pending
        }
        let live = try options.refresh ? read(target, layout: layout, options: options) : nil
        defer { live?.close() }
        if let live { options.progress?(.read(paths: live.paths, objects: live.objects)) }
        let outcome = try plan(target, layout: layout, options: options, live: live, into: &result)
        result.plan = outcome.summary
        result.refresh = outcome.refresh
        options.progress?(.planned(result))
        if !result.plan.isEmpty { try apply(target, renditions: options.renditions) }
        // A first publish is recorded even when the database already held the tree.
        try finish(
            target, now: options.now, changed: !result.plan.isEmpty || target.publishedAt == nil)
        return result
    }

    /// What `publish` would do, with the paths and objects; nothing changes in the
    /// workspace, the database or the bucket (a refresh only reads them), and no
    /// rendition is made: records lacking theirs are named as those the publish renders.
    ///
    /// - Throws: `PublishError`, `ExportError`, `WorkspaceError`, `SQLiteError`,
    ///   `TransportError` when a refresh cannot read the target.
    public func dryRun(target name: String?, layout: Layout, options: PublishOptions) throws
        -> PublishResult
    {
        var options = options
        options.renditions = nil
        let target = try PublishTargets.find(name, in: workspace)
        let live = try options.refresh ? read(target, layout: layout, options: options) : nil
        defer { live?.close() }
        if let live { options.progress?(.read(paths: live.paths, objects: live.objects)) }
        return try Self.dryRun(
            workspace: workspace, target: target, layout: layout, options: options, live: live)
    }

    /// `dryRun` without transports: no refresh.
    ///
    /// - Throws: `PublishError`, `ExportError`, `WorkspaceError`, `SQLiteError`.
    public static func dryRun(
        workspace: Workspace, target name: String?, layout: Layout, options: PublishOptions
    ) throws -> PublishResult {
        var options = options
        options.renditions = nil
        options.refresh = false
        let target = try PublishTargets.find(name, in: workspace)
        return try dryRun(
            workspace: workspace, target: target, layout: layout, options: options, live: nil)
    }

    /// What the target would hold if its unpublished changes were published, in counts;
    /// nothing is read from outside, no file is checked and nothing changes.
    ///
    /// - Throws: `PublishError`, `ExportError`, `WorkspaceError`, `SQLiteError`.
    public static func unpublished(workspace: Workspace, target: PublishTarget, layout: Layout)
        throws -> PublishResult
    {
        var options = PublishOptions(images: "")
        options.renditions = nil
        return try dryRun(
            workspace: workspace, target: target, layout: layout, options: options, live: nil,
            checksFiles: false)
    }

    private static func dryRun(
        workspace: Workspace, target: PublishTarget, layout: Layout, options: PublishOptions,
        live: LiveTarget?, checksFiles: Bool = true
    ) throws -> PublishResult {
        var result = PublishResult(target: target.name, plan: PublishPlanSummary())
        let publisher = Publisher(
            workspace: workspace, storage: NoTransport(), database: NoTransport())
        var detail = PublishPlanDetail()
        if let pending = try pendingSummary(target: target.name, in: workspace) {
            result.resumed = pending
            try workspace.read {
                detail = try PublishPlanner.detail(
                    target: target.name, database: workspace.database)
            }
        }
        let interrupted = result.resumed != nil
        let outcome = try publisher.plan(
            target, layout: layout, options: options, live: live, into: &result,
            dryRun: true, checksFiles: checksFiles,
            before: {
                // As the real run does: the interrupted plan completes first.
                if interrupted { try record(target, workspace: workspace, now: options.now) }
            },
            inPlan: {
                let fresh = try PublishPlanner.detail(
                    target: target.name, database: workspace.database)
                detail.set += fresh.set
                detail.removed += fresh.removed
                detail.uploads += fresh.uploads
                detail.retokens += fresh.retokens
                detail.deletes += fresh.deletes
            })
        result.plan = outcome.summary
        result.refresh = outcome.refresh
        result.detail = detail
        return result
    }

    // MARK: - Reading and planning

    /// Reads what the target's database and bucket hold.
    private func read(_ target: PublishTarget, layout: Layout, options: PublishOptions) throws
        -> LiveTarget
    {
        do {
            return try LiveTarget(
                target: target, layout: layout, workspace: workspace, storage: storage,
                database: database, folder: options.scratchFolder)
        } catch let error as TransportError {
            throw PublishError.unreadable(
                "cannot refresh \(target.name): \(error.description); nothing was planned or sent")
        }
    }

    /// Makes the plan: renders what records lack first (unless a dry run), leaves out
    /// those that stay without, and plans again while files to upload are missing and can
    /// be made. A dry run's plan is made and rolled back, `inPlan` reading it first.
    private func plan(
        _ target: PublishTarget, layout: Layout, options: PublishOptions, live: LiveTarget?,
        into result: inout PublishResult, dryRun: Bool = false, checksFiles: Bool = true,
        before: () throws -> Void = {}, inPlan: () throws -> Void = {}
    ) throws -> PublishPlanner.Outcome {
        var readiness = try ready(target, layout: layout, options: options, live: live)
        var missingFilesSeen: Set<String> = []
        while true {
            var inputs = PublishPlanner.Inputs()
            inputs.against = options.against
            inputs.refresh = live
            inputs.heldBack = HeldBack(readiness.leftOut, layout: layout)
            inputs.checksFiles = checksFiles
            do {
                let rollback = DryRun()
                var outcome: PublishPlanner.Outcome?
                do {
                    try workspace.write {
                        try before()
                        outcome = try PublishPlanner.plan(
                            workspace: workspace, target: target, layout: layout,
                            images: options.images, now: options.now, inputs: inputs)
                        if dryRun {
                            try inPlan()
                            throw rollback
                        }
                    }
                } catch let error as DryRun where error === rollback {}
                result.rendered = readiness.rendered
                result.leftOut = readiness.leftOut.map {
                    LeftOutRecord(kind: $0.kind, key: $0.key, reason: $0.reason)
                }
                return outcome!
            } catch PublishError.missingFiles(let names, let folder) {
                // Renditions recorded whose files are not in the folder: made again, or
                // their records left out.
                let store = RenditionStore(workspace)
                let owners = try store.owners(ofPaths: names).filter {
                    missingFilesSeen.insert("\($0.kind.rawValue)/\($0.key)").inserted
                }
                guard !owners.isEmpty else {
                    throw PublishError.missingFiles(names, folder: folder)
                }
                if let renditions = options.renditions {
                    _ = try Renditions.make(workspace, for: owners, options: renditions)
                }
                for owner in owners {
                    let record = PublishedRecord(kind: owner.kind, key: owner.key)
                    if options.renditions == nil {
                        // A dry run: the publish would make them first.
                        readiness.rendered.append(record)
                        readiness.leftOut.append(
                            HeldBack.Record(kind: owner.kind, key: owner.key, reason: ""))
                    } else if try filesPresent(owner.kind, owner.key, folder: folder) {
                        readiness.rendered.append(record)
                    } else {
                        readiness.leftOut.append(
                            HeldBack.Record(
                                kind: owner.kind, key: owner.key,
                                reason: try reason(owner.kind, owner.key, folder: folder)))
                    }
                }
            }
        }
    }

    /// Whether every rendition recorded for a record has its file in `folder`.
    private func filesPresent(_ kind: RenditionOwner, _ key: String, folder: String) throws
        -> Bool
    {
        try RenditionStore(workspace).renditions(of: kind, key).allSatisfy {
            access((folder as NSString).appendingPathComponent($0.path), R_OK) == 0
        }
    }

    /// What stands between `layout`'s records and a plan: the records whose renditions are
    /// missing, rendered now (unless `options.renditions` is nil), and those still without
    /// them, left out.
    private func ready(
        _ target: PublishTarget, layout: Layout, options: PublishOptions, live: LiveTarget?
    ) throws -> Readiness {
        var readiness = Readiness()
        guard !layout.renditionNames.isEmpty else { return readiness }
        let kind: RenditionOwner = layout.records == .treasures ? .treasure : .post
        let store = RenditionStore(workspace)
        let keys = try workspace.read {
            try PublishPlanner.changedKeys(
                workspace: workspace, target: target, layout: layout,
                everything: live != nil || options.against != nil)
        }
        var lacking = try store.lackingRenditions(
            of: kind, names: layout.renditionNames, keys: keys)
        guard !lacking.isEmpty else { return readiness }
        if let renditions = options.renditions {
            _ = try Renditions.make(
                workspace, for: lacking.map { ($0.kind, $0.key) }, options: renditions)
            let still = Set(
                try store.lackingRenditions(
                    of: kind, names: layout.renditionNames, keys: lacking.map(\.key)
                ).map(\.key))
            readiness.rendered = lacking.filter { !still.contains($0.key) }.map {
                PublishedRecord(kind: kind, key: $0.key)
            }
            lacking.removeAll { !still.contains($0.key) }
            let configured = Set(
                (kind == .treasure ? renditions.treasureSpecs : renditions.postSpecs).map(\.name))
            let unconfigured = layout.renditionNames.filter { !configured.contains($0) }
            let reasons = try store.failureReasons(of: kind, keys: lacking.map(\.key))
            readiness.leftOut = lacking.map { record in
                var reason = reasons[record.key]
                if reason == nil, !unconfigured.isEmpty {
                    reason =
                        "the layout uses the rendition"
                        + (unconfigured.count == 1 ? " " : "s ")
                        + unconfigured.map { "'\($0)'" }.joined(separator: ", ")
                        + ", which renditions.\(kind.folder) does not make"
                }
                return HeldBack.Record(
                    kind: kind, key: record.key,
                    reason: reason ?? "\(record.source): no rendition could be made")
            }
        } else {
            // A dry run makes nothing: these are what the publish would render first.
            readiness.rendered = lacking.map { PublishedRecord(kind: kind, key: $0.key) }
            readiness.leftOut = lacking.map {
                HeldBack.Record(kind: kind, key: $0.key, reason: "")
            }
        }
        return readiness
    }

    /// Why a record's rendition files could not be made again.
    private func reason(_ kind: RenditionOwner, _ key: String, folder: String) throws -> String {
        let reasons = try RenditionStore(workspace).failureReasons(of: kind, keys: [key])
        if let reason = reasons[key] { return reason }
        return "its renditions are not in \(folder) and could not be made again"
    }

    /// What `ready` found.
    private struct Readiness {
        var rendered: [PublishedRecord] = []
        var leftOut: [HeldBack.Record] = []
    }

    private final class DryRun: Error {}

    /// The transports of a plan that is never applied.
    private struct NoTransport: StorageTransport, DatabaseTransport {
        func upload(_ objects: [StorageUpload], bucket: String, done: (String) -> Void) throws {
            throw TransportError("a dry run sends nothing")
        }
        func setTokens(
            _ tokens: [(name: String, token: String?)], bucket: String,
            done: (String) -> Void, missing: (String) -> Void
        ) throws { throw TransportError("a dry run sends nothing") }
        func delete(_ names: [String], bucket: String, done: (String) -> Void) throws {
            throw TransportError("a dry run sends nothing")
        }
        func list(prefix: String, bucket: String, page: ([StoredObject]) throws -> Void) throws {
            throw TransportError("a dry run reads nothing")
        }
        func update(_ body: [UInt8], databaseURL: String) throws {
            throw TransportError("a dry run sends nothing")
        }
        func read(_ read: DatabaseRead, databaseURL: String) throws -> [UInt8] {
            throw TransportError("a dry run reads nothing")
        }
    }

    /// The counts of the target's interrupted publish, with only its steps not done yet.
    ///
    /// - Throws: `SQLiteError`.
    public static func pendingSummary(target: String, in workspace: Workspace) throws
        -> PublishPlanSummary?
    {
        let store = PublishStore(workspace.database)
        guard var summary = try store.plan(target: target) else { return nil }
        for (kind, count) in try store.pendingStepCounts(target: target) {
            switch kind {
            case .upload: summary.uploads = count
            case .token: summary.retokens = count
            case .update: summary.requests = count
            case .delete: summary.deletes = count
            case .revoke: break
            }
        }
        return summary
    }

    // MARK: - Applying

    /// Runs the recorded plan's steps not done yet, in order, marking each done.
    ///
    /// - Parameter renditions: how a rendition whose file is missing is made again, when
    ///   an object a token step meets missing is uploaded anew.
    private func apply(_ target: PublishTarget, renditions: Renditions.Options?) throws {
        let store = PublishStore(workspace.database)
        let images = try store.planImages(target: target.name) ?? ""
        func upload(_ step: PublishStep) -> StorageUpload {
            StorageUpload(
                name: step.name, file: (images as NSString).appendingPathComponent(step.name),
                contentType: Self.contentType(of: step.name),
                cacheControl: StoragePlan.cacheControl, token: step.token)
        }
        /// Sets the steps' tokens; an object deleted behind trove's back is uploaded again
        /// with them, so that a rotation never waits on an object that is not there.
        func setTokens(_ steps: [PublishStep], done: (String) -> Void) throws {
            var byName: [String: PublishStep] = [:]
            for step in steps { byName[step.name] = step }
            var missing: [PublishStep] = []
            try storage.setTokens(
                steps.map { (name: $0.name, token: $0.token) }, bucket: target.bucket,
                done: done, missing: { name in if let step = byName[name] { missing.append(step) } }
            )
            guard !missing.isEmpty else { return }
            try makeFiles(missing.map(\.name), images: images, renditions: renditions)
            try storage.upload(missing.map(upload), bucket: target.bucket, done: done)
        }
        try eachBatch(.upload, target) { steps, done in
            try storage.upload(steps.map(upload), bucket: target.bucket, done: done)
        }
        try eachBatch(.token, target) { steps, done in try setTokens(steps, done: done) }
        let requests = try store.pendingSteps(target: target.name, kind: .update).map(\.seq)
        for (index, seq) in requests.enumerated() {
            let body = try store.stepBody(target: target.name, seq: seq) ?? []
            do {
                try database.update(body, databaseURL: target.databaseURL)
            } catch let error as TransportError {
                throw PublishError.transfer(
                    error.description,
                    step: "database request \(index + 1) of \(requests.count)")
            }
            try markDone(target.name, seq)
        }
        try keepShared(target)
        try eachBatch(.delete, target) { steps, done in
            try storage.delete(steps.map(\.name), bucket: target.bucket, done: done)
        }
        try eachBatch(.revoke, target) { steps, done in try setTokens(steps, done: done) }
    }

    /// Makes sure the files of `names` are in the images folder, rendering their records
    /// again where they are not.
    ///
    /// - Throws: `PublishError.missingFiles` for those that cannot be made.
    private func makeFiles(_ names: [String], images: String, renditions: Renditions.Options?)
        throws
    {
        func absent() -> [String] {
            names.filter { access((images as NSString).appendingPathComponent($0), R_OK) != 0 }
        }
        var missing = absent()
        guard !missing.isEmpty else { return }
        if var renditions {
            renditions.outputFolder = images
            let owners = try RenditionStore(workspace).owners(ofPaths: missing)
            _ = try Renditions.make(workspace, for: owners, options: renditions)
            missing = absent()
        }
        if !missing.isEmpty { throw PublishError.missingFiles(missing, folder: images) }
    }

    /// Marks done, unsent, the deletions of objects another target in the same bucket
    /// has come to hold since the plan was made (it may have published meanwhile, while
    /// this plan was interrupted).
    private func keepShared(_ target: PublishTarget) throws {
        let database = workspace.database
        let store = PublishStore(database)
        guard try store.sharesBucket(target.bucket, besides: target.name) else { return }
        let steps = try store.pendingSteps(target: target.name, kind: .delete)
        let unshared = Set(
            try PublishPlanner.unshared(steps.map(\.name), target: target, database: database))
        for step in steps where !unshared.contains(step.name) {
            try markDone(target.name, step.seq)
        }
    }

    /// Hands the object steps of `kind` not done yet to `send` a batch at a time, and
    /// marks each done as the transport reports it.
    private func eachBatch(
        _ kind: PublishStepKind, _ target: PublishTarget,
        send: ([PublishStep], (String) -> Void) throws -> Void
    ) throws {
        var after = kind.base - 1
        let end = kind.base + (Int64(1) << 40)
        while true {
            let steps = try PublishStore(workspace.database).pendingSteps(
                target: target.name, kind: kind, after: after, before: end, limit: batchSize)
            guard let last = steps.last else { return }
            after = last.seq
            var seqs: [String: Int64] = [:]
            for step in steps { seqs[step.name] = step.seq }
            var recordError: (any Error)?
            do {
                try send(steps) { name in
                    guard recordError == nil, let seq = seqs.removeValue(forKey: name) else {
                        return
                    }
                    do { try markDone(target.name, seq) } catch { recordError = error }
                }
            } catch let error as TransportError {
                if let recordError { throw recordError }
                let verb =
                    switch kind {
                    case .upload: "upload"
                    case .token: "token update"
                    case .delete: "delete"
                    case .revoke: "token revocation"
                    case .update: "database request"
                    }
                throw PublishError.transfer(
                    error.description, step: "Storage \(verb) to gs://\(target.bucket)")
            }
            if let recordError { throw recordError }
        }
    }

    private func markDone(_ target: String, _ seq: Int64) throws {
        try workspace.write { () -> Void in
            try PublishStore(workspace.database).markDone(target: target, seq: seq)
        }
    }

    /// Records the plan as what the target holds, once every step is done.
    private func finish(_ target: PublishTarget, now: Date, changed: Bool = true) throws {
        try workspace.write {
            let store = PublishStore(workspace.database)
            let left = try store.pendingStepCount(target: target.name)
            // A step a transport skipped without reporting it done or failing.
            if left > 0 {
                throw PublishError.transfer(
                    "\(left) step\(left == 1 ? " was" : "s were") not confirmed",
                    step: "publish to \(target.name)")
            }
            if changed {
                try Self.record(target, workspace: workspace, now: now)
            } else {
                try store.promotePlanned(target: target.name)
                try store.deletePlan(target: target.name)
            }
        }
    }

    /// Makes the plan's state the target's, logs it and drops the plan (in the caller's
    /// transaction).
    private static func record(_ target: PublishTarget, workspace: Workspace, now: Date) throws {
        let store = PublishStore(workspace.database)
        let at = timestamp(now)
        let entry = try store.completedPlanEntry(target: target.name, at: at)
        try store.promotePlanned(target: target.name)
        if let entry { try store.appendLog(entry) }
        try store.setPublishedAt(at, target: target.name)
        try store.deletePlan(target: target.name)
    }

    static func contentType(of name: String) -> String {
        var name = name
        return name.withUTF8 { String(decoding: StoragePlan.contentType(of: $0), as: UTF8.self) }
    }
}

/// Keeps two publishes from one workspace apart: each would take the other's plan for
/// an interrupted one. An advisory lock on `WORKSPACE-publish.lock`, which the system
/// drops with its holder however that ends, so a killed publish never blocks the next.
final class PublishLock {
    private var descriptor: Int32

    /// - Throws: `PublishError.busy` when another publish holds it, `FileWriteError`.
    package init(workspace: Workspace) throws {
        let path = workspace.path + "-publish.lock"
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw FileWriteError(path: path, errno: errno) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            Foundation.close(descriptor)
            descriptor = -1
            throw PublishError.busy(
                "another 'trove publish' is running on \(workspace.path); wait for it to end")
        }
    }

    package func release() {
        guard descriptor >= 0 else { return }
        Foundation.close(descriptor)
        descriptor = -1
    }

    deinit { release() }
}
