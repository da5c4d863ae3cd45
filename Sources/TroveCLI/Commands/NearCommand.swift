import Foundation
import TroveKit

enum NearCommand {
    static let command = Command(
        "near", abstract: "Find treasures (or posts) within a radius, nearest first.",
        discussion: """
            Works as a GeoFire circle query: geohash range scans over the stored geohashes,
            then an exact great-circle filter (R = 6371 km). Records without a current
            geohash are not found: run 'trove geohash' first.
            """,
        arguments: [
            Argument("lat", help: "Latitude of the centre, in degrees.", completion: .nothing),
            Argument("lon", help: "Longitude of the centre, in degrees.", completion: .nothing),
        ],
        options: [
            Option("radius", value: "distance", help: "How far to look: 500m, 2km (default 1km)."),
            Option("posts", help: "Search posts instead of treasures."),
            Option("limit", value: "n", help: "Print at most this many."),
        ],
        formats: [.text, .json, .csv]
    ) { invocation in
        let latitudeText = invocation.argument("lat")!
        let longitudeText = invocation.argument("lon")!
        guard let latitude = Double(latitudeText) else {
            throw invocation.usageError("invalid latitude '\(latitudeText)': expected -90 to 90")
        }
        do throws(CoordinateError) {
            try Coordinate.check(latitude: latitude, text: latitudeText)
        } catch {
            throw invocation.usageError(error.description)
        }
        guard let longitude = Double(longitudeText) else {
            throw invocation.usageError(
                "invalid longitude '\(longitudeText)': expected -180 to 180")
        }
        do throws(CoordinateError) {
            try Coordinate.check(longitude: longitude, text: longitudeText)
        } catch {
            throw invocation.usageError(error.description)
        }
        let radius: Double
        do {
            radius = try parseRadius(invocation.option("radius") ?? "1km")
        } catch {
            throw invocation.usageError(String(describing: error))
        }
        let limit = try invocation.option("limit", as: "a whole number") {
            Int($0).flatMap { $0 >= 0 ? $0 : nil }
        }
        let workspace = try invocation.openWorkspace()
        let kind: NearbySearch.Kind = invocation.flag("posts") ? .posts : .treasures
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
            let out = invocation.context.standardOutput
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

    static func formatDistance(_ metres: Double) -> String {
        metres >= 1000 ? "\(jsonNumber(metres / 1000)) km" : "\(jsonNumber(metres)) m"
    }
}
