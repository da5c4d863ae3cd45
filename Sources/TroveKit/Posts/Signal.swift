import Foundation
import TroveBase

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
        compactJSONArray(
            signals.map {
                JSONObject(["name": $0.name.rawValue, "detail": $0.detail]).compactJSONText
            })
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
