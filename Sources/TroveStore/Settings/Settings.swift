import TroveBase

/// Whether download URLs carry each object's token (`storage.tokens`).
public enum TokenPolicy: String, Sendable {
    /// Every URL names its object's token (the default).
    case on
    /// Public reads: URLs name no token.
    case off

    public var usesTokens: Bool { self == .on }
}

/// The workspace's settings, read once and parsed into the values commands use: what
/// `trove config` stores, with the defaults for what it does not.
///
/// `config set` checks every value, so a value it would refuse was written some other way;
/// reading one is refused (``SettingError``) rather than quietly taken as the default.
public struct Settings: Equatable, Sendable {
    /// `storage.bucket`, the bare bucket name.
    public var storageBucket: String?
    /// `storage.url-template`.
    public var storageURLTemplate: String?
    /// `storage.tokens`.
    public var tokens = TokenPolicy.on
    /// `geohash.precision`.
    public var geohashPrecision = Geohash.defaultPrecision
    /// `game.bounds`.
    public var gameBounds: GeoBounds?
    /// `review.blocked-words`, each trimmed, none empty.
    public var blockedWords: [String] = []
    /// `review.area`.
    public var reviewArea: GeoBounds?
    /// `review.claim-minutes`.
    public var claimMinutes = 5.0
    /// `renditions.treasures`.
    public var treasureRenditions = RenditionSpec.treasureDefaults
    /// `renditions.posts`.
    public var postRenditions = RenditionSpec.postDefaults
    /// `renditions.quality`; nil when `images` has not been given one.
    public var renditionQuality: Int?

    /// The defaults of every setting.
    public init() {}

    /// The settings `stored` holds (by key; keys trove does not know are passed over).
    ///
    /// - Throws: `SettingError` for a value `config set` would refuse.
    public init(stored: [String: String]) throws(SettingError) {
        func value(_ setting: Setting) throws(SettingError) -> String? {
            guard let text = stored[setting.key] else { return nil }
            if let problem = setting.problem(with: text) {
                throw SettingError(key: setting.key, value: text, problem: problem)
            }
            return text
        }
        storageBucket = try value(.storageBucket).map { StorageBucket.normalize($0) ?? $0 }
        storageURLTemplate = try value(.storageURLTemplate)
        if let text = try value(.storageTokens) { tokens = TokenPolicy(rawValue: text) ?? .on }
        if let text = try value(.geohashPrecision), let precision = Int(text) {
            geohashPrecision = precision
        }
        gameBounds = try value(.gameBounds).flatMap(GeoBounds.init(parsing:))
        blockedWords = (try value(.reviewBlockedWords) ?? "")
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        reviewArea = try value(.reviewArea).flatMap(GeoBounds.init(parsing:))
        if let text = try value(.reviewClaimMinutes), let minutes = Double(text) {
            claimMinutes = minutes
        }
        if let text = try value(.treasureRenditions),
            case .success(let specs) = RenditionSpec.parseList(text)
        {
            treasureRenditions = specs
        }
        if let text = try value(.postRenditions),
            case .success(let specs) = RenditionSpec.parseList(text)
        {
            postRenditions = specs
        }
        renditionQuality = try value(.renditionQuality).flatMap { Int($0) }
    }
}

/// A stored setting that `trove config set` would refuse: it was written some other way.
public struct SettingError: Error, CustomStringConvertible, Equatable, Sendable {
    public let key: String
    public let value: String
    /// Why the value is refused, as `config set` says it.
    public let problem: String

    public var description: String {
        "setting \(key) holds '\(value)', which trove does not take (\(problem)); set it "
            + "with 'trove config set \(key) VALUE' or remove it with 'trove config unset \(key)'"
    }
}
