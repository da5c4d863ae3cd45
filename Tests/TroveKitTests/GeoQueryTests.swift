import Foundation
import Testing

@testable import TroveBase

@Suite struct GeoQueryTests {
    struct Point {
        var latitude: Double
        var longitude: Double
        var geohash: String
    }

    /// The point `distance` metres from a start, along an initial bearing, on the
    /// distance filter's sphere (longitude wrapped into [-180, 180]).
    static func destination(
        latitude: Double, longitude: Double, distance: Double, bearing: Double
    ) -> (Double, Double) {
        let angle = distance / earthRadiusMetres
        let phi = latitude * .pi / 180
        let lambda = longitude * .pi / 180
        let phi2 = asin(sin(phi) * cos(angle) + cos(phi) * sin(angle) * cos(bearing))
        let lambda2 =
            lambda + atan2(sin(bearing) * sin(angle) * cos(phi), cos(angle) - sin(phi) * sin(phi2))
        var lon = lambda2 * 180 / .pi
        while lon > 180 { lon -= 360 }
        while lon < -180 { lon += 360 }
        return (min(90, max(-90, phi2 * 180 / .pi)), lon)
    }

    static func point(_ latitude: Double, _ longitude: Double, precision: Int) -> Point {
        Point(
            latitude: latitude, longitude: longitude,
            geohash: Geohash.encode(latitude: latitude, longitude: longitude, precision: precision))
    }

    // MARK: - Distance

    @Test(arguments: [
        (0.0, 0.0, 0.0, 0.0, 0.0),
        (0, 0, 0, 1, 111_194.926_644_558_7),
        (90, 0, -90, 0, 20_015_086.796_020_57),
        (0, -180, 0, 180, 0),
        (40.7128, -74.0060, 51.5074, -0.1278, 5_570_222.179_737_958),
    ])
    func haversineDistance(lat1: Double, lon1: Double, lat2: Double, lon2: Double, metres: Double) {
        let distance = greatCircleDistance(
            fromLatitude: lat1, longitude: lon1, toLatitude: lat2, longitude: lon2)
        #expect(abs(distance - metres) < 1e-3)
    }

    // MARK: - Ranges

    @Test func rangeContainsIsHalfOpenByteOrder() {
        let range = GeohashRange(start: "9q8y", end: "9q8z")
        #expect(range.contains("9q8y"))
        #expect(range.contains("9q8yywe56g"))
        #expect(!range.contains("9q8z"))
        #expect(!range.contains("9q8x~"))
        #expect(GeohashRange(start: "9q8y", end: "9q8~").contains("9q8zzz"))
    }

    @Test func rangesAreSortedDisjointAndFew() {
        var random = SeededGenerator(state: 7)
        for _ in 0..<2000 {
            let circle = GeoCircle(
                latitude: Double.random(in: -90...90, using: &random),
                longitude: Double.random(in: -180...180, using: &random),
                radius: exp(Double.random(in: 0...log(2_000_000.0), using: &random)))
            let ranges = circle.geohashRanges()
            #expect(!ranges.isEmpty)
            for (a, b) in zip(ranges, ranges.dropFirst()) {
                #expect(a.end.utf8.lexicographicallyPrecedes(b.start.utf8), "\(ranges)")
            }
            for range in ranges {
                #expect(range.start.utf8.lexicographicallyPrecedes(range.end.utf8))
            }
            #expect(ranges.count <= 48, "\(circle): \(ranges.count) ranges")
        }
    }

    @Test func smallCircleNeedsOnlyAFewRanges() {
        let ranges = GeoCircle(latitude: 19.915403, longitude: -155.887403, radius: 50)
            .geohashRanges()
        #expect(ranges.count <= 9)
        #expect(ranges.allSatisfy { $0.start.hasPrefix("8e91k9") })
    }

    @Test func hugeCircleScansEverything() {
        #expect(
            GeoCircle(latitude: 10, longitude: 10, radius: 30_000_000).geohashRanges()
                == [GeohashRange(start: "0", end: "~")])
    }

    @Test func rangesAreNeverFinerThanTheStoredHashes() {
        let ranges = GeoCircle(latitude: 1, longitude: 2, radius: 1).geohashRanges(
            storedPrecision: 4)
        #expect(ranges.allSatisfy { $0.start.count <= 4 })
        let stored = Geohash.encode(latitude: 1, longitude: 2, precision: 4)
        #expect(ranges.contains { $0.contains(stored) })
    }

    /// Centres that stress the cover: anywhere, at the antimeridian, near the poles, on
    /// a pole, and on the equator.
    static func centre(_ kind: Int, _ random: inout SeededGenerator) -> (Double, Double) {
        switch kind {
        case 0:
            return (
                Double.random(in: -90...90, using: &random),
                Double.random(in: -180...180, using: &random)
            )
        case 1:
            return (
                Double.random(in: -80...80, using: &random),
                (Bool.random(using: &random) ? 1 : -1)
                    * Double.random(in: 179.9...180, using: &random)
            )
        case 2:
            return (
                (Bool.random(using: &random) ? 1 : -1) * Double.random(in: 89...90, using: &random),
                Double.random(in: -180...180, using: &random)
            )
        case 3:
            return (
                (Bool.random(using: &random) ? 90 : -90),
                Double.random(in: -180...180, using: &random)
            )
        default:
            return (0, Double.random(in: -180...180, using: &random))
        }
    }

    @Test(arguments: [10, 5, 22])
    func rangeScanThenDistanceFilterEqualsBruteForce(precision: Int) {
        var random = SeededGenerator(state: UInt64(precision))
        // Points spread over the globe, on the edges of the coordinate space …
        var points: [Point] = (0..<1500).map { _ in
            Self.point(
                asin(Double.random(in: -1...1, using: &random)) * 180 / .pi,
                Double.random(in: -180...180, using: &random), precision: precision)
        }
        for latitude in [-90.0, -45, 0, 45, 90] {
            for longitude in [-180.0, -90, 0, 90, 180] {
                points.append(Self.point(latitude, longitude, precision: precision))
            }
        }
        var checked = 0
        var found = 0
        for query in 0..<400 {
            let (latitude, longitude) = Self.centre(query % 5, &random)
            let radius = exp(Double.random(in: 0...log(2_000_000.0), using: &random))
            let circle = GeoCircle(latitude: latitude, longitude: longitude, radius: radius)
            // … and around this query, just inside and just outside its radius.
            var local = points
            for _ in 0..<60 {
                let (lat, lon) = Self.destination(
                    latitude: latitude, longitude: longitude,
                    distance: radius * Double.random(in: 0.9...1.1, using: &random),
                    bearing: Double.random(in: 0...(2 * .pi), using: &random))
                local.append(Self.point(lat, lon, precision: precision))
            }
            let ranges = circle.geohashRanges(storedPrecision: precision)
            let candidates = local.filter { point in ranges.contains { $0.contains(point.geohash) }
            }
            let viaRanges = candidates.filter {
                circle.contains(latitude: $0.latitude, longitude: $0.longitude)
            }
            let bruteForce = local.filter {
                circle.contains(latitude: $0.latitude, longitude: $0.longitude)
            }
            #expect(
                viaRanges.map(\.geohash) == bruteForce.map(\.geohash),
                "\(circle) missed \(bruteForce.count - viaRanges.count)")
            checked += 1
            found += bruteForce.count
        }
        #expect(checked == 400)
        #expect(found > 400 * 20)
    }
}
