import Foundation
import TroveBase
import TroveStore

/// The append-only record of decisions (`review log`).
public struct AuditTrail {
    let workspace: Workspace

    /// Works on `workspace`.
    public init(workspace: Workspace) {
        self.workspace = workspace
    }

    /// Every decision, oldest first, for one post or all.
    ///
    /// - Throws: `SQLiteError`.
    public func entries(for id: String? = nil) throws -> [Decision] {
        try PostStore(workspace).decisions(for: id)
    }

    /// The trail as JSON: `[{"id","at","moderator","from","to","reason","note","kind",
    /// "by_user","seq","action","undoes","applied_by","decided_at","version"}]`.
    /// `moderator` is null for what users and imports did: `kind` says what each entry
    /// is (`decision`, `undo`, `withdrawal`, `restoration`, `reopening`), and `by_user`
    /// names the user who withdrew or restored a post. `action` is the `seq` of the first
    /// entry of the action an entry belongs to (a bulk decision's entries share it), and
    /// an undo's `undoes` the action it undid. `applied_by` and `decided_at` are null
    /// outside sheet decisions applied by someone else (`applied_by`) or made in a sheet
    /// (`decided_at`), `version` (the post's version decided on) in older entries.
    public static func json(_ entries: [Decision]) -> String {
        let items = entries.map { entry in
            JSONObject([
                "id": entry.postID, "at": entry.at, "moderator": entry.moderator,
                "from": entry.from.rawValue, "to": entry.to.rawValue, "reason": entry.reason,
                "note": entry.note, "kind": entry.kind.rawValue, "by_user": entry.byUser,
                "seq": entry.seq, "action": entry.action, "undoes": entry.undoes,
                "applied_by": entry.appliedBy, "decided_at": entry.decidedAt,
                "version": entry.version,
            ]).jsonText
        }
        return "[" + items.joined(separator: ",\n ") + "]"
    }
}
