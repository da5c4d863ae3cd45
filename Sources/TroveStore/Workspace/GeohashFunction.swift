import TroveBase
import TroveSQLite

/// Registers `trove_geohash(lat, lon, precision)` on a connection, so SQL can compare
/// stored geohashes with GeoFire's.
package enum GeohashFunction {
    package static func register(on database: Database) throws {
        try database.createFunction("trove_geohash", argumentCount: 3) { arguments in
            guard let latitude = arguments.double(0), let longitude = arguments.double(1),
                let precision = arguments.int64(2), (1...22).contains(precision),
                Coordinate.isValid(latitude: latitude, longitude: longitude)
            else { return nil }
            return .text(
                Geohash.encode(latitude: latitude, longitude: longitude, precision: Int(precision)))
        }
    }
}
