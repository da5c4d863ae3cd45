import Foundation
import TroveBase
import TroveStore

/// What asking to undo a decision did.
public enum UndoOutcome: Equatable, Sendable {
    /// Undone: an undo entry for each post of the action, each back where it was before.
    /// `kept` are the action's posts left as they are, decided or changed since.
    case undone([Decision], kept: [String])
    /// No such post.
    case unknown(id: String)
    /// Nothing on record to undo on this post.
    case nothing(id: String)
    /// The latest entry on the post is already an undo: a repeated undo (its first answer
    /// lost on the way) changes nothing.
    case alreadyUndone(id: String, last: Decision)
    /// Someone else decided the post since, or its user or an import changed it (`last`):
    /// nothing undone.
    case overtaken(id: String, last: Decision)
    /// The post is not where the decision to undo left it (another status, or another
    /// version: it changed since): nothing undone.
    case changed(id: String, last: Decision)
}

/// One action a moderator can still undo: a decision, or a bulk decision whole.
public struct UndoableAction: Equatable, Sendable {
    /// The action (its first entry's seq).
    public var action: Int64
    /// When it was made.
    public var at: String
    /// Its posts still where it left them: id, the version decided on, the status it left.
    public var posts: [(id: String, version: String?, status: PostStatus)]

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.action == rhs.action && lhs.at == rhs.at
            && lhs.posts.map(\.id) == rhs.posts.map(\.id)
            && lhs.posts.map(\.version) == rhs.posts.map(\.version)
            && lhs.posts.map(\.status) == rhs.posts.map(\.status)
    }
}

/// Undo is a decision of its own on the trail (kind `undo`, naming the action it undid),
/// recorded in the workspace, so it works from every front end and after a reload: the
/// terminal queue's `u`, `review undo ID`, the served page. A moderator undoes their own
/// decision while it is still the latest entry on the post and the post is where it left
/// it (same status, same version); the undo of a decision that was part of a bulk action
/// undoes the whole action, each post on which that still holds. An undo is not undone.
extension Moderation {
    /// Undoes `moderator`'s latest decision on post `id`, or the whole action it belongs
    /// to. `version` and `expected` are the version the decision was made on and the
    /// status it left the post in, as the front end knows them (nil: not checked): a post
    /// no longer there is refused, so a repeated undo does not undo the undo.
    ///
    /// - Throws: `WorkspaceError` when the workspace stays locked, or `SQLiteError`.
    public func undo(
        post id: String, moderator: String, version: String? = nil, expected: PostStatus? = nil,
        now: Date = Date()
    ) throws -> UndoOutcome {
        let at = timestamp(now)
        return try workspace.write {
            let store = PostStore(workspace)
            let statements = try PostStore.DecisionStatements(store)
            guard let current = try statements.current(id), current.status != nil else {
                return .unknown(id: id)
            }
            guard let last = try store.latestEntry(on: id), let action = last.action else {
                return .nothing(id: id)
            }
            if last.kind == .undo, last.moderator == moderator {
                return .alreadyUndone(id: id, last: last)
            }
            guard last.kind == .decision, last.moderator == moderator else {
                return .overtaken(id: id, last: last)
            }
            if let expected, expected != last.to { return .changed(id: id, last: last) }
            if let version, version != last.version { return .changed(id: id, last: last) }
            if current.status != last.to || current.version != last.version {
                return .changed(id: id, last: last)
            }
            var undone: [Decision] = []
            var kept: [String] = []
            var first: Int64?
            for entry in try store.entries(ofAction: action) {
                guard let seq = entry.seq, try store.latestEntry(on: entry.postID)?.seq == seq,
                    let now = try statements.current(entry.postID), now.status == entry.to,
                    now.version == entry.version
                else {
                    kept.append(entry.postID)
                    continue
                }
                // Back to the status and note the post had before the decision.
                let before = try store.entry(on: entry.postID, before: seq)
                let note = before?.to == entry.from ? before?.note : nil
                // And to the boxes it was published with then.
                let redaction = before?.to == entry.from ? before?.redaction : nil
                guard
                    let version = try statements.move(
                        entry.postID, from: entry.to, to: entry.from, note: note, at: at,
                        version: now.version, redaction: redaction, contentHash: now.contentHash)
                else {
                    kept.append(entry.postID)
                    continue
                }
                workspace.markChanged(.post, entry.postID)
                let recorded = try statements.trail.append(
                    Decision(
                        postID: entry.postID, at: at, kind: .undo, moderator: moderator,
                        from: entry.to, to: entry.from, version: version, batch: first,
                        undoes: action, redaction: redaction))
                if first == nil { first = recorded.seq }
                undone.append(recorded)
            }
            return .undone(undone, kept: kept)
        }
    }

    /// `moderator`'s latest actions (up to `limit`, newest first) they can still undo,
    /// each with its posts still where it left them.
    ///
    /// - Throws: `SQLiteError`.
    public func undoable(by moderator: String, limit: Int = 20) throws -> [UndoableAction] {
        let standing = try PostStore(workspace).standingDecisions(
            by: moderator, limit: max(limit, 1) * 10)
        var actions: [UndoableAction] = []
        var index: [Int64: Int] = [:]
        for entry in standing {
            guard let action = entry.action else { continue }
            if let found = index[action] {
                actions[found].posts.insert((entry.postID, entry.version, entry.to), at: 0)
                continue
            }
            guard actions.count < limit else { continue }
            index[action] = actions.count
            actions.append(
                UndoableAction(
                    action: action, at: entry.at, posts: [(entry.postID, entry.version, entry.to)]))
        }
        return actions
    }
}
