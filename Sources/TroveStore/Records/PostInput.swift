/// One user submission as read from an input file, before it reaches the workspace.
///
/// Sensitive fields are already gone: `PostReader` drops password and e-mail fields and
/// replaces e-mail addresses before a `PostInput` exists.
public struct PostInput: Equatable, Sendable {
    /// The post's key in the app's database.
    public var id: String
    /// The submitting user's key (never an e-mail address).
    public var user: String?
    /// Latitude in decimal degrees.
    public var latitude: Double
    /// Longitude in decimal degrees.
    public var longitude: Double
    /// The submitter's text, with e-mail addresses removed.
    public var description: String?
    /// ISO 8601: `2022-01-24` for a day, `2022-01-24T10:15:00Z` for a moment (UTC).
    public var date: String?
    /// The photo reference exactly as written in the file (a path or a download URL).
    public var photo: String?
    /// Where the record came from: `posts.csv:12` or `export.json: Locations/p1`.
    public var source: String

    /// Creates the value from its parts.
    public init(
        id: String, user: String? = nil, latitude: Double, longitude: Double,
        description: String? = nil, date: String? = nil, photo: String? = nil, source: String = ""
    ) {
        self.id = id
        self.user = user
        self.latitude = latitude
        self.longitude = longitude
        self.description = description
        self.date = date
        self.photo = photo
        self.source = source
    }
}
