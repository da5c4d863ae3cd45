import Foundation
import TroveBase
import TroveStore

/// What the lead asks of the trail, without jq (`review stats`): per moderator, day or
/// reason, how many decisions and of which kind, the undos, how many were overturned, and
/// the median time from a post's version arriving to the decision on it.
public struct ReviewStats: Sendable {
    /// How the rows are grouped.
    public enum Grouping: String, CaseIterable, Sendable {
        case moderator, day, reason
    }

    /// One row: a moderator, a day (UTC) or a rejection reason.
    public struct Row: Equatable, Sendable {
        public var key: String
        /// Moderators' decisions (not undos, not what users and imports did).
        public var decisions = 0
        public var approved = 0
        public var rejected = 0
        public var flagged = 0
        /// Decisions putting a post back to pending (`reopen`).
        public var reopened = 0
        public var undos = 0
        /// Decisions a later decision of another moderator changed (or that an undo of
        /// another took back); an undo by their own author is not an overturn.
        public var overturned = 0
        /// The median seconds from the arrival of the version decided on to the decision,
        /// over the decisions whose version is known.
        public var medianSeconds: Double?
    }

    public let rows: [Row]
    /// Every row together.
    public let total: Row

    /// The stats of the trail's `entries` (already filtered by moderator and time), `all`
    /// the whole trail (a later overturn may lie outside the range), `arrivals` when each
    /// version of each post arrived.
    public init(
        entries: [Decision], all: [Decision], arrivals: [String: [String: String]],
        by grouping: Grouping
    ) {
        // The entry after each one on its post.
        var next: [Int64: Decision] = [:]
        var latest: [String: Decision] = [:]
        for entry in all.reversed() {
            if let seq = entry.seq, let after = latest[entry.postID] { next[seq] = after }
            latest[entry.postID] = entry
        }
        let time = ISO8601DateFormatter()
        time.formatOptions = [.withInternetDateTime]
        var rows: [String: Row] = [:]
        var waits: [String: [Double]] = [:]
        var total = Row(key: "total")
        var allWaits: [Double] = []
        for entry in entries {
            guard let moderator = entry.moderator else { continue }
            let key: String
            switch grouping {
            case .moderator: key = moderator
            case .day: key = String(entry.at.prefix(10))
            case .reason:
                guard entry.kind == .decision, let reason = entry.reason else { continue }
                key = reason
            }
            var row = rows[key] ?? Row(key: key)
            defer { rows[key] = row }
            if entry.kind == .undo {
                row.undos += 1
                total.undos += 1
                continue
            }
            guard entry.kind == .decision else { continue }
            var counts = [\Row.decisions]
            switch entry.to {
            case .approved: counts.append(\.approved)
            case .rejected: counts.append(\.rejected)
            case .flagged: counts.append(\.flagged)
            case .pending: counts.append(\.reopened)
            case .withdrawn: break
            }
            if let seq = entry.seq, let after = next[seq], after.moderator != nil,
                after.moderator != moderator, after.kind == .decision || after.kind == .undo,
                after.to != entry.to
            {
                counts.append(\.overturned)
            }
            for path in counts {
                row[keyPath: path] += 1
                total[keyPath: path] += 1
            }
            if let version = entry.version, let seen = arrivals[entry.postID]?[version],
                let from = time.date(from: seen), let to = time.date(from: entry.at)
            {
                let seconds = max(0, to.timeIntervalSince(from))
                waits[key, default: []].append(seconds)
                allWaits.append(seconds)
            }
        }
        for key in rows.keys { rows[key]?.medianSeconds = Self.median(waits[key] ?? []) }
        total.medianSeconds = Self.median(allWaits)
        self.rows = rows.values.sorted { $0.key < $1.key }
        self.total = total
    }

    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

extension AuditTrail {
    /// `review stats`: the entries by `moderator` (nil: everyone's) from `since` before
    /// `before`, grouped.
    ///
    /// - Throws: `SQLiteError`.
    public func stats(
        by grouping: ReviewStats.Grouping, moderator: String? = nil, since: String? = nil,
        before: String? = nil
    ) throws -> ReviewStats {
        let store = PostStore(workspace)
        return try workspace.read {
            let entries = try store.decisions(
                matching: .init(moderator: moderator, since: since, before: before))
            return ReviewStats(
                entries: entries, all: try store.decisions(for: nil),
                arrivals: try store.versionArrivals(), by: grouping)
        }
    }
}
