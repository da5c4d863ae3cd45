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
    /// Which signal.
    public var name: SignalName
    /// What a moderator needs to judge it (distances, ids, words).
    public var detail: String

    /// Creates the value from its parts.
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
        var parser = JSONParser(Array(json.utf8))
        guard case .array(let items)? = try? parser.parseValue() else { return [] }
        return items.compactMap { item in
            guard let name = item["name"]?.stringValue.flatMap(SignalName.init(rawValue:))
            else { return nil }
            return Signal(name, item["detail"]?.stringValue ?? "")
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

/// Distances between posts, as GeoFire measures them.
public enum PostDistance {
    /// The great-circle distance in metres (`greatCircleDistance`, the one formula that
    /// `near`, `validate` and the signals share).
    public static func meters(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double)
        -> Double
    {
        greatCircleDistance(fromLatitude: lat1, longitude: lon1, toLatitude: lat2, longitude: lon2)
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

    /// Works on `workspace`; `now` decides what is in the future.
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
        let now: Date
        let grid: PostGrid
        let posts: [Facts]
        let history: UserHistory

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
            var similar = SimilarPhotoIndex()
            for post in posts {
                if let hash = post.photoHash { byPhotoHash[hash, default: []].append(post.id) }
                if let phash = post.phash { similar.insert(post.id, phash, post.photoHash) }
            }
            self.byPhotoHash = byPhotoHash
            self.similar = similar
            self.now = now
            grid = PostGrid(posts)
            self.posts = posts
            history = UserHistory(posts)
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
            let nearbyPosts = nearby(post)
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
        private func nearby(_ post: Facts) -> [(id: String, distance: Double)] {
            guard let moment = post.moment else { return [] }
            var found: [(id: String, distance: Double)] = []
            grid.forEachCandidate(latitude: post.latitude, longitude: post.longitude) { index in
                guard let theirs = posts[index].moment else { return }
                let age = moment.timeIntervalSince(theirs)
                guard age >= 0, age <= SignalRules.nearbyWindow, posts[index].id != post.id
                else { return }
                let distance = PostDistance.meters(
                    post.latitude, post.longitude, posts[index].latitude, posts[index].longitude)
                if distance <= SignalRules.nearbyMeters {
                    found.append((posts[index].id, distance))
                }
            }
            return found.sorted { ($0.distance, $0.id) < ($1.distance, $1.id) }
        }

        /// "4 of 5 earlier decided posts by U were rejected", when mostly rejected.
        private func userHistory(_ post: Facts) -> String? {
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

/// Posts bucketed in cells of about 25 m, so the posts near one are found among the
/// nine cells around it rather than among all posts.
struct PostGrid {
    /// Indices into the posts the grid was built from, per cell.
    private var cells: [Cell: [Int]] = [:]
    private static let degrees = SignalRules.nearbyMeters / 111_000

    private struct Cell: Hashable {
        var latitude: Int
        var longitude: Int
    }

    init(_ posts: [SignalScanner.Facts]) {
        for (index, post) in posts.enumerated() {
            cells[Self.cell(post.latitude, post.longitude), default: []].append(index)
        }
    }

    private static func cell(_ latitude: Double, _ longitude: Double) -> Cell {
        Cell(
            latitude: Int((latitude / degrees).rounded(.down)),
            longitude: Int((longitude / degrees).rounded(.down)))
    }

    /// Calls `body` with the index of every post that may lie within
    /// `SignalRules.nearbyMeters` of the position (and some that do not).
    func forEachCandidate(latitude: Double, longitude: Double, _ body: (Int) -> Void) {
        let center = Self.cell(latitude, longitude)
        // A longitude degree is shorter than a latitude degree by cos(latitude), so more
        // columns are in reach; near the poles, every column is.
        let cosine = max(cos((abs(latitude) + Self.degrees) * Double.pi / 180), 0)
        let first = Self.cell(0, -180).longitude
        let last = Self.cell(0, 180).longitude
        let columns = last - first + 1
        let reach = cosine > 0.01 ? Int((1 / cosine).rounded(.up)) : columns
        for row in center.latitude - 1...center.latitude + 1 {
            if reach * 2 + 1 >= columns {
                for (cell, indices) in cells where cell.latitude == row {
                    indices.forEach(body)
                }
                continue
            }
            for column in center.longitude - reach...center.longitude + reach {
                // Wrap around the antimeridian.
                var wrapped = column
                if wrapped < first { wrapped += columns }
                if wrapped > last { wrapped -= columns }
                cells[Cell(latitude: row, longitude: wrapped)]?.forEach(body)
            }
        }
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

    init(_ posts: [SignalScanner.Facts]) {
        var byUser: [String: [SignalScanner.Facts]] = [:]
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
    func earlier(than post: SignalScanner.Facts) -> (decided: Int, rejected: Int) {
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
