import Foundation
import TroveStore

/// Finds the posts whose perceptual hash lies within `SignalRules.similarDistance` bits of
/// a photo's, closest first.
///
/// Posts are grouped by hash value first, so a thousand posts of one bin photographed
/// again and again cost one entry of the `HammingIndex`, not a thousand compared with
/// each other: a query's cost follows the distinct hashes near it, and what it returns is
/// the first few posts and how many there are.
struct SimilarPhotoIndex {
    /// How many matches a query names; the rest are counted.
    static let listed = 5

    /// The posts of one hash value.
    private struct Group {
        var count = 0
        /// Posts by photo file (`photoHash`); "" for posts whose file is not known.
        var byFile: [String: Int] = [:]
        /// The first `listed + 1` posts of each file, by id: enough to name `listed` posts
        /// once one file's posts and the asking post are left out.
        var firstOfEachFile: [(id: String, file: String)] = []
        /// The posts whose file is not known, which only their own id leaves out.
        var unknownFile: Set<String> = []
    }

    private let values: [UInt64]
    private let groups: [Group]
    private let index: HammingIndex

    /// Indexes `entries`: a post's id, the perceptual hash of its photo and the content
    /// hash of the photo's file (posts of one file are duplicates, not look-alikes).
    init(
        _ entries: [(id: String, hash: UInt64, photoHash: String?)],
        within distance: Int = SignalRules.similarDistance
    ) {
        var numbers: [UInt64: Int] = [:]
        var values: [UInt64] = []
        var byValue: [[(id: String, file: String)]] = []
        for entry in entries {
            let number: Int
            if let known = numbers[entry.hash] {
                number = known
            } else {
                number = values.count
                numbers[entry.hash] = number
                values.append(entry.hash)
                byValue.append([])
            }
            byValue[number].append((entry.id, entry.photoHash ?? ""))
        }
        groups = byValue.map { posts in
            var group = Group()
            group.count = posts.count
            var firstByFile: [String: [String]] = [:]
            for post in posts {
                group.byFile[post.file, default: 0] += 1
                if post.file.isEmpty { group.unknownFile.insert(post.id) }
                firstByFile[post.file, default: []].append(post.id)
            }
            for (file, ids) in firstByFile {
                for id in ids.sorted().prefix(Self.listed + 1) {
                    group.firstOfEachFile.append((id, file))
                }
            }
            group.firstOfEachFile.sort { $0.id < $1.id }
            return group
        }
        self.values = values
        index = HammingIndex(values, within: distance)
    }

    /// Posts whose photo looks like this one but is not the same file: the closest
    /// `listed` (by distance, then id) and how many in all.
    func matches(of hash: UInt64, excluding id: String, hash photoHash: String?)
        -> (closest: [(id: String, distance: Int)], count: Int)
    {
        let file = photoHash ?? ""
        var count = 0
        var closest: [(id: String, distance: Int)] = []
        index.forEachMatch(of: hash) { number, distance in
            let group = groups[number]
            var others = group.count
            if !file.isEmpty { others -= group.byFile[file] ?? 0 }
            let selfIncluded = file.isEmpty && group.unknownFile.contains(id)
            if selfIncluded { others -= 1 }
            count += others
            var named = 0
            for post in group.firstOfEachFile where named < Self.listed {
                if post.id == id || (!file.isEmpty && post.file == file) { continue }
                closest.append((post.id, distance))
                named += 1
            }
        }
        closest.sort { ($0.distance, $0.id) < ($1.distance, $1.id) }
        return (Array(closest.prefix(Self.listed)), count)
    }
}

/// 64-bit values within a Hamming distance of a query, found by multi-index hashing.
///
/// The bits are split into `m` bands. Two values at most `distance` bits apart differ in
/// at most `distance / m` bits of some band (pigeonhole: were every band `distance / m + 1`
/// bits apart, the whole would be `m × (distance / m + 1) > distance` apart), so a query
/// looks up, in each band, its own band value and those within that radius, and checks the
/// full distance of what it finds there. Up to 6 bits that is 7 exact lookups; beyond, 8
/// bands of 8 bits each probed within `distance / 8` bits.
package struct HammingIndex: Sendable {
    /// The largest distance a match may have.
    package let distance: Int
    private let values: [UInt64]
    private let bands: [(shift: UInt64, width: UInt64)]
    private let radius: Int
    /// Value numbers by band value, one table per band.
    private let tables: [[UInt64: [Int32]]]

    /// Indexes `values` (numbered by their places) for queries within `distance` bits.
    package init(_ values: [UInt64], within distance: Int) {
        precondition(values.count <= Int(Int32.max), "too many values for an index")
        self.distance = max(distance, 0)
        self.values = values
        let count = min(self.distance + 1, 8)
        var bands: [(shift: UInt64, width: UInt64)] = []
        var shift: UInt64 = 0
        for band in 0..<count {
            // Spread 64 bits as evenly as they go: the first bands take the remainder.
            let width = UInt64(64 / count + (band < 64 % count ? 1 : 0))
            bands.append((shift, width))
            shift += width
        }
        self.bands = bands
        radius = self.distance / count
        var tables = [[UInt64: [Int32]]](repeating: [:], count: count)
        for (number, value) in values.enumerated() {
            for band in bands.indices {
                tables[band][Self.part(value, bands[band]), default: []].append(Int32(number))
            }
        }
        self.tables = tables
    }

    /// Calls `body` once with the number and the distance of each value within `distance`
    /// bits of `query`, in no particular order.
    package func forEachMatch(of query: UInt64, _ body: (_ number: Int, _ distance: Int) -> Void) {
        for band in bands.indices {
            let own = Self.part(query, bands[band])
            Self.forEachWithin(radius, of: own, width: bands[band].width) { probe in
                for number in tables[band][probe] ?? [] {
                    let value = values[Int(number)]
                    let distance = (value ^ query).nonzeroBitCount
                    guard distance <= self.distance else { continue }
                    // Reported from the first band it is within the radius in, only.
                    var earlier = false
                    for before in 0..<band
                    where (Self.part(value ^ query, bands[before])).nonzeroBitCount <= radius {
                        earlier = true
                        break
                    }
                    if !earlier { body(Int(number), distance) }
                }
            }
        }
    }

    private static func part(_ value: UInt64, _ band: (shift: UInt64, width: UInt64)) -> UInt64 {
        band.width >= 64 ? value : (value >> band.shift) & ((1 << band.width) - 1)
    }

    /// Calls `body` with every value of `width` bits at most `radius` bits from `value`.
    private static func forEachWithin(
        _ radius: Int, of value: UInt64, width: UInt64, _ body: (UInt64) -> Void
    ) {
        func flip(_ value: UInt64, from bit: UInt64, left: Int) {
            body(value)
            guard left > 0 else { return }
            var next = bit
            while next < width {
                flip(value ^ (1 << next), from: next + 1, left: left - 1)
                next += 1
            }
        }
        flip(value, from: 0, left: radius)
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

    /// Only decided posts count, so only they are kept: a workspace of pending posts
    /// costs a pass, not a copy of every post.
    package init(_ posts: [SignalFacts]) {
        var byUser: [String: [(rejected: Bool, moment: Date?)]] = [:]
        for post in posts where post.status == "approved" || post.status == "rejected" {
            if let user = post.user {
                byUser[user, default: []].append((post.status == "rejected", post.moment))
            }
        }
        for (user, posts) in byUser {
            var timeline = Timeline()
            timeline.totalDecided = posts.count
            timeline.totalRejected = posts.filter(\.rejected).count
            let dated = posts.compactMap { post in post.moment.map { (post.rejected, $0) } }
                .sorted { $0.1 < $1.1 }
            for (rejected, moment) in dated {
                timeline.moments.append(moment)
                timeline.decided.append((timeline.decided.last ?? 0) + 1)
                timeline.rejected.append((timeline.rejected.last ?? 0) + (rejected ? 1 : 0))
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
