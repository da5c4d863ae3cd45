import Foundation
import TroveSQLite

/// The names of the signals that draw a moderator's attention to a post (SPEC §6.2).
public enum SignalName: String, CaseIterable, Sendable {
    case exifGPSMismatch = "exif-gps-mismatch"
    case noExifGPS = "no-exif-gps"
    case duplicatePhoto = "duplicate-photo"
    case similarPhoto = "similar-photo"
    case nearbyPost = "nearby-post"
    case photoUnreadable = "photo-unreadable"
    case photoTooSmall = "photo-too-small"
    case textLink = "text-link"
    case textBlockedWord = "text-blocked-word"
    case dateInFuture = "date-in-future"
    case outsideArea = "outside-area"
    case userHistory = "user-history"
}

/// One signal on a post, with the detail a moderator needs to judge it.
public struct Signal: Equatable, Sendable {
    public var name: SignalName
    public var detail: String

    public init(_ name: SignalName, _ detail: String) {
        self.name = name
        self.detail = detail
    }

    /// The signals as stored in `posts.signals`: `[{"name": …, "detail": …}]`.
    static func json(_ signals: [Signal]) -> String {
        "["
            + signals.map {
                "{\"name\":\(jsonString($0.name.rawValue)),\"detail\":\(jsonString($0.detail))}"
            }
            .joined(separator: ",") + "]"
    }

    /// Parses the stored JSON; unknown names are skipped.
    static func parse(_ json: String) -> [Signal] {
        guard let array = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [Any]
        else { return [] }
        return array.compactMap { item in
            guard let object = item as? [String: Any],
                let name = (object["name"] as? String).flatMap(SignalName.init(rawValue:))
            else { return nil }
            return Signal(name, object["detail"] as? String ?? "")
        }
    }
}

/// Thresholds of the signals.
public enum SignalRules {
    /// EXIF position further than this from the claimed one (metres).
    public static let exifMismatchMeters = 200.0
    /// Another post closer than this (metres) …
    public static let nearbyMeters = 25.0
    /// … dated at most this long before (seconds).
    public static let nearbyWindow: TimeInterval = 7 * 24 * 3600
    /// Perceptual hashes this close (bits of 64) look like the same picture.
    public static let similarDistance = 6
    /// A photo whose shorter side is smaller than this (pixels).
    public static let minimumPhotoSide = 256
    /// A user with at least this many earlier decided posts …
    public static let historyMinimum = 3
}

/// Great-circle distances on a sphere of radius 6371 km.
public enum PostDistance {
    /// The haversine distance in metres.
    public static func meters(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double)
        -> Double
    {
        let radians = Double.pi / 180
        let dLat = (lat2 - lat1) * radians
        let dLon = (lon2 - lon1) * radians
        let a =
            sin(dLat / 2) * sin(dLat / 2) + cos(lat1 * radians) * cos(lat2 * radians)
            * sin(dLon / 2) * sin(dLon / 2)
        return 2 * 6_371_000 * asin(min(1, sqrt(a)))
    }

    /// `230 m` or `1.4 km`.
    public static func text(_ meters: Double) -> String {
        meters < 1000
            ? "\(Int(meters.rounded())) m" : String(format: "%.1f km", meters / 1000)
    }
}

/// Recomputes every post's signals from what the workspace holds.
///
/// Photos are not read again: their facts were stored at import. Call inside
/// `Workspace.write`.
public struct SignalScanner {
    let workspace: Workspace
    let now: Date

    public init(workspace: Workspace, now: Date = Date()) {
        self.workspace = workspace
        self.now = now
    }

    struct Facts {
        var id: String
        var user: String?
        var latitude: Double
        var longitude: Double
        var description: String?
        var date: String?
        var moment: Date?
        var photoHash: String?
        var phash: UInt64?
        var width: Int?
        var height: Int?
        var exifLatitude: Double?
        var exifLongitude: Double?
        var photoProblem: String?
        var status: String
        var signals: String
    }

    /// Recomputes and stores the signals of every post.
    ///
    /// - Returns: how many posts' signals changed.
    /// - Throws: `SQLiteError`.
    @discardableResult
    public func scan() throws -> Int {
        let database = workspace.database
        let posts = try database.query(
            """
            SELECT id, user, lat, lon, description, date, photo_hash, photo_phash, photo_width,
                   photo_height, exif_lat, exif_lon, photo_problem, status, signals
            FROM posts ORDER BY id
            """
        ) { row in
            Facts(
                id: row.text(0) ?? "", user: row.text(1), latitude: row.double(2) ?? 0,
                longitude: row.double(3) ?? 0, description: row.text(4), date: row.text(5),
                moment: row.text(5).flatMap(PostDate.moment), photoHash: row.text(6),
                phash: row.int64(7).map { UInt64(bitPattern: $0) },
                width: row.int64(8).map { Int($0) }, height: row.int64(9).map { Int($0) },
                exifLatitude: row.double(10), exifLongitude: row.double(11),
                photoProblem: row.text(12), status: row.text(13) ?? "pending",
                signals: row.text(14) ?? "[]")
        }
        let context = try Context(workspace: workspace, posts: posts, now: now)
        let update = try database.prepare(
            "UPDATE posts SET signals = ?2, signal_names = ?3 WHERE id = ?1")
        var changed = 0
        for post in posts {
            let signals = try context.signals(for: post)
            let json = Signal.json(signals)
            guard json != post.signals else { continue }
            let names = signals.map(\.name.rawValue).joined(separator: ",")
            try update.run([.text(post.id), .text(json), .text(names)])
            changed += 1
        }
        return changed
    }

    /// Everything a post's signals are computed against.
    struct Context {
        let blockedWords: [(word: String, pattern: NSRegularExpression)]
        let area: GeoBounds?
        let areaText: String?
        let byPhotoHash: [String: [String]]
        let similar: SimilarPhotoIndex
        let byUser: [String: [Facts]]
        let now: Date
        let nearby: Statement

        init(workspace: Workspace, posts: [Facts], now: Date) throws {
            let words = (try workspace.setting(Setting.reviewBlockedWords.key) ?? "")
                .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty }
            blockedWords = words.compactMap { word in
                let escaped = NSRegularExpression.escapedPattern(for: word)
                guard
                    let pattern = try? NSRegularExpression(
                        pattern: "(?<![\\p{L}\\p{N}_])\(escaped)(?![\\p{L}\\p{N}_])",
                        options: [.caseInsensitive])
                else { return nil }
                return (word, pattern)
            }
            areaText = try workspace.setting(Setting.reviewArea.key)
            area = areaText.flatMap(GeoBounds.init(parsing:))
            var byPhotoHash: [String: [String]] = [:]
            var byUser: [String: [Facts]] = [:]
            var similar = SimilarPhotoIndex()
            for post in posts {
                if let hash = post.photoHash { byPhotoHash[hash, default: []].append(post.id) }
                if let user = post.user { byUser[user, default: []].append(post) }
                if let phash = post.phash { similar.insert(post.id, phash, post.photoHash) }
            }
            self.byPhotoHash = byPhotoHash
            self.byUser = byUser
            self.similar = similar
            self.now = now
            nearby = try workspace.database.prepare(
                """
                SELECT id, lat, lon, date FROM posts
                WHERE lat BETWEEN ?1 AND ?2 AND lon BETWEEN ?3 AND ?4 AND id != ?5
                ORDER BY id
                """)
        }

        func signals(for post: Facts) throws -> [Signal] {
            var signals: [Signal] = []
            let readable = post.width != nil && post.photoProblem == nil
            if readable {
                if let lat = post.exifLatitude, let lon = post.exifLongitude {
                    let distance = PostDistance.meters(lat, lon, post.latitude, post.longitude)
                    if distance > SignalRules.exifMismatchMeters {
                        signals.append(
                            Signal(
                                .exifGPSMismatch,
                                "the photo was taken \(PostDistance.text(distance)) from the "
                                    + "claimed position"))
                    }
                } else {
                    signals.append(Signal(.noExifGPS, "the photo carries no GPS position"))
                }
            }
            if let hash = post.photoHash, let same = byPhotoHash[hash], same.count > 1 {
                let others = same.filter { $0 != post.id }
                signals.append(Signal(.duplicatePhoto, "same photo as " + list(others)))
            }
            if let phash = post.phash {
                let matches = similar.matches(of: phash, excluding: post.id, hash: post.photoHash)
                if !matches.isEmpty {
                    let text = matches.prefix(5).map { "\($0.id) (\($0.distance) bits)" }
                    signals.append(
                        Signal(
                            .similarPhoto,
                            "looks like " + text.joined(separator: ", ")
                                + (matches.count > 5 ? " and \(matches.count - 5) more" : "")))
                }
            }
            let nearbyPosts = try nearby(post)
            if !nearbyPosts.isEmpty {
                let text = nearbyPosts.map { "\($0.id) (\(PostDistance.text($0.distance)))" }
                signals.append(
                    Signal(.nearbyPost, "within 25 m in the 7 days before: " + list(text)))
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
            if let area, let areaText,
                !area.contains(latitude: post.latitude, longitude: post.longitude)
            {
                signals.append(Signal(.outsideArea, "outside review.area \(areaText)"))
            }
            if let history = userHistory(post) {
                signals.append(Signal(.userHistory, history))
            }
            return signals
        }

        private func list(_ items: [String]) -> String {
            items.prefix(5).joined(separator: ", ")
                + (items.count > 5 ? " and \(items.count - 5) more" : "")
        }

        private func isInFuture(_ date: String, _ moment: Date) -> Bool {
            if date.count == 10 {
                // A day is in the future only once the whole of today (UTC) is past.
                return date > String(PostDate.format(now).prefix(10))
            }
            return moment > now
        }

        /// Other posts within 25 m dated in the 7 days up to this post's date.
        private func nearby(_ post: Facts) throws -> [(id: String, distance: Double)] {
            guard let moment = post.moment else { return [] }
            let meters = SignalRules.nearbyMeters
            let dLat = meters / 111_000 * 1.01
            let cosine = cos(post.latitude * Double.pi / 180)
            let dLon = cosine > 0.01 ? dLat / cosine : 360
            try nearby.bind([
                .real(post.latitude - dLat), .real(post.latitude + dLat),
                .real(post.longitude - dLon), .real(post.longitude + dLon), .text(post.id),
            ])
            var found: [(id: String, distance: Double)] = []
            while let row = try nearby.next() {
                guard let lat = row.double(1), let lon = row.double(2),
                    let other = row.text(3).flatMap(PostDate.moment)
                else { continue }
                let age = moment.timeIntervalSince(other)
                guard age >= 0, age <= SignalRules.nearbyWindow else { continue }
                let distance = PostDistance.meters(post.latitude, post.longitude, lat, lon)
                if distance <= meters { found.append((row.text(0) ?? "", distance)) }
            }
            return found
        }

        /// "4 of 5 earlier decided posts by U were rejected", when mostly rejected.
        private func userHistory(_ post: Facts) -> String? {
            guard let user = post.user, let posts = byUser[user] else { return nil }
            var decided = 0
            var rejected = 0
            for other in posts where other.id != post.id {
                if let mine = post.moment {
                    guard let theirs = other.moment, theirs < mine else { continue }
                }
                if other.status == "approved" || other.status == "rejected" { decided += 1 }
                if other.status == "rejected" { rejected += 1 }
            }
            guard decided >= SignalRules.historyMinimum, rejected * 2 > decided else {
                return nil
            }
            return "\(rejected) of \(decided) earlier decided posts by \(user) were rejected"
        }

        private static let linkPattern = try? NSRegularExpression(
            pattern: "(https?://|www\\.|javascript:|data:)[^\\s]*", options: [.caseInsensitive])

        static func firstLink(in text: String) -> String? {
            guard let pattern = linkPattern,
                let match = pattern.firstMatch(
                    in: text, range: NSRange(text.startIndex..., in: text)),
                let range = Range(match.range, in: text)
            else { return nil }
            return String(text[range].prefix(80))
        }
    }
}

/// Finds perceptual hashes within `SignalRules.similarDistance` bits without comparing
/// every pair: two hashes that differ in at most 6 bits agree exactly on at least one of
/// 7 chunks (pigeonhole), so only hashes sharing a chunk are compared.
struct SimilarPhotoIndex {
    private static let chunks: [(shift: UInt64, width: UInt64)] = [
        (0, 10), (10, 9), (19, 9), (28, 9), (37, 9), (46, 9), (55, 9),
    ]
    private var buckets: [UInt64: [Int]] = [:]
    private var entries: [(id: String, hash: UInt64, photoHash: String?)] = []

    mutating func insert(_ id: String, _ hash: UInt64, _ photoHash: String?) {
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
