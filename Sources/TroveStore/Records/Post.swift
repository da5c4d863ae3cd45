import TroveBase

/// The states a post moves through.
public enum PostStatus: String, CaseIterable, Sendable {
    case pending, approved, rejected, flagged
    /// No longer in the app's export it was imported from: its user deleted it. It takes
    /// no decision, and leaves this state only by coming back in a later import.
    case withdrawn
}

/// A post's version: the first 12 hex digits of the hash of everything a moderator
/// judges (user, position, text, date, photo reference and photo bytes). Decisions name
/// the version they were made on; a decision on a version that is no longer current is
/// refused.
public enum PostVersion {
    /// The version of a stored content hash.
    public static func of(contentHash: String) -> String {
        String(contentHash.prefix(length))
    }

    /// Hex digits in a version.
    public static let length = 12

    /// Whether `text` has a version's shape (12 lower-case hex digits).
    public static func isVersion(_ text: Substring) -> Bool {
        text.utf8.count == length
            && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// The version of content `contentHash` published with `redaction` (canonical boxes,
    /// `RedactionBox.canonical`): other boxes are another version. Nil without boxes: the
    /// content's own version stands.
    public static func redacted(contentHash: String, redaction: String?) -> String? {
        guard let redaction else { return nil }
        return String(
            SHA256.hex(Array((contentHash + "\nredaction " + redaction).utf8)).prefix(length))
    }

    /// The SQL expression of a post's version: with the boxes it is published with.
    static let sql = "coalesce(redacted_version, substr(content_hash, 1, 12))"
}

/// What an entry of the audit trail records, and so who made it.
public enum DecisionKind: String, CaseIterable, Sendable {
    /// A moderator's decision.
    case decision
    /// A moderator undoing their own decision, or a whole bulk decision (`undoes`).
    case undo
    /// The post's user withdrew it: it is gone from the export it was imported from.
    case withdrawal
    /// The post's user brought it back after a withdrawal.
    case restoration
    /// Its content changed after a decision, so the import put it back to pending.
    case reopening

    /// Whether a moderator made it (and is named in it).
    public var isModerators: Bool { self == .decision || self == .undo }
}

/// One entry of the audit trail.
public struct Decision: Equatable, Sendable {
    /// The post decided.
    public var postID: String
    /// When, ISO 8601 UTC.
    public var at: String
    /// What it records.
    public var kind: DecisionKind
    /// Who decided or undid; nil for what users and imports did.
    public var moderator: String?
    /// The post's user, for a withdrawal or a restoration (nil when the post has none).
    public var byUser: String?
    /// The status before.
    public var from: PostStatus
    /// The status after.
    public var to: PostStatus
    /// The rejection reason, for rejections.
    public var reason: String?
    /// The moderator's note.
    public var note: String?
    /// Who recorded it with `review apply`, when that was not the moderator who decided.
    public var appliedBy: String? = nil
    /// The review sheet the decision came from.
    public var sheet: String? = nil
    /// When the moderator decided in the sheet, ISO 8601 UTC.
    public var decidedAt: String? = nil
    /// The post's version the decision was made on (nil in older trails).
    public var version: String? = nil
    /// Its place in the trail, once recorded.
    public var seq: Int64? = nil
    /// The first entry of the action it belongs to (a bulk decision, the undo of one),
    /// when it is not that first entry itself.
    public var batch: Int64? = nil
    /// For an undo: the action undone.
    public var undoes: Int64? = nil
    /// The boxes the post is published with after it (canonical `x,y,w,h;…` fractions),
    /// for an approval with redaction and an undo restoring one.
    public var redaction: String? = nil

    package init(
        postID: String, at: String, kind: DecisionKind = .decision, moderator: String?,
        byUser: String? = nil, from: PostStatus, to: PostStatus, reason: String? = nil,
        note: String? = nil, appliedBy: String? = nil, sheet: String? = nil,
        decidedAt: String? = nil, version: String? = nil, seq: Int64? = nil,
        batch: Int64? = nil, undoes: Int64? = nil, redaction: String? = nil
    ) {
        self.postID = postID
        self.at = at
        self.kind = kind
        self.moderator = moderator
        self.byUser = byUser
        self.from = from
        self.to = to
        self.reason = reason
        self.note = note
        self.appliedBy = appliedBy
        self.sheet = sheet
        self.decidedAt = decidedAt
        self.version = version
        self.seq = seq
        self.batch = batch
        self.undoes = undoes
        self.redaction = redaction
    }

    /// The action it belongs to: the seq of the action's first entry (its own, for a
    /// decision on one post); nil before it is recorded.
    public var action: Int64? { batch ?? seq }

    /// Who made it, in words: the moderator, `user UID` for a user's withdrawal or
    /// restoration (`its user` when the post has none), `import` for a reopening.
    public var who: String {
        if let moderator { return moderator }
        switch kind {
        case .withdrawal, .restoration: return byUser.map { "user " + $0 } ?? "its user"
        case .reopening, .decision, .undo: return "import"
        }
    }
}

/// A post as the workspace holds it: what its user submitted, what the import found out
/// about its photo, its signals, and where review has got to. The one shape the review
/// code passes around.
///
/// Two other shapes of a post remain on purpose: a `PostInput` is a record as read from
/// an input file, with its source line, before it is checked and stored; a `PostSummary`
/// is the few columns the review queue's covering index holds, which `review list` reads
/// without touching the table.
public struct Post: Equatable, Sendable {
    /// The post's key in the app's database.
    public var id: String
    /// The submitting user.
    public var user: String?
    /// Latitude in decimal degrees.
    public var latitude: Double?
    /// Longitude in decimal degrees.
    public var longitude: Double?
    /// ISO 8601 day or moment.
    public var date: String?
    /// The submitter's text, with e-mail addresses removed.
    public var description: String?
    /// Where review has got to.
    public var status: PostStatus
    /// Signal names joined by `,` (as stored).
    public var signalNames: String
    /// The photo's real path inside the photos folder, when it was found.
    public var photo: String?
    /// The photo reference as written in the input.
    public var photoReference: String?
    /// Fingerprint of the photo bytes (`ContentHash`).
    public var photoHash: String?
    /// Upright photo width in pixels.
    public var photoWidth: Int?
    /// Upright photo height in pixels.
    public var photoHeight: Int?
    /// EXIF GPS latitude, signed decimal degrees.
    public var exifLatitude: Double?
    /// EXIF GPS longitude, signed decimal degrees.
    public var exifLongitude: Double?
    /// EXIF capture time, ISO 8601 local time.
    public var exifTime: String?
    /// GeoFire geohash of the position.
    public var geohash: String?
    /// Why the post is in its status (a decision note, or a change after a decision).
    public var statusNote: String?
    /// Where it was imported from: `file:line` or `file: JSON path`.
    public var source: String?
    /// When it was first imported.
    public var importedAt: String
    /// When its content or status last changed.
    public var updatedAt: String
    /// Its signals with details.
    public var signals: [Signal]
    /// Its version (`PostVersion`): what a decision on it names.
    public var version: String

    /// Creates the value from its parts.
    public init(
        id: String, user: String? = nil, latitude: Double? = nil, longitude: Double? = nil,
        date: String? = nil, description: String? = nil, status: PostStatus = .pending,
        signalNames: String = "", photo: String? = nil, photoReference: String? = nil,
        photoHash: String? = nil, photoWidth: Int? = nil, photoHeight: Int? = nil,
        exifLatitude: Double? = nil, exifLongitude: Double? = nil, exifTime: String? = nil,
        geohash: String? = nil, statusNote: String? = nil, source: String? = nil,
        importedAt: String = "", updatedAt: String = "", signals: [Signal] = [],
        version: String = ""
    ) {
        self.id = id
        self.user = user
        self.latitude = latitude
        self.longitude = longitude
        self.date = date
        self.description = description
        self.status = status
        self.signalNames = signalNames
        self.photo = photo
        self.photoReference = photoReference
        self.photoHash = photoHash
        self.photoWidth = photoWidth
        self.photoHeight = photoHeight
        self.exifLatitude = exifLatitude
        self.exifLongitude = exifLongitude
        self.exifTime = exifTime
        self.geohash = geohash
        self.statusNote = statusNote
        self.source = source
        self.importedAt = importedAt
        self.updatedAt = updatedAt
        self.signals = signals
        self.version = version
    }

    /// What the review list shows of it.
    public var summary: PostSummary {
        PostSummary(
            id: id, user: user, latitude: latitude, longitude: longitude, date: date,
            description: description, status: status.rawValue, signalNames: signalNames)
    }
}
