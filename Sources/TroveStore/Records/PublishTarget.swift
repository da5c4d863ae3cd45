/// Where a layout's tree is published: one Realtime Database and one Storage bucket.
public struct PublishTarget: Equatable, Sendable {
    public var name: String
    /// The database's root URL (`https://PROJECT-default-rtdb.firebaseio.com`), without a
    /// trailing slash.
    public var databaseURL: String
    /// The bare bucket name.
    public var bucket: String
    /// A built-in layout's name or a layout file's absolute path.
    public var layout: String
    public var isDefault: Bool
    /// When its last publish completed, or nil before the first.
    public var publishedAt: String?

    public init(
        name: String, databaseURL: String, bucket: String, layout: String,
        isDefault: Bool = false, publishedAt: String? = nil
    ) {
        self.name = name
        self.databaseURL = databaseURL
        self.bucket = bucket
        self.layout = layout
        self.isDefault = isDefault
        self.publishedAt = publishedAt
    }
}
