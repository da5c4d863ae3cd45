import Foundation
import Testing

@testable import TroveBase
@testable import TroveKit
@_spi(Testing) @testable import TroveStore

/// The cell bound circle queries use to drop candidates without reading their rows.
@Suite struct GeohashCellTests {
    @Test(arguments: [1, 2, 3, 5, 8, 10, 12, 22])
    func everyPointOfACellLiesWithinItsReach(precision: Int) {
        var generator = SeededGenerator(state: UInt64(precision))
        for _ in 0..<5_000 {
            // Near the poles and the antimeridian too, where cells are most distorted.
            let latitude = Double.random(in: -90...90, using: &generator)
            let longitude = Double.random(in: -180...180, using: &generator)
            let geohash = Geohash.encode(
                latitude: latitude, longitude: longitude, precision: precision)
            let cell = Array(geohash.utf8).withUnsafeBufferPointer {
                Geohash.cellCentre(utf8: $0)
            }
            guard let cell else {
                Issue.record("no cell for \(geohash)")
                return
            }
            let distance = greatCircleDistance(
                fromLatitude: cell.latitude, longitude: cell.longitude, toLatitude: latitude,
                longitude: longitude)
            // The search allows 1 mm for rounding: 22 characters are finer than a double.
            #expect(distance <= cell.reach + 0.001, "\(geohash): \(distance) > \(cell.reach)")
            if precision <= 20, let box = Geohash.decode(geohash) {
                #expect(box.contains(latitude: cell.latitude, longitude: cell.longitude))
            }
        }
    }

    @Test func textThatIsNoGeohashHasNoCell() {
        for text in ["", "dr5a", String(repeating: "d", count: 23)] {
            let cell = Array(text.utf8).withUnsafeBufferPointer { Geohash.cellCentre(utf8: $0) }
            #expect(cell == nil, "\(text)")
        }
    }

    /// Dense data around a centre, queried at radii that cut through many cells: the
    /// cell shortcut must never drop a treasure the full distance test keeps.
    @Test func circleQueriesStillEqualABruteForceScan() throws {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("trove-cells-\(UUID().uuidString).sqlite").path
        defer {
            for suffix in ["", "-wal", "-shm"] {
                try? FileManager.default.removeItem(atPath: path + suffix)
            }
        }
        let workspace = try Workspace(path: path, create: true)
        var generator = SeededGenerator(state: 7)
        var points: [(key: String, latitude: Double, longitude: Double)] = []
        try workspace.write {
            for index in 0..<3_000 {
                let latitude = 59.9 + Double.random(in: -0.05...0.05, using: &generator)
                let longitude = 179.95 + Double.random(in: -0.1...0.1, using: &generator)
                let wrapped = longitude > 180 ? longitude - 360 : longitude
                points.append(("t\(index)", latitude, wrapped))
                try workspace.fixture.addTreasure(
                    "t\(index)", name: "T", lat: latitude, lon: wrapped)
            }
        }
        _ = try GeohashAssignment.run(on: workspace)
        for radius in [5.0, 120, 900, 2_500, 6_000] {
            let circle = GeoCircle(latitude: 59.9, longitude: 179.97, radius: radius)
            let found = try NearbySearch.search(workspace, kind: .treasures, circle: circle)
            let expected = points.filter {
                circle.contains(latitude: $0.latitude, longitude: $0.longitude)
            }
            #expect(Set(found.map(\.key)) == Set(expected.map(\.key)), "radius \(radius)")
            #expect(found.count == expected.count)
        }
    }

    /// The first assignment fills the table from a second connection, many rows a
    /// statement; every stored geohash must be GeoFire's for its row, a position out of
    /// range gets none, and the second run finds nothing to do.
    @Test func aFirstAssignmentStoresEveryRowsGeohashAndASecondChangesNothing() throws {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("trove-refill-\(UUID().uuidString).sqlite").path
        defer {
            for suffix in ["", "-wal", "-shm"] {
                try? FileManager.default.removeItem(atPath: path + suffix)
            }
        }
        let workspace = try Workspace(path: path, create: true)
        var generator = SeededGenerator(state: 11)
        var expected: [String: String] = [:]
        try workspace.write {
            // More than a batch of the reading thread, so batches and chunks both split.
            for index in 0..<9_000 {
                let latitude = Double.random(in: -90...90, using: &generator)
                let longitude = Double.random(in: -180...180, using: &generator)
                let key = "t\(index)"
                try workspace.fixture.addTreasure(key, name: "T", lat: latitude, lon: longitude)
                expected[key] = Geohash.encode(latitude: latitude, longitude: longitude)
            }
            try workspace.fixture.addTreasure("off", name: "T", lat: 95, lon: 0)
        }
        let first = try GeohashAssignment.run(on: workspace)
        #expect(first.treasures == 9_000)
        let stored = try workspace.database.query(
            "SELECT key, geohash FROM treasure_geohashes", []
        ) { ($0.text(0) ?? "", $0.text(1) ?? "") }
        #expect(Dictionary(uniqueKeysWithValues: stored) == expected)
        #expect(try GeohashAssignment.run(on: workspace).treasures == 0)
        let index = try workspace.database.scalar(
            "SELECT count(*) FROM sqlite_master WHERE name = 'treasure_geohashes_geohash'")
        #expect(index?.int64 == 1)
    }
}
