import Foundation
import TroveSQLite

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
        let database = workspace.database
        let rows = try database.query(
            "SELECT paths, objects, changed, removed FROM publish_plans WHERE target = ?",
            [.text(target)]
        ) { row in
            var summary = PublishPlanSummary()
            summary.paths = Int(row.int64(0) ?? 0)
            summary.objects = Int(row.int64(1) ?? 0)
            summary.changed = Int(row.int64(2) ?? 0)
            summary.removed = Int(row.int64(3) ?? 0)
            return summary
        }
        guard var summary = rows.first else { return nil }
        for (kind, count) in try database.query(
            """
            SELECT kind, count(*) FROM publish_steps WHERE target = ? AND done = 0
            GROUP BY kind
            """, [.text(target)], { ($0.text(0) ?? "", Int($0.int64(1) ?? 0)) })
        {
            switch PublishPlanner.StepKind(rawValue: kind) {
            case .upload: summary.uploads = count
            case .token: summary.retokens = count
            case .update: summary.requests = count
            case .delete: summary.deletes = count
            case .revoke, nil: break
            }
        }
        return summary
    }

    // MARK: - Applying

    /// Runs the recorded plan's steps not done yet, in order, marking each done.
    private func apply(_ target: PublishTarget) throws {
        let images =
            try workspace.database.scalar(
                "SELECT images FROM publish_plans WHERE target = ?", [.text(target.name)])?
            .string ?? ""
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
        let requests = try workspace.database.query(
            """
            SELECT seq FROM publish_steps WHERE target = ? AND kind = 'update' AND done = 0
            ORDER BY seq
            """, [.text(target.name)]
        ) { $0.int64(0) ?? 0 }
        for (index, seq) in requests.enumerated() {
            let body =
                try workspace.database.query(
                    "SELECT body FROM publish_steps WHERE target = ? AND seq = ?",
                    [.text(target.name), .integer(seq)]
                ) { $0.blob(0) ?? [] }.first ?? []
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
        let shares = try database.scalar(
            "SELECT 1 FROM publish_targets WHERE bucket = ? AND name <> ? LIMIT 1",
            [.text(target.bucket), .text(target.name)])
        guard shares != nil else { return }
        let steps = try database.query(
            """
            SELECT seq, name FROM publish_steps
            WHERE target = ? AND kind = 'delete' AND done = 0 ORDER BY seq
            """, [.text(target.name)]
        ) { (seq: $0.int64(0) ?? 0, name: $0.text(1) ?? "") }
        let unshared = Set(
            try PublishPlanner.unshared(steps.map(\.name), target: target, database: database))
        for step in steps where !unshared.contains(step.name) {
            try markDone(target.name, step.seq)
        }
    }

    private struct Step {
        var seq: Int64
        var name: String
        var token: String?
    }

    /// Hands the object steps of `kind` not done yet to `send` a batch at a time, and
    /// marks each done as the transport reports it.
    private func eachBatch(
        _ kind: PublishPlanner.StepKind, _ target: PublishTarget,
        send: ([Step], (String) -> Void) throws -> Void
    ) throws {
        var after = kind.base - 1
        let end = kind.base + (Int64(1) << 40)
        while true {
            let steps = try workspace.database.query(
                """
                SELECT seq, name, token FROM publish_steps
                WHERE target = ? AND seq > ? AND seq < ? AND done = 0 ORDER BY seq LIMIT ?
                """,
                [.text(target.name), .integer(after), .integer(end), .integer(Int64(batchSize))]
            ) { Step(seq: $0.int64(0) ?? 0, name: $0.text(1) ?? "", token: $0.text(2)) }
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
            _ = try workspace.database.execute(
                "UPDATE publish_steps SET done = 1 WHERE target = ? AND seq = ?",
                [.text(target), .integer(seq)])
        }
    }

    /// Records the plan as what the target holds, once every step is done.
    private func finish(_ target: PublishTarget, now: Date, changed: Bool = true) throws {
        try workspace.write {
            let left =
                try workspace.database.scalar(
                    "SELECT count(*) FROM publish_steps WHERE target = ? AND done = 0",
                    [.text(target.name)])?.int64 ?? 0
            // A step a transport skipped without reporting it done or failing.
            if left > 0 {
                throw PublishError.transfer(
                    "\(left) step\(left == 1 ? " was" : "s were") not confirmed",
                    step: "publish to \(target.name)")
            }
            if changed {
                try Self.record(target, workspace: workspace, now: now)
            } else {
                try PublishState.promotePlanned(target: target.name, database: workspace.database)
                try workspace.database.execute(
                    "DELETE FROM publish_plans WHERE target = ?", [.text(target.name)])
            }
        }
    }

    /// Makes the plan's state the target's, logs it and drops the plan (in the caller's
    /// transaction).
    private static func record(_ target: PublishTarget, workspace: Workspace, now: Date) throws {
        let database = workspace.database
        let name = SQLiteValue.text(target.name)
        let counts = try database.query(
            """
            SELECT p.paths, p.changed, p.removed,
                (SELECT count(*) FROM publish_steps WHERE target = p.target AND kind = 'upload'),
                (SELECT count(*) FROM publish_steps WHERE target = p.target AND kind = 'token'),
                (SELECT count(*) FROM publish_steps WHERE target = p.target AND kind = 'delete')
            FROM publish_plans AS p WHERE p.target = ?
            """, [name]
        ) { row in (0..<6).map { SQLiteValue.integer(row.int64($0) ?? 0) } }.first
        try PublishState.promotePlanned(target: target.name, database: database)
        let at = SQLiteValue.text(timestamp(now))
        if let counts {
            try database.execute(
                """
                INSERT INTO publish_log
                    (target, at, kind, paths, changed, removed, uploaded, retokened, deleted)
                VALUES (?, ?, 'publish', ?, ?, ?, ?, ?, ?)
                """, [name, at] + counts)
        }
        try database.execute(
            "UPDATE publish_targets SET published_at = ? WHERE name = ?", [at, name])
        try database.execute("DELETE FROM publish_plans WHERE target = ?", [name])
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
    init(workspace: Workspace) throws {
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

    func release() {
        guard descriptor >= 0 else { return }
        Foundation.close(descriptor)
        descriptor = -1
    }

    deinit { release() }
}
