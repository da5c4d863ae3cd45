import Foundation
import TroveBase

/// A setting stored with `trove config`, with what it means and how its value is checked.
public struct Setting: Sendable {
    public let key: String
    public let summary: String
    /// Returns an error message when `value` is not acceptable.
    let check: @Sendable (String) -> String?
    /// The form an accepted value is stored in.
    let normalize: @Sendable (String) -> String

    init(
        key: String, summary: String,
        normalize: @escaping @Sendable (String) -> String = { $0 },
        check: @escaping @Sendable (String) -> String?
    ) {
        self.key = key
        self.summary = summary
        self.normalize = normalize
        self.check = check
    }

    public static let storageBucket = Setting(
        key: "storage.bucket",
        summary: "Firebase Storage bucket: NAME.appspot.com, NAME.firebasestorage.app, gs://NAME "
            + "or the console's Storage URL; stored as the bare name",
        normalize: { StorageBucket.normalize($0) ?? $0 }
    ) { StorageBucket.normalize($0) == nil ? "expected \(StorageBucket.acceptedForms)" : nil }

    public static let storageURLTemplate = Setting(
        key: "storage.url-template",
        summary: "download URL template with {path} or {rawpath}, and {bucket}, {token} "
            + "(overrides the Firebase URL)"
    ) { StorageURL.templateProblem($0) }

    public static let storageTokens = Setting(
        key: "storage.tokens",
        summary: "on (default): download URLs carry each object's token; off: public reads"
    ) { $0 == "on" || $0 == "off" ? nil : "expected on or off" }

    public static let geohashPrecision = Setting(
        key: "geohash.precision", summary: "geohash length, 1-22 (default 10)"
    ) {
        guard let value = Int($0), (1...22).contains(value) else {
            return "expected a whole number from 1 to 22"
        }
        return nil
    }

    public static let gameBounds = Setting(
        key: "game.bounds", summary: "minLat,minLon,maxLat,maxLon the treasures should lie in"
    ) { GeoBounds(parsing: $0) == nil ? "expected minLat,minLon,maxLat,maxLon" : nil }

    public static let reviewBlockedWords = Setting(
        key: "review.blocked-words", summary: "comma-separated words that flag a post's text"
    ) { _ in nil }

    public static let reviewArea = Setting(
        key: "review.area", summary: "minLat,minLon,maxLat,maxLon posts are expected in"
    ) { GeoBounds(parsing: $0) == nil ? "expected minLat,minLon,maxLat,maxLon" : nil }

    public static let reviewClaimMinutes = Setting(
        key: "review.claim-minutes",
        summary: "minutes a post opened in 'review serve' stays claimed (default 5)"
    ) {
        guard let value = Double($0), value.isFinite, value > 0, value <= 1440 else {
            return "expected a number of minutes above 0, at most 1440"
        }
        return nil
    }

    public static let treasureRenditions = Setting(
        key: "renditions.treasures",
        summary: "treasure renditions, e.g. full=1024x1024,thumb=256x256,pin=100x100:cover"
    ) { renditionProblem($0) }

    public static let postRenditions = Setting(
        key: "renditions.posts", summary: "post renditions, e.g. full=1600x1600,thumb=256x256"
    ) { renditionProblem($0) }

    public static let renditionQuality = Setting(
        key: "renditions.quality",
        summary: "JPEG quality of renditions, 1-100 (default 80); 'images --quality' sets it"
    ) {
        guard let value = Int($0), (1...100).contains(value) else {
            return "expected a whole number from 1 to 100"
        }
        return nil
    }

    private static func renditionProblem(_ text: String) -> String? {
        if case .failure(let error) = RenditionSpec.parseList(text) { return error.description }
        return nil
    }

    /// Every known setting, in the order `config list` shows them.
    public static let all: [Setting] = [
        storageBucket, storageURLTemplate, storageTokens, geohashPrecision, gameBounds,
        reviewBlockedWords,
        reviewArea, reviewClaimMinutes, treasureRenditions, postRenditions, renditionQuality,
    ]

    /// The setting named `key`, or nil.
    public static func named(_ key: String) -> Setting? {
        all.first { $0.key == key }
    }

    /// An error message when `value` is not acceptable for this setting.
    public func problem(with value: String) -> String? {
        check(value)
    }

    /// The form an accepted `value` is stored in (`gs://NAME` is stored as `NAME`).
    public func normalized(_ value: String) -> String {
        normalize(value)
    }
}
