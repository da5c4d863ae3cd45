import Foundation
import TroveStore

/// Finds perceptual hashes within `SignalRules.similarDistance` bits without comparing
/// every pair: two hashes that differ in at most 6 bits agree exactly on at least one of
/// 7 chunks (pigeonhole), so only hashes sharing a chunk are compared.
struct SimilarPhotoIndex {
    private static let chunks: [(shift: UInt64, width: UInt64)] = [
        (0, 10), (10, 9), (19, 9), (28, 9), (37, 9), (46, 9), (55, 9),
    ]
    private var buckets: [UInt64: [Int]] = [:]
    private var entries: [(id: String, hash: UInt64, photoHash: String?)] = []

    package mutating func insert(_ id: String, _ hash: UInt64, _ photoHash: String?) {
        let index = entries.count
        entries.append((id, hash, photoHash))
        for (number, chunk) in Self.chunks.enumerated() {
            buckets[Self.key(number, chunk, hash), default: []].append(index)
        }
    }

    /// Posts whose photo looks like this one but is not the same file, closest first.
    func matches(of hash: UInt64, excluding id: String, hash photoHash: String?)
        -> [(id: String, distance: Int)]
    {
        var seen: Set<Int> = []
        var found: [(id: String, distance: Int)] = []
        for (number, chunk) in Self.chunks.enumerated() {
            for index in buckets[Self.key(number, chunk, hash)] ?? []
            where seen.insert(index).inserted {
                let entry = entries[index]
                if entry.id == id || (photoHash != nil && entry.photoHash == photoHash) { continue }
                let distance = (entry.hash ^ hash).nonzeroBitCount
                if distance <= SignalRules.similarDistance { found.append((entry.id, distance)) }
            }
        }
        return found.sorted { ($0.distance, $0.id) < ($1.distance, $1.id) }
    }

    private static func key(_ number: Int, _ chunk: (shift: UInt64, width: UInt64), _ hash: UInt64)
        -> UInt64
    {
        UInt64(number) << 32 | (hash >> chunk.shift) & ((1 << chunk.width) - 1)
    }
}

/// Each user's decided posts in date order with running counts, so "earlier decided
/// posts" is a binary search rather than a walk over the user's history.
struct UserHistory {
    private struct Timeline {
        var moments: [Date] = []
        /// decided[i], rejected[i]: counts among the first i posts.
        var decided: [Int] = [0]
        var rejected: [Int] = [0]
        var totalDecided = 0
        var totalRejected = 0
    }

    private var timelines: [String: Timeline] = [:]

    package init(_ posts: [SignalFacts]) {
        var byUser: [String: [SignalFacts]] = [:]
        for post in posts {
            if let user = post.user { byUser[user, default: []].append(post) }
        }
        for (user, posts) in byUser {
            var timeline = Timeline()
            for post in posts {
                let isDecided = post.status == "approved" || post.status == "rejected"
                timeline.totalDecided += isDecided ? 1 : 0
                timeline.totalRejected += post.status == "rejected" ? 1 : 0
            }
            let dated = posts.compactMap { post in post.moment.map { (post, $0) } }
                .sorted { $0.1 < $1.1 }
            for (post, moment) in dated {
                timeline.moments.append(moment)
                let isDecided = post.status == "approved" || post.status == "rejected"
                timeline.decided.append((timeline.decided.last ?? 0) + (isDecided ? 1 : 0))
                timeline.rejected.append(
                    (timeline.rejected.last ?? 0) + (post.status == "rejected" ? 1 : 0))
            }
            timelines[user] = timeline
        }
    }

    /// Decided and rejected posts by the same user dated before this one (all of the
    /// user's other posts when this one has no date).
    func earlier(than post: SignalFacts) -> (decided: Int, rejected: Int) {
        guard let user = post.user, let timeline = timelines[user] else { return (0, 0) }
        guard let moment = post.moment else {
            let selfDecided = post.status == "approved" || post.status == "rejected" ? 1 : 0
            let selfRejected = post.status == "rejected" ? 1 : 0
            return (timeline.totalDecided - selfDecided, timeline.totalRejected - selfRejected)
        }
        var low = 0
        var high = timeline.moments.count
        while low < high {
            let middle = (low + high) / 2
            if timeline.moments[middle] < moment { low = middle + 1 } else { high = middle }
        }
        return (timeline.decided[low], timeline.rejected[low])
    }
}
