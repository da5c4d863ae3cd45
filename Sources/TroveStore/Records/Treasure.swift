import TroveBase

/// A treasure as the workspace holds it: what `treasures list|show` print, what validate
/// checks, what `TreasureStore` reads and returns.
///
/// A reader fills what it needs: validate's scan leaves the image, description and
/// geohash out for a record it only compares with others, and a circle query reads the
/// key, name and position alone. Two shapes stay apart, being other things: a row as read
/// from an input file (``TreasureInput``: its key may be missing, its image is as written,
/// its extras are fields of the file), and the export renderer's `ExportRecord`, which
/// reads rows in place for speed.
public struct Treasure: Equatable, Sendable {
    public var key: String
    public var name: String
    /// The position as stored. A workspace may hold one out of range (validate reports
    /// it), and listings show it as it is: see ``coordinate``.
    public var latitude: Double
    public var longitude: Double
    public var description: String?
    /// An absolute path or an `http(s)` URL.
    public var image: String?
    /// The extra columns, in file order.
    public var extras: [TreasureExtra]
    /// The stored geohash, nil before `trove geohash`.
    public var geohash: String?
    /// Whether `geohash` matches the position at the workspace's precision, when the
    /// reader was given one.
    public var geohashIsCurrent: Bool
    /// The file it was last imported from (as named then), and its line there or its
    /// feature in a GeoJSON FeatureCollection; the line and feature are nil once the row is
    /// gone from the file.
    public var source: Diagnostic.Location

    public init(
        key: String, name: String, latitude: Double, longitude: Double,
        description: String? = nil, image: String? = nil, extras: [TreasureExtra] = [],
        geohash: String? = nil, geohashIsCurrent: Bool = false,
        source: Diagnostic.Location = .init()
    ) {
        self.key = key
        self.name = name
        self.latitude = latitude
        self.longitude = longitude
        self.description = description
        self.image = image
        self.extras = extras
        self.geohash = geohash
        self.geohashIsCurrent = geohashIsCurrent
        self.source = source
    }

    /// The position, or nil when it is out of range or not a number.
    public var coordinate: Coordinate? {
        Coordinate(validLatitude: latitude, longitude: longitude)
    }

    /// Where findings about it point: its file and line (or feature), or nowhere once its
    /// row is gone from the file, when findings name it by key.
    public var location: Diagnostic.Location {
        source.line != nil || source.feature != nil ? source : Diagnostic.Location()
    }

    /// `file:line`, `file:feature 3`, `file (no longer in it)`, or nil when it came from
    /// no file.
    public var sourceText: String? {
        guard let file = source.file else { return nil }
        guard source.line != nil || source.feature != nil else {
            return "\(file) (no longer in it)"
        }
        return Diagnostic.Location(file: file, line: source.line, feature: source.feature).text
    }
}

/// One extra column of a treasure, as the workspace stores it.
public struct TreasureExtra: Equatable, Sendable {
    public var name: String
    /// The value as JSON text (`"50"` for a string, `50` for a number).
    public var json: String
    /// The value for a table cell: a string's own text, any other value's JSON text.
    public var text: String

    /// The extras stored as the `extra` column's JSON object, in file order. Whatever type
    /// a value is stored with, it is given back with that type.
    static func parse(_ json: String?) -> [TreasureExtra] {
        guard let json else { return [] }
        var parser = JSONParser(Array(json.utf8))
        guard case .object(let members)? = try? parser.parseValue() else { return [] }
        return members.map { member in
            let text: String
            switch member.value {
            case .string(let string): text = string
            case .null: text = ""
            default: text = member.value.jsonText
            }
            return TreasureExtra(name: member.name, json: member.value.jsonText, text: text)
        }
    }
}

/// A rendition made for a treasure.
public struct TreasureRendition: Equatable, Sendable {
    public var name: String
    public var path: String
    public var width: Int
    public var height: Int
}
