import Foundation
import TroveBase
import TroveStore

/// Recomputes every post's signals from what the workspace holds.
///
/// Photos are not read again: their facts were stored at import. Call inside
/// `Workspace.write`.
public struct SignalScanner {
    let workspace: Workspace
    let now: Date

    /// Works on `workspace`; `now` decides what is in the future.
    public init(workspace: Workspace, now: Date = Date()) {
        self.workspace = workspace
        self.now = now
    }

    /// Recomputes and stores the signals of every post.
    ///
    /// - Returns: how many posts' signals changed.
    /// - Throws: `SQLiteError`.
    @discardableResult
    public func scan() throws -> Int {
        let store = PostStore(workspace)
        let posts = try store.signalFacts()
        let shared = Shared(try Context(workspace: workspace, posts: posts, now: now))
        // A post's signals depend on the others only through the context, which nothing
        // changes once made: they are computed on every core, a chunk of posts at a time,
        // and written in order.
        let chunk = 1_024
        let chunks = (posts.count + chunk - 1) / chunk
        let computed = parallelMap(
            count: chunks, threads: ProcessInfo.processInfo.activeProcessorCount
        ) { number -> [(json: String, names: String)?] in
            var context = shared.context.copy()
            let range = number * chunk..<min(posts.count, (number + 1) * chunk)
            return context.posts[range].map { post in
                let signals = context.signals(for: post)
                let json = Signal.json(signals)
                guard json != post.signals else { return nil }
                return (json, signals.map(\.name.rawValue).joined(separator: ","))
            }
        }
        let writeSignals = try store.signalWriter()
        var changed = 0
        for (index, result) in computed.joined().enumerated() {
            guard let (json, names) = result else { continue }
            try writeSignals(posts[index].id, json, names)
            changed += 1
        }
        return changed
    }

    /// The context, handed to the threads that compute the signals. It is only read
    /// there, and each thread takes a `copy` (regular expressions and caches of its own).
    private final class Shared: @unchecked Sendable {
        let context: Context
        init(_ context: Context) { self.context = context }
    }

    /// Everything a post's signals are computed against.
    struct Context {
        private(set) var blockedWords: [(word: String, pattern: NSRegularExpression)]
        let area: GeoBounds?
        let byPhotoHash: [String: [String]]
        let similar: SimilarPhotoIndex
        let now: Date
        /// The posts' positions, for the ones within `SignalRules.nearbyMeters` of each.
        let grid: NeighbourIndex
        let posts: [SignalFacts]
        let history: UserHistory
        /// What posts of one photo file share: the text of their duplicate signal (for
        /// those not among the first named) and their look-alikes, by file.
        private var duplicateTexts: [String: String] = [:]
        private var lookAlikes: [String: (closest: [(id: String, distance: Int)], count: Int)] =
            [:]

        init(workspace: Workspace, posts: [SignalFacts], now: Date) throws {
            let settings = try workspace.settings()
            blockedWords = Self.patterns(settings.blockedWords)
            area = settings.reviewArea
            var byPhotoHash: [String: [String]] = [:]
            var hashed: [(id: String, hash: UInt64, photoHash: String?)] = []
            for post in posts {
                if let hash = post.photoHash { byPhotoHash[hash, default: []].append(post.id) }
                if let phash = post.phash { hashed.append((post.id, phash, post.photoHash)) }
            }
            self.byPhotoHash = byPhotoHash
            similar = SimilarPhotoIndex(hashed)
            self.now = now
            grid = NeighbourIndex(
                radius: SignalRules.nearbyMeters, latitudes: posts.map(\.latitude),
                longitudes: posts.map(\.longitude))
            self.posts = posts
            history = UserHistory(posts)
        }

        /// Whole-word, any-case patterns of `words`.
        private static func patterns(_ words: [String]) -> [(
            word: String, pattern: NSRegularExpression
        )] {
            words.compactMap { word in
                let escaped = NSRegularExpression.escapedPattern(for: word)
                guard
                    let pattern = try? NSRegularExpression(
                        pattern: "(?<![\\p{L}\\p{N}_])\(escaped)(?![\\p{L}\\p{N}_])",
                        options: [.caseInsensitive])
                else { return nil }
                return (word, pattern)
            }
        }

        /// This context with regular expressions and caches of its own, for one thread.
        func copy() -> Context {
            var copy = self
            copy.blockedWords = Self.patterns(blockedWords.map(\.word))
            copy.duplicateTexts = [:]
            copy.lookAlikes = [:]
            return copy
        }

        mutating func signals(for post: SignalFacts) -> [Signal] {
            var signals: [Signal] = []
            let readable = post.width != nil && post.photoProblem == nil
            if readable, let signal = Self.exifSignal(post) { signals.append(signal) }
            if let signal = duplicatePhotoSignal(post) { signals.append(signal) }
            if let signal = similarPhotoSignal(post) { signals.append(signal) }
            let nearbyPosts = nearby(post)
            if !nearbyPosts.isEmpty {
                let text = nearbyPosts.map { "\($0.id) (\(PostDistance.text($0.distance)))" }
                signals.append(
                    Signal(
                        .nearbyPost,
                        "within 25 m in the 7 days before: " + list(text, of: text.count)))
            }
            if let problem = post.photoProblem {
                signals.append(Signal(.photoUnreadable, problem))
            }
            if readable, let width = post.width, let height = post.height,
                min(width, height) < SignalRules.minimumPhotoSide
            {
                signals.append(
                    Signal(
                        .photoTooSmall,
                        "\(width)×\(height) px; at least \(SignalRules.minimumPhotoSide) px "
                            + "on the short side expected"))
            }
            let text = post.description ?? ""
            if let link = Self.firstLink(in: text) {
                signals.append(Signal(.textLink, "contains a link: \(link)"))
            }
            let range = NSRange(text.startIndex..., in: text)
            let blocked = blockedWords.filter {
                $0.pattern.firstMatch(in: text, range: range) != nil
            }.map(\.word)
            if !blocked.isEmpty {
                signals.append(
                    Signal(.textBlockedWord, "contains " + blocked.joined(separator: ", ")))
            }
            if let date = post.date, let moment = post.moment, isInFuture(date, moment) {
                signals.append(Signal(.dateInFuture, "dated \(date), after today"))
            }
            if let area, !area.contains(latitude: post.latitude, longitude: post.longitude) {
                signals.append(Signal(.outsideArea, "outside review.area \(area.text)"))
            }
            if let history = userHistory(post) {
                signals.append(Signal(.userHistory, history))
            }
            return signals
        }

        /// Where a readable photo was taken against the claimed position, or why that is
        /// not known.
        private static func exifSignal(_ post: SignalFacts) -> Signal? {
            if let lat = post.exifLatitude, let lon = post.exifLongitude {
                let distance = PostDistance.meters(lat, lon, post.latitude, post.longitude)
                if distance > SignalRules.exifMismatchMeters {
                    return Signal(
                        .exifGPSMismatch,
                        "the photo was taken \(PostDistance.text(distance)) from the "
                            + "claimed position")
                }
                return nil
            } else if let problem = post.exifGPSProblem {
                return Signal(
                    .noExifGPS, "the photo carries a GPS position that cannot be read: \(problem)")
            } else {
                return Signal(.noExifGPS, "the photo carries no GPS position")
            }
        }

        /// The other posts with the same photo file.
        private mutating func duplicatePhotoSignal(_ post: SignalFacts) -> Signal? {
            guard let hash = post.photoHash, let same = byPhotoHash[hash], same.count > 1 else {
                return nil
            }
            // The first few others and a count: a photo posted 20,000 times is not a
            // list of 20,000 per post. Every post but the first few names the same.
            let named = same.prefix(6).contains(post.id)
            if !named, let text = duplicateTexts[hash] {
                return Signal(.duplicatePhoto, text)
            } else {
                let others = same.lazy.filter { $0 != post.id }.prefix(5)
                let text = "same photo as " + list(others, of: same.count - 1)
                if !named { duplicateTexts[hash] = text }
                return Signal(.duplicatePhoto, text)
            }
        }

        /// The posts whose photo looks like this one's.
        private mutating func similarPhotoSignal(_ post: SignalFacts) -> Signal? {
            guard let phash = post.phash else { return nil }
            // Posts of one file have the same look-alikes (their own file's posts are
            // never among them).
            let key = post.photoHash.map { "\(phash):\($0)" }
            let matches =
                key.flatMap { lookAlikes[$0] }
                ?? similar.matches(of: phash, excluding: post.id, hash: post.photoHash)
            if let key { lookAlikes[key] = matches }
            guard matches.count > 0 else { return nil }
            let text = matches.closest.map { "\($0.id) (\($0.distance) bits)" }
            return Signal(.similarPhoto, "looks like " + list(text, of: matches.count))
        }

        /// The first five of `count` items, then how many more.
        private func list(_ items: some Sequence<String>, of count: Int) -> String {
            items.prefix(5).joined(separator: ", ") + (count > 5 ? " and \(count - 5) more" : "")
        }

        private func isInFuture(_ date: String, _ moment: Date) -> Bool {
            if date.count == 10 {
                // A day is in the future only once the whole of today (UTC) is past.
                return date > String(PostDate.format(now).prefix(10))
            }
            return moment > now
        }

        /// Other posts within 25 m dated in the 7 days up to this post's date.
        private func nearby(_ post: SignalFacts) -> [(id: String, distance: Double)] {
            guard let moment = post.moment else { return [] }
            var found: [(id: String, distance: Double)] = []
            grid.forEachNeighbour(latitude: post.latitude, longitude: post.longitude) {
                point, distance in
                let index = Int(point)
                guard let theirs = posts[index].moment else { return }
                let age = moment.timeIntervalSince(theirs)
                guard age >= 0, age <= SignalRules.nearbyWindow, posts[index].id != post.id
                else { return }
                found.append((posts[index].id, distance))
            }
            return found.sorted { ($0.distance, $0.id) < ($1.distance, $1.id) }
        }

        /// "4 of 5 earlier decided posts by U were rejected", when mostly rejected.
        private func userHistory(_ post: SignalFacts) -> String? {
            guard let user = post.user else { return nil }
            let (decided, rejected) = history.earlier(than: post)
            guard decided >= SignalRules.historyMinimum, rejected * 2 > decided else {
                return nil
            }
            return "\(rejected) of \(decided) earlier decided posts by \(user) were rejected"
        }

        private static let linkMarkers: [[UInt8]] = [
            "http://", "https://", "www.", "javascript:", "data:",
        ].map { Array($0.utf8) }

        /// The first link in `text` (`http(s)://`, `www.`, `javascript:`, `data:`, any
        /// case), up to the next white space and at most 80 characters.
        static func firstLink(in text: String) -> String? {
            let bytes = Array(text.utf8)
            var index = 0
            while index < bytes.count {
                for marker in linkMarkers where matches(marker, in: bytes, at: index) {
                    var end = index
                    while end < bytes.count, ![0x20, 0x09, 0x0A, 0x0D].contains(bytes[end]) {
                        end += 1
                    }
                    return String(String(decoding: bytes[index..<end], as: UTF8.self).prefix(80))
                }
                index += 1
            }
            return nil
        }

        private static func matches(_ marker: [UInt8], in bytes: [UInt8], at index: Int) -> Bool {
            guard index + marker.count <= bytes.count else { return false }
            for offset in 0..<marker.count {
                var byte = bytes[index + offset]
                if (65...90).contains(byte) { byte += 32 }
                if byte != marker[offset] { return false }
            }
            return true
        }
    }
}
