import Foundation
import Testing

@testable import TroveBase

@Suite struct NeighbourIndexTests {
    /// Points in clusters around a centre: a few metres to a few times the radius apart,
    /// so that every query has neighbours inside and candidates just outside.
    static func cluster(
        around centre: (Double, Double), count: Int, spread: Double,
        using random: inout SeededGenerator
    ) -> [(Double, Double)] {
        (0..<count).map { _ in
            GeoQueryTests.destination(
                latitude: centre.0, longitude: centre.1,
                distance: Double.random(in: 0...spread, using: &random),
                bearing: Double.random(in: 0..<(2 * .pi), using: &random))
        }
    }

    /// The points within `radius` of a position, by testing every one.
    static func bruteForce(
        _ points: [(Double, Double)], radius: Double, latitude: Double, longitude: Double
    ) -> [Int32] {
        points.indices.filter { index in
            Coordinate.isValid(latitude: points[index].0, longitude: points[index].1)
                && greatCircleDistance(
                    fromLatitude: latitude, longitude: longitude, toLatitude: points[index].0,
                    longitude: points[index].1) <= radius
        }.map { Int32($0) }
    }

    static func found(_ index: NeighbourIndex, latitude: Double, longitude: Double) -> [Int32] {
        var found: [Int32] = []
        index.forEachNeighbour(latitude: latitude, longitude: longitude) { point, _ in
            found.append(point)
        }
        return found.sorted()
    }

    /// Centres where a grid goes wrong easily: the poles, the antimeridian on both sides,
    /// and where the two meet, beside ordinary places.
    static let centres: [(Double, Double)] = [
        (90, 0), (-90, 0), (89.9999, 180), (-89.99995, -179.9999), (89.9, 45), (-89.5, -120),
        (0, 180), (0, -180), (0.00001, 179.99999), (-45, -179.99998), (65, 180),
        (60.2, 179.9995), (52.52, 13.405), (-33.86, 151.2), (0, 0), (78, -179.9),
    ]

    @Test(arguments: [5.0, 25, 1000, 300_000])
    func findsWhatABruteForceScanFinds(radius: Double) {
        var random = SeededGenerator(state: UInt64(radius))
        var points: [(Double, Double)] = []
        for centre in Self.centres {
            points += Self.cluster(around: centre, count: 60, spread: radius * 3, using: &random)
        }
        for _ in 0..<200 {
            points.append(
                (
                    Double.random(in: -90...90, using: &random),
                    Double.random(in: -180...180, using: &random)
                ))
        }
        // Exactly on the seams, and a few positions that are no positions.
        points += [(90, 180), (90, -180), (-90, 0), (0, 180), (0, -180), (.nan, 0), (0, 200)]
        let index = NeighbourIndex(
            radius: radius, latitudes: points.map(\.0), longitudes: points.map(\.1))
        var queries = Self.centres
        queries += Self.centres.flatMap {
            Self.cluster(around: $0, count: 8, spread: radius * 2, using: &random)
        }
        queries += points.prefix(300)
        var checked = 0
        for (latitude, longitude) in queries
        where Coordinate.isValid(latitude: latitude, longitude: longitude) {
            let expected = Self.bruteForce(
                points, radius: radius, latitude: latitude, longitude: longitude)
            let actual = Self.found(index, latitude: latitude, longitude: longitude)
            #expect(actual == expected, "\(latitude), \(longitude) within \(radius) m")
            checked += expected.count
        }
        // The clusters are dense enough that the comparison has something to compare.
        #expect(checked > queries.count)
    }

    @Test func visitsPointsInCellOrder() {
        // Rows south to north; in a row, columns west to east; in a cell, the given order.
        let cell = 5.0 / 111_000
        let cells: [(row: Double, column: Double)] = [
            (222_001, 444_000), (222_000, 444_001), (222_000, 444_000), (222_000, 444_000),
            (221_999, 444_001),
        ]
        let points = cells.map { (($0.row + 0.5) * cell, ($0.column + 0.5) * cell) }
        let index = NeighbourIndex(
            radius: 5, latitudes: points.map(\.0), longitudes: points.map(\.1))
        var visited: [Int32] = []
        index.forEachCandidate(latitude: points[2].0, longitude: points[2].1) {
            visited.append($0)
            return true
        }
        #expect(visited == [4, 2, 3, 1, 0])
        #expect(Array(index.pointsInCellOrder) == [4, 2, 3, 1, 0])
    }

    @Test func aCandidateScanStopsWhenAsked() {
        let index = NeighbourIndex(
            radius: 25, latitudes: [1, 1, 1], longitudes: [2, 2, 2])
        var visited = 0
        index.forEachCandidate(latitude: 1, longitude: 2) { _ in
            visited += 1
            return visited < 2
        }
        #expect(visited == 2)
    }

    @Test func anIndexOfNothingFindsNothing() {
        let index = NeighbourIndex(radius: 25, latitudes: [.nan], longitudes: [0])
        #expect(Self.found(index, latitude: 0, longitude: 0).isEmpty)
        #expect(index.pointsInCellOrder.isEmpty)
    }
}
