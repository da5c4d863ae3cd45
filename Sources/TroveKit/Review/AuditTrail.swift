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

    /// The entries on post `id` (nil: every post) made by `moderator` (nil: anyone), at
    /// or after `since` and before `before` (timestamps as `bound` makes them), oldest
    /// first.
    ///
    /// - Throws: `SQLiteError`.
    public func entries(
        for id: String?, moderator: String?, since: String? = nil, before: String? = nil
    ) throws -> [Decision] {
        try PostStore(workspace).decisions(
            matching: .init(post: id, moderator: moderator, since: since, before: before))
    }

    /// A bound of a time range over the trail, from a date (`2024-05-01`, UTC) or a time
    /// (`2024-05-01T12:00:00Z`, or with an offset): the first second it names, or with
    /// `after` the first second after it (a date's whole day, a time's second), as the
    /// trail writes times. Nil when `text` is neither.
    public static func bound(_ text: String, after: Bool = false) -> String? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let day = DateFormatter()
        day.calendar = calendar
        day.timeZone = calendar.timeZone
        day.locale = Locale(identifier: "en_US_POSIX")
        day.dateFormat = "yyyy-MM-dd"
        if text.count == 10, let date = day.date(from: text), day.string(from: date) == text {
            return timestamp(after ? date.addingTimeInterval(86_400) : date)
        }
        let time = ISO8601DateFormatter()
        time.formatOptions = [.withInternetDateTime]
        guard let date = time.date(from: text) else { return nil }
        return timestamp(after ? date.addingTimeInterval(1) : date)
    }

    /// The trail as JSON: `[{"id","at","moderator","from","to","reason","note","kind",
    /// "by_user","seq","action","undoes","applied_by","decided_at","version","redaction"}]`.
    /// `moderator` is null for what users and imports did: `kind` says what each entry
    /// is (`decision`, `undo`, `withdrawal`, `restoration`, `reopening`), and `by_user`
    /// names the user who withdrew or restored a post. `action` is the `seq` of the first
    /// entry of the action an entry belongs to (a bulk decision's entries share it), and
    /// an undo's `undoes` the action it undid. `applied_by` and `decided_at` are null
    /// outside sheet decisions applied by someone else (`applied_by`) or made in a sheet
    /// (`decided_at`), `version` (the post's version decided on) in older entries.
    /// `redaction` is the boxes an approval with redaction (or an undo bringing them back)
    /// left the post published with (`x,y,w,h;…`), its `version` the one they make; null
    /// otherwise.
    public static func json(_ entries: [Decision]) -> String {
        let items = entries.map { entry in
            JSONObject([
                "id": entry.postID, "at": entry.at, "moderator": entry.moderator,
                "from": entry.from.rawValue, "to": entry.to.rawValue, "reason": entry.reason,
                "note": entry.note, "kind": entry.kind.rawValue, "by_user": entry.byUser,
                "seq": entry.seq, "action": entry.action, "undoes": entry.undoes,
                "applied_by": entry.appliedBy, "decided_at": entry.decidedAt,
                "version": entry.version, "redaction": entry.redaction,
            ]).jsonText
        }
        return "[" + items.joined(separator: ",\n ") + "]"
    }
}
