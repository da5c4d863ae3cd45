import Foundation
import TroveBase
import TroveCommandLine
import TroveKit

enum NearCommand {
    static let command = Command(
        "near", abstract: "Find treasures (or posts) within a radius, nearest first.",
        discussion: """
            Works as a GeoFire circle query: geohash range scans over the stored geohashes,
            then an exact great-circle filter (R = 6371 km). Records without a current
            geohash are not found: run 'trove geohash' first.
            """,
        arguments: [latitude, longitude],
        options: [radius, posts, limit],
        formats: [.text, .json, .csv]
    ) { invocation in
        let latitude = invocation[Self.latitude]
        let longitude = invocation[Self.longitude]
        let radius = try invocation[Self.radius] ?? parseRadius("1km")
        let limit = invocation[Self.limit]
        let workspace = try invocation.openWorkspace()
        let kind: NearbySearch.Kind = invocation[Self.posts] ? .posts : .treasures
        var found = try NearbySearch.search(
            workspace, kind: kind,
            circle: GeoCircle(latitude: latitude, longitude: longitude, radius: radius))
        if let limit { found = Array(found.prefix(limit)) }

        switch invocation.format {
        case .json:
            let items = found.map {
                JSONObject([
                    "key": $0.key, "name": $0.name, "lat": $0.latitude, "lon": $0.longitude,
                    "distance_m": ($0.distance * 10).rounded() / 10,
                ])
            }
            invocation.print(items.jsonText)
        case .csv:
            // Escaped for a terminal, exact for a pipe (`Invocation.escapesData`).
            let out = invocation
            out.write(CSVWriter.record(["key", "name", "lat", "lon", "distance_m"]))
            for record in found {
                out.write(
                    CSVWriter.record([
                        record.key, record.name, jsonNumber(record.latitude),
                        jsonNumber(record.longitude), String(format: "%.1f", record.distance),
                    ]))
            }
        case .text, .geojson:
            for record in found {
                invocation.print(
                    String(format: "%8.1f m  ", record.distance)
                        + "\(record.key)  \(record.name)  (\(record.latitude), \(record.longitude))"
                )
            }
            invocation.note("\(found.count) found within \(formatDistance(radius))")
        }
        return .success
    }

    static let latitude = Argument<Double>(
        "lat", help: "Latitude of the centre, in degrees.", completion: .nothing
    ) { word throws(InvalidValue) in
        try degrees(word, "latitude", expected: "-90 to 90") { value throws(CoordinateError) in
            try Coordinate.check(latitude: value, text: word)
        }
    }
    static let longitude = Argument<Double>(
        "lon", help: "Longitude of the centre, in degrees.", completion: .nothing
    ) { word throws(InvalidValue) in
        try degrees(word, "longitude", expected: "-180 to 180") { value throws(CoordinateError) in
            try Coordinate.check(longitude: value, text: word)
        }
    }

    /// `word` as degrees: a word that is no number is "invalid AXIS 'WORD': expected …", a
    /// number out of range is refused in Coordinate's words.
    static func degrees(
        _ word: String, _ axis: String, expected: String,
        check: (Double) throws(CoordinateError) -> Void
    ) throws(InvalidValue) -> Double {
        guard let value = Double(word) else {
            throw InvalidValue("invalid \(axis) '\(word)': expected \(expected)")
        }
        do throws(CoordinateError) { try check(value) } catch {
            throw InvalidValue(error.description)
        }
        return value
    }
    static let radius = Option<Double>(
        "radius", value: "distance", help: "How far to look: 500m, 2km (default 1km)."
    ) { word throws(InvalidValue) in
        do { return try parseRadius(word) } catch { throw InvalidValue(String(describing: error)) }
    }
    static let posts = Flag("posts", help: "Search posts instead of treasures.")
    static let limit = Option<Int>(
        "limit", value: "n", help: "Print at most this many.", expected: "a whole number"
    ) { Int($0).flatMap { $0 >= 0 ? $0 : nil } }

    static func formatDistance(_ metres: Double) -> String {
        metres >= 1000 ? "\(jsonNumber(metres / 1000)) km" : "\(jsonNumber(metres)) m"
    }
}
