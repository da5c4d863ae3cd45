/// A post as the review list shows it: the columns the review queue's covering index
/// holds, so a listing of every post reads the index in order and never the table. A
/// `Post` gives its own with `summary`.
public struct PostSummary: Equatable, Sendable {
    /// The post id.
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
    /// pending, approved, rejected or flagged.
    public var status: String
    /// Signal names joined by `,` (as stored).
    public var signalNames: String

    /// The signal names.
    public var signals: [String] {
        signalNames.isEmpty ? [] : signalNames.split(separator: ",").map(String.init)
    }
}

/// One version of a post's reviewed fields, as an import first held it.
public struct PostVersionRecord: Equatable, Sendable {
    /// The version.
    public var version: String
    /// The fields a moderator judges, as in `Post`.
    public var user: String?
    public var latitude: Double?
    public var longitude: Double?
    public var description: String?
    public var date: String?
    public var photoReference: String?
    public var photoHash: String?
    /// When an import first held this version.
    public var seenAt: String
}
