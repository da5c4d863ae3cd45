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
    package static func json(_ signals: [Signal]) -> String {
        // What `JSONObject.compactJSONText` writes, built directly: every post's signals
        // are written at each scan. Names need no escapes.
        var text = "["
        for (index, signal) in signals.enumerated() {
            if index > 0 { text += "," }
            text += #"{"name":""# + signal.name.rawValue + #"","detail":"#
            text += jsonString(signal.detail) + "}"
        }
        return text + "]"
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
