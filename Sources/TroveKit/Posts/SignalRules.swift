import Foundation
import TroveBase

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
