import Foundation
import TroveBase
import TroveImaging
import TroveStore

/// Records moderators' decisions with the conflict rule of SPEC §6.3 and §6.4.
///
/// A decision is refused when the post changed since the moderator saw it (its version),
/// whatever force says; when it is no longer in the state the moderator saw, or when
/// approving, rejecting or flagging a post someone else already decided otherwise, unless
/// forced. A decision equal to the one recorded (by anyone) changes nothing. A moderator
/// may change their own latest decision without force. Approving a post whose photo could
/// not be read needs a confirmation. A withdrawn post takes no decision.
/// The check is made again inside the `BEGIN IMMEDIATE` transaction and the update is
/// conditional on the state (`WHERE id = ? AND status = ?`), so of two moderators
/// deciding the same post at once exactly one wins and the trail holds one entry.
public struct Moderation {
    let workspace: Workspace

    /// Works on `workspace`.
    public init(workspace: Workspace) {
        self.workspace = workspace
    }

    /// The current status and version of each post (missing ids are left out): what a
    /// moderator deciding now sees.
    ///
    /// - Throws: `SQLiteError`.
    public func current(_ ids: [String]) throws -> [String: (status: PostStatus, version: String)] {
        try PostStore(workspace).current(ids)
    }

    /// One decision on one post, made on `version` (nil: the current one) of the post as
    /// the moderator saw it in `expected` (nil: its current status): the race-safe path
    /// every front end (the CLI, the queue, sheets, a server) takes.
    ///
    /// - Throws: `WorkspaceError` when the workspace stays locked, or `SQLiteError`.
    public func decide(
        post id: String, version: String?, action: ReviewAction, moderator: String,
        expected: PostStatus? = nil, note: String? = nil, confirmed: Bool = false,
        force: Bool = false, redaction: [RedactionBox] = [], now: Date = Date()
    ) throws -> DecisionOutcome {
        var request = DecisionRequest(
            id: id, expected: expected, action: action, note: note, confirmed: confirmed,
            version: version)
        request.redaction = redaction
        return try decide([request], moderator: moderator, force: force, now: now)[0]
    }

    /// The current status of each post (missing ids are left out).
    ///
    /// - Throws: `SQLiteError`.
    public func statuses(_ ids: [String]) throws -> [String: PostStatus] {
        try PostStore(workspace).statuses(ids)
    }

    /// Records the requests in one transaction; each is checked on its own.
    ///
    /// - Throws: `WorkspaceError` when the workspace stays locked, or `SQLiteError`.
    ///
    /// - Parameters:
    ///   - appliedBy: who records the decisions when that is not `moderator`
    ///     (`review apply` of another moderator's sheet).
    ///   - oneAction: the decisions recorded make one action (a bulk decision): each
    ///     entry after the first names the first as its `batch`, and an undo of any of
    ///     them undoes them all.
    public func decide(
        _ requests: [DecisionRequest], moderator: String, appliedBy: String? = nil,
        force: Bool, oneAction: Bool = false, now: Date = Date()
    ) throws -> [DecisionOutcome] {
        let at = timestamp(now)
        let appliedBy = appliedBy == moderator ? nil : appliedBy
        return try workspace.write {
            let store = try PostStore.DecisionStatements(PostStore(workspace))
            var outcomes: [DecisionOutcome] = []
            var first: Int64?
            for request in requests {
                let row = try store.current(request.id)
                let current = row?.status
                let version = row?.version ?? ""
                let redaction =
                    request.action.target == .approved
                    ? RedactionBox.canonical(request.redaction) : nil
                guard let current else {
                    outcomes.append(.unknown(id: request.id))
                    continue
                }
                if let refused = try refusal(
                    of: request, current: current, row: row, redaction: redaction,
                    moderator: moderator, force: force, store: store)
                {
                    outcomes.append(refused)
                    continue
                }
                let expected = request.expected ?? current
                let target = request.action.target
                var reason: String?
                if case .reject(let why) = request.action { reason = why.rawValue }
                let note = request.note
                let moved = try store.move(
                    request.id, from: current, to: target, note: note, at: at, version: version,
                    redaction: redaction, contentHash: row?.contentHash ?? "")
                guard let moved else {
                    // Cannot happen inside the write lock, but never record a lost race.
                    outcomes.append(
                        .conflict(
                            id: request.id, expected: expected, current: current,
                            last: try lastDecision(request.id)))
                    continue
                }
                workspace.markChanged(.post, request.id)
                let decision = Decision(
                    postID: request.id, at: at, moderator: moderator, from: current,
                    to: target, reason: reason, note: note, appliedBy: appliedBy,
                    sheet: request.sheet, decidedAt: request.decidedAt, version: moved,
                    batch: oneAction ? first : nil, redaction: redaction)
                let recorded = try store.trail.append(decision)
                if oneAction, first == nil { first = recorded.seq }
                outcomes.append(.recorded(recorded))
            }
            return outcomes
        }
    }

    /// Why `request` is not recorded, as its outcome: a sheet applied already, a withdrawn
    /// post, a stale view, the same decision again, a conflict, or a photo to confirm; nil
    /// when it may be recorded.
    private func refusal(
        of request: DecisionRequest, current: PostStatus,
        row: PostStore.DecisionStatements.Current?, redaction: String?, moderator: String,
        force: Bool, store: PostStore.DecisionStatements
    ) throws -> DecisionOutcome? {
        let signalNames = row?.signalNames ?? ""
        let version = row?.version ?? ""
        let statusNote = row?.statusNote
        if let sheet = request.sheet, let decidedAt = request.decidedAt {
            if try store.isApplied(sheet: sheet, post: request.id, decidedAt: decidedAt) {
                return .alreadyApplied(id: request.id)
            }
        }
        if current == .withdrawn {
            return .withdrawn(id: request.id, note: statusNote)
        }
        let last = try lastDecision(request.id)
        if let seen = request.version, seen != version {
            if let last, last.version == version, last.to == current, current != .pending {
                return .superseded(id: request.id, seen: seen, last: last)
            } else {
                return .stale(id: request.id, seen: seen, current: version)
            }
        }
        let expected = request.expected ?? current
        let target = request.action.target
        var reason: String?
        if case .reject(let why) = request.action { reason = why.rawValue }
        let note = request.note
        // The post is where this moderator's own latest decision put it.
        let own =
            last.map { $0.moderator == moderator && $0.to == current } ?? false
        var repeatsRecord = false
        if let last, last.to == current, current == target, last.reason == reason {
            switch request.action {
            case .approve, .reject, .flag: repeatsRecord = true
            case .reopen: repeatsRecord = false
            }
        }
        // The same decision again changes nothing, whoever recorded it; only its
        // own author may restate it with another note.
        if repeatsRecord, let last, last.redaction != redaction {
            repeatsRecord = false
        }
        if repeatsRecord, let last, !own || note == nil || note == last.note {
            return .alreadyDecided(id: request.id, status: current, last: last)
        }
        if !force && !own
            && (current != expected || !request.action.allowedFrom.contains(current))
        {
            if current == target, case .reopen = request.action {
                return .unchanged(id: request.id, status: current)
            }
            return .conflict(id: request.id, expected: expected, current: current, last: last)
        }
        if !force, !request.confirmed, case .approve = request.action,
            signalNames.split(separator: ",").contains(
                Substring(SignalName.photoUnreadable.rawValue))
        {
            let detail =
                try signals(request.id).first { $0.name == .photoUnreadable }?.detail
            return .needsConfirmation(id: request.id, detail: detail ?? "unreadable")
        }
        return nil
    }

    /// The most recent decision on a post.
    ///
    /// - Throws: `SQLiteError`.
    public func lastDecision(_ id: String) throws -> Decision? {
        try AuditTrail(workspace: workspace).entries(for: id).last
    }

    /// A post's signals with their details.
    func signals(_ id: String) throws -> [Signal] {
        try PostStore(workspace).signals(id)
    }
}

extension Workspace {
    /// This workspace's own id, made once when the workspace was created or migrated:
    /// review sheets carry it so their decisions are applied only here.
    ///
    /// - Throws: `SQLiteError`.
    public func identifier() throws -> String {
        try PostStore(self).workspaceIdentifier()
    }
}
