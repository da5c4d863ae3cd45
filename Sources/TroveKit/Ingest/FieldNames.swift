/// The column and field names that mean the same thing in treasure and post files, lower
/// case with the canonical name first: one table, so that a file both importers read is
/// read alike.
enum FieldNames {
    static let latitude = ["lat", "latitude", "y"]
    static let longitude = ["lon", "lng", "long", "longitude", "x"]
    static let description = ["description"]
}
