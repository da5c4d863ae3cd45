import Foundation
import TroveBase
import TroveStore

/// Reads treasures for `trove treasures list|show` and writes the listings: CSV and
/// GeoJSON that import back into the same treasures, and JSON for scripts.
public struct TreasureListing {
    private let store: TreasureStore
    private let precision: Int

    /// - Throws: `SQLiteError`.
    public init(workspace: Workspace) throws {
        store = TreasureStore(workspace)
        precision = try workspace.geohashPrecision()
    }

    /// Every treasure in key order (the order exports write).
    ///
    /// - Throws: `SQLiteError`, or what `body` throws.
    public func forEach(_ body: (Treasure) throws -> Void) throws {
        try store.forEachTreasure(geohashPrecision: precision, body)
    }

    /// The treasure `key`, or nil.
    ///
    /// - Throws: `SQLiteError`.
    public func treasure(_ key: String) throws -> Treasure? {
        try store.treasure(key, geohashPrecision: precision)
    }

    /// The renditions made for treasure `key`, by name.
    ///
    /// - Throws: `SQLiteError`.
    public func renditions(of key: String) throws -> [TreasureRendition] {
        try store.renditions(ofTreasure: key)
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
    public static func json(_ treasure: Treasure) -> String {
        object(treasure).jsonText
    }

    /// One treasure as a JSON object, for a listing that adds members of its own.
    public static func object(_ treasure: Treasure) -> JSONObject {
        var extra = JSONObject()
        for field in treasure.extras { extra.add(field.name, json: field.json) }
        return JSONObject([
            "key": treasure.key, "name": treasure.name, "lat": treasure.latitude,
            "lon": treasure.longitude, "description": treasure.description,
            "image": treasure.image, "extra": extra, "geohash": treasure.geohash,
            "file": treasure.source.file, "line": treasure.source.line,
            "feature": treasure.source.feature,
        ])
    }
}
