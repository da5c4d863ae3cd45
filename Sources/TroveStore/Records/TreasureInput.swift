import TroveBase

/// One treasure as read from an input file, before it reaches the workspace.
public struct TreasureInput: Equatable, Sendable {
    /// The explicit key, when the file gives one; otherwise one is derived from the name.
    public var key: String?
    public var name: String
    public var latitude: Double
    public var longitude: Double
    /// The image reference exactly as written in the file (a relative path, an absolute
    /// path, or an `http(s)://` URL).
    public var image: String?
    public var description: String?
    /// Columns or properties trove does not know, in file order, kept for layouts.
    public var extra: [ExtraField]
    /// Where the record came from.
    public var location: Diagnostic.Location

    public init(
        key: String? = nil, name: String, latitude: Double, longitude: Double,
        image: String? = nil, description: String? = nil, extra: [ExtraField] = [],
        location: Diagnostic.Location = .init()
    ) {
        self.key = key
        self.name = name
        self.latitude = latitude
        self.longitude = longitude
        self.image = image
        self.description = description
        self.extra = extra
        self.location = location
    }
}

/// An extra column or property and its value.
///
/// CSV values are text. GeoJSON property values keep their JSON type: `json` holds the
/// JSON text of a number, boolean, array or object exactly as written, and `value` the
/// same text (for messages); for a string `json` is nil.
public struct ExtraField: Equatable, Sendable {
    public var name: String
    public var value: String
    /// The JSON text of a value that is not a string; nil for text.
    public var json: String?

    /// A text value.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
        self.json = nil
    }

    /// A value that keeps its JSON type: `json` is its JSON text (not a string).
    public init(name: String, json: String) {
        self.name = name
        self.value = json
        self.json = json
    }
}
