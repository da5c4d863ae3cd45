import Foundation
import TroveSQLite

/// One extra column of a treasure, as the workspace stores it.
public struct TreasureExtra: Equatable, Sendable {
    public var name: String
    /// The value as JSON text (`"50"` for a string, `50` for a number).
    public var json: String
    /// The value for a table cell: a string's own text, any other value's JSON text.
    public var text: String
}

/// Everything the workspace knows about one treasure.
public struct TreasureDetails: Equatable, Sendable {
    public var key: String
    public var name: String
    public var latitude: Double
    public var longitude: Double
    public var description: String?
    /// An absolute path or an `http(s)` URL.
    public var image: String?
    public var extras: [TreasureExtra]
    public var geohash: String?
    /// Whether `geohash` matches the position at the workspace's precision.
    public var geohashIsCurrent: Bool
    /// The file it was last imported from, as it was named then.
    public var file: String?
    /// Its line there, or its feature in a GeoJSON FeatureCollection; both nil once the
    /// row is gone from the file.
    public var line: Int?
    public var feature: Int?

    /// `file:line`, `file:feature 3`, `file (no longer in it)`, or nil when it came from
    /// no file.
    public var sourceText: String? {
        guard let file else { return nil }
        guard line != nil || feature != nil else { return "\(file) (no longer in it)" }
        return Diagnostic.Location(file: file, line: line, feature: feature).text
    }
}

/// A rendition made for a treasure.
public struct TreasureRendition: Equatable, Sendable {
    public var name: String
    public var path: String
    public var width: Int
    public var height: Int
}

/// Reads treasures for `trove treasures list|show` and writes the listings: CSV and
/// GeoJSON that import back into the same treasures, and JSON for scripts.
public struct TreasureListing {
    private let workspace: Workspace
    private let precision: Int

    /// - Throws: `SQLiteError`.
    public init(workspace: Workspace) throws {
        self.workspace = workspace
        precision = try workspace.geohashPrecision()
    }

    private static let select = """
        SELECT t.key, t.name, t.lat, t.lon, t.description, t.image, t.extra, g.geohash,
               coalesce(s.name, s.path), t.source_line
        FROM treasures AS t LEFT JOIN sources AS s ON s.id = t.source
        LEFT JOIN treasure_geohashes AS g ON g.key = t.key
        """

    /// Every treasure in key order (the order exports write).
    ///
    /// - Throws: `SQLiteError`, or what `body` throws.
    public func forEach(_ body: (TreasureDetails) throws -> Void) throws {
        let statement = try workspace.database.prepare(Self.select + " ORDER BY t.key")
        while let row = try statement.next() { try body(details(row)) }
    }

    /// The treasure `key`, or nil.
    ///
    /// - Throws: `SQLiteError`.
    public func treasure(_ key: String) throws -> TreasureDetails? {
        let statement = try workspace.database.prepare(Self.select + " WHERE t.key = ?")
        try statement.bind([.text(key)])
        return try statement.next().map(details)
    }

    /// The renditions made for treasure `key`, by name.
    ///
    /// - Throws: `SQLiteError`.
    public func renditions(of key: String) throws -> [TreasureRendition] {
        try workspace.database.query(
            """
            SELECT name, path, width, height FROM renditions
            WHERE owner_kind = 'treasure' AND owner_key = ? ORDER BY name
            """, [.text(key)]
        ) {
            TreasureRendition(
                name: $0.text(0) ?? "", path: $0.text(1) ?? "", width: Int($0.int64(2) ?? 0),
                height: Int($0.int64(3) ?? 0))
        }
    }

    private func details(_ row: Row) -> TreasureDetails {
        let latitude = row.double(2) ?? .nan
        let longitude = row.double(3) ?? .nan
        let geohash = row.text(7)
        let source = SourceLine.location(file: nil, stored: row.int64(9))
        let current =
            geohash.map {
                $0 == Geohash.encode(latitude: latitude, longitude: longitude, precision: precision)
            } ?? false
        return TreasureDetails(
            key: row.text(0) ?? "", name: row.text(1) ?? "", latitude: latitude,
            longitude: longitude, description: row.text(4), image: row.text(5),
            extras: Self.extras(row.text(6)), geohash: geohash, geohashIsCurrent: current,
            file: row.text(8), line: source?.line, feature: source?.feature)
    }

    /// The stored extra columns, in file order. Whatever type a value is stored with, it
    /// is given back with that type.
    static func extras(_ json: String?) -> [TreasureExtra] {
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

    // MARK: - Listings

    /// The treasures as CSV that `import treasures` reads back into the same treasures:
    /// `key,name,lat,lon,image,description`, then every extra column in order of first
    /// appearance. Numbers print as the export prints them; CRLF line ends (RFC 4180).
    ///
    /// CSV has only text: an extra stored with another JSON type (a GeoJSON number,
    /// boolean, array or object) is written as its JSON text and comes back as text.
    ///
    /// - Returns: those extras, as treasure key and column, in key order.
    /// - Throws: `SQLiteError`, or what `write` throws.
    @discardableResult
    public func writeCSV(_ write: (String) throws -> Void) throws -> [(key: String, column: String)]
    {
        var columns: [String] = []
        var known = Set<String>()
        try forEach { treasure in
            for extra in treasure.extras where known.insert(extra.name).inserted {
                columns.append(extra.name)
            }
        }
        let header = ["key", "name", "lat", "lon", "image", "description"] + columns
        try write(CSVWriter.record(header))
        var chunk = ""
        var typed: [(key: String, column: String)] = []
        try forEach { treasure in
            var fields = [
                treasure.key, treasure.name, jsonNumber(treasure.latitude),
                jsonNumber(treasure.longitude), treasure.image ?? "", treasure.description ?? "",
            ]
            var values: [String: String] = [:]
            for extra in treasure.extras {
                values[extra.name] = extra.text
                if !extra.json.hasPrefix("\"") { typed.append((treasure.key, extra.name)) }
            }
            fields += columns.map { values[$0] ?? "" }
            chunk += CSVWriter.record(fields)
            if chunk.utf8.count > 1 << 16 {
                try write(chunk)
                chunk = ""
            }
        }
        try write(chunk)
        return typed
    }

    /// The treasures as an RFC 7946 FeatureCollection that `import treasures` reads back:
    /// each a Point feature with the key as `id`, `[lon, lat]` coordinates, and `name`,
    /// `description`, `image` and the extras (with their stored JSON types) as properties.
    ///
    /// - Throws: `SQLiteError`, or what `write` throws.
    public func writeGeoJSON(_ write: (String) throws -> Void) throws {
        var features = JSONLineWriter(indent: "")
        try write("{\"type\": \"FeatureCollection\", \"features\": " + features.opening)
        var chunk = ""
        try forEach { treasure in
            chunk += features.next()
            var properties = JSONObject(["name": treasure.name])
            if let description = treasure.description { properties.add("description", description) }
            if let image = treasure.image { properties.add("image", image) }
            for extra in treasure.extras { properties.add(extra.name, json: extra.json) }
            let point = JSONObject([
                "type": "Point", "coordinates": [treasure.longitude, treasure.latitude],
            ])
            chunk +=
                JSONObject([
                    "type": "Feature", "id": treasure.key, "geometry": point,
                    "properties": properties,
                ]).jsonText
            if chunk.utf8.count > 1 << 16 {
                try write(chunk)
                chunk = ""
            }
        }
        try write(chunk + features.closing + "}\n")
    }

    /// The treasures as a JSON array, one object a line: `key`, `name`, `lat`, `lon`,
    /// `description`, `image`, `extra` (an object), `geohash`, `file`, `line`.
    ///
    /// - Throws: `SQLiteError`, or what `write` throws.
    public func writeJSON(_ write: (String) throws -> Void) throws {
        var treasures = JSONLineWriter()
        try write(treasures.opening)
        var chunk = ""
        try forEach { treasure in
            chunk += treasures.next() + Self.json(treasure)
            if chunk.utf8.count > 1 << 16 {
                try write(chunk)
                chunk = ""
            }
        }
        try write(chunk + treasures.closing + "\n")
    }

    /// One treasure as a JSON object on one line.
    public static func json(_ treasure: TreasureDetails) -> String {
        object(treasure).jsonText
    }

    /// One treasure as a JSON object, for a listing that adds members of its own.
    public static func object(_ treasure: TreasureDetails) -> JSONObject {
        var extra = JSONObject()
        for field in treasure.extras { extra.add(field.name, json: field.json) }
        return JSONObject([
            "key": treasure.key, "name": treasure.name, "lat": treasure.latitude,
            "lon": treasure.longitude, "description": treasure.description,
            "image": treasure.image, "extra": extra, "geohash": treasure.geohash,
            "file": treasure.file, "line": treasure.line, "feature": treasure.feature,
        ])
    }
}
