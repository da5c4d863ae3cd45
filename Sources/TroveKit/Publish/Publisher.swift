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
    /// changed since.
    ///
    /// - Parameters:
    ///   - images: the folder `trove images` wrote the renditions to.
    ///   - held: what the target's database really holds (`--against`), instead of its
    ///     recorded state.
    /// - Throws: `PublishError`, `ExportError`, `WorkspaceError`, `SQLiteError`.
    public func publish(
        target name: String?, layout: Layout, images: String, now: Date = Date(),
        against live: LiveTree? = nil
    ) throws -> PublishResult {
        let target = try PublishTargets.find(name, in: workspace)
        let lock = try PublishLock(workspace: workspace)
        defer { lock.release() }
        var result = PublishResult(target: target.name, plan: PublishPlanSummary())
        if let pending = try Self.pendingSummary(target: target.name, in: workspace) {
            try apply(target)
            try finish(target, now: now)
            result.resumed = pending
        }
        result.plan = try workspace.write {
            try PublishPlanner.plan(
                workspace: workspace, target: target, layout: layout, images: images, now: now,
                live: live)
        }
        if !result.plan.isEmpty { try apply(target) }
        // A first publish is recorded even when the database already held the tree.
        try finish(target, now: now, changed: !result.plan.isEmpty || target.publishedAt == nil)
        return result
    }

    /// What `publish` would do, with the paths and objects; nothing changes.
    ///
    /// - Throws: `PublishError`, `ExportError`, `WorkspaceError`, `SQLiteError`.
    public static func dryRun(
        workspace: Workspace, target name: String?, layout: Layout, images: String,
        now: Date = Date(), against live: LiveTree? = nil
    ) throws -> PublishResult {
        let target = try PublishTargets.find(name, in: workspace)
        var result = PublishResult(target: target.name, plan: PublishPlanSummary())
        let rollback = DryRun()
        do {
            try workspace.write {
                var detail = PublishPlanDetail()
                if let pending = try pendingSummary(target: target.name, in: workspace) {
                    // As the real run does: the interrupted plan completes first.
                    result.resumed = pending
                    detail = try PublishPlanner.detail(
                        target: target.name, database: workspace.database)
                    try record(target, workspace: workspace, now: now)
                }
                result.plan = try PublishPlanner.plan(
                    workspace: workspace, target: target, layout: layout, images: images,
                    now: now, live: live)
                let fresh = try PublishPlanner.detail(
                    target: target.name, database: workspace.database)
                detail.set += fresh.set
                detail.removed += fresh.removed
                detail.uploads += fresh.uploads
                detail.retokens += fresh.retokens
                detail.deletes += fresh.deletes
                result.detail = detail
                throw rollback
            }
        } catch let error as DryRun where error === rollback {}
        return result
    }

    private final class DryRun: Error {}

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
    private func apply(_ target: PublishTarget) throws {
        let store = PublishStore(workspace.database)
        let images = try store.planImages(target: target.name) ?? ""
        try eachBatch(.upload, target) { steps, done in
            let objects = steps.map { step in
                StorageUpload(
                    name: step.name, file: (images as NSString).appendingPathComponent(step.name),
                    contentType: Self.contentType(of: step.name),
                    cacheControl: StoragePlan.cacheControl, token: step.token)
            }
            try storage.upload(objects, bucket: target.bucket, done: done)
        }
        try eachBatch(.token, target) { steps, done in
            try storage.setTokens(
                steps.map { (name: $0.name, token: $0.token) }, bucket: target.bucket, done: done
            )
        }
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
        try eachBatch(.revoke, target) { steps, done in
            try storage.setTokens(
                steps.map { (name: $0.name, token: $0.token) }, bucket: target.bucket, done: done
            )
        }
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
