import Testing

@testable import TroveBase

/// A small seeded generator (SplitMix64), so randomized tests repeat exactly.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite struct GeohashTests {
    // Vectors published with GeoFire's clients (JavaScript, Objective-C, Java).
    static let vectors: [(Double, Double, Int, String)] = [
        (0, 0, 10, "7zzzzzzzzz"),
        (50, 50, 10, "v0gs3y0zh7"),
        (0, -180, 10, "2pbpbpbpbp"),
        (0, 180, 10, "rzzzzzzzzz"),
        (-90, 0, 10, "5bpbpbpbpb"),
        (-90, -180, 10, "0000000000"),
        (-90, 180, 10, "pbpbpbpbpb"),
        (90, 0, 10, "gzzzzzzzzz"),
        (90, -180, 10, "bpbpbpbpbp"),
        (90, 180, 10, "zzzzzzzzzz"),
        (37.7853074, -122.4054274, 10, "9q8yywe56g"),
        (38.98719, -77.250783, 10, "dqcjf17sy6"),
        (29.3760648, 47.9818853, 10, "tj4p5gerfz"),
        (78.216667, 15.55, 10, "umghcygjj7"),
        (-54.933333, -67.616667, 10, "4qpzmren1k"),
        (-54, -67, 10, "4w2kg3s54y"),
        (37.7749, -122.4194, 10, "9q8yyk8ytp"),
        (-90, -180, 6, "000000"),
        (90, 180, 20, "zzzzzzzzzzzzzzzzzzzz"),
        (-90, 180, 1, "p"),
        (90, -180, 5, "bpbpb"),
        (37.7853074, -122.4054274, 8, "9q8yywe5"),
        (38.98719, -77.250783, 18, "dqcjf17sy6cppp8vfn"),
        (29.3760648, 47.9818853, 12, "tj4p5gerfzqu"),
        (78.216667, 15.55, 1, "u"),
        (-54.933333, -67.616667, 7, "4qpzmre"),
        (-54, -67, 12, "4w2kg3s54y7h"),
    ]

    @Test(arguments: vectors)
    func encodesLikeGeoFire(latitude: Double, longitude: Double, precision: Int, hash: String) {
        #expect(
            Geohash.encode(latitude: latitude, longitude: longitude, precision: precision) == hash)
    }

    @Test func defaultPrecisionIsTen() {
        #expect(Geohash.encode(latitude: 1, longitude: 2).count == 10)
        #expect(Geohash.defaultPrecision == 10)
    }

    @Test func maximumPrecisionIsTwentyTwo() {
        let hash = Geohash.encode(latitude: 12.345678, longitude: -98.7654321, precision: 22)
        #expect(hash.count == 22)
        #expect(hash.hasPrefix(Geohash.encode(latitude: 12.345678, longitude: -98.7654321)))
    }

    @Test func midpointValuesGoToTheLowerHalf() throws {
        // 0 is the midpoint of both first intervals: both first bits are 0, and the cell
        // of (0, 0) has the point on its upper corner.
        let box = try #require(
            Geohash.decode(Geohash.encode(latitude: 0, longitude: 0, precision: 1)))
        #expect(
            box == Geohash.Box(minLatitude: -45, maxLatitude: 0, minLongitude: -45, maxLongitude: 0)
        )
        // 90 is the midpoint of the second longitude interval [0, 180].
        let east = try #require(
            Geohash.decode(Geohash.encode(latitude: 45, longitude: 90, precision: 2)))
        #expect(east.maxLongitude == 90)
        #expect(east.maxLatitude == 45)
        // Just above a midpoint goes high.
        let above = try #require(
            Geohash.decode(Geohash.encode(latitude: 0.000001, longitude: 0.000001, precision: 1)))
        #expect(above.minLatitude == 0 && above.minLongitude == 0)
    }

    @Test func decodedCellContainsTheEncodedPoint() throws {
        var random = SeededGenerator(state: 42)
        for _ in 0..<5000 {
            let latitude = Double.random(in: -90...90, using: &random)
            let longitude = Double.random(in: -180...180, using: &random)
            let precision = Int.random(in: 1...22, using: &random)
            let hash = Geohash.encode(
                latitude: latitude, longitude: longitude, precision: precision)
            let box = try #require(Geohash.decode(hash))
            #expect(box.contains(latitude: latitude, longitude: longitude), "\(hash)")
            // Below precision 17 cells are far wider than a double's resolution, so their
            // size and centre are exact.
            guard precision <= 16 else { continue }
            // The cell has the size its bit count implies.
            let bits = precision * 5
            #expect(
                box.maxLongitude - box.minLongitude == 360 / Double(1 << UInt64((bits + 1) / 2)))
            #expect(box.maxLatitude - box.minLatitude == 180 / Double(1 << UInt64(bits / 2)))
            // Re-encoding the cell's centre gives the same hash.
            let center = box.center
            #expect(
                Geohash.encode(
                    latitude: center.latitude, longitude: center.longitude, precision: precision)
                    == hash)
        }
    }

    @Test(arguments: [
        "", "a", "7zzzzzzzzi", "7zzzzzzzzl", "7ZZZ", String(repeating: "0", count: 23),
    ])
    func decodeRefusesWhatIsNotAGeohash(text: String) {
        #expect(Geohash.decode(text) == nil)
        #expect(!Geohash.isValid(text))
    }

    @Test func validHashesAreRecognised() {
        #expect(Geohash.isValid("v0gs3y0zh7"))
        #expect(Geohash.isValid(String(repeating: "z", count: 22)))
    }
}

@Suite struct GeohashCellIndexTests {
    /// The one-division cell index must agree with GeoFire's bisection everywhere,
    /// including exactly on grid points, at their neighbouring doubles and at the ends.
    @Test(arguments: [1, 5, 13, 25, 33, 40])
    func divisionAgreesWithBisection(bits: Int) {
        var state: UInt64 = 0x1234_5678 &+ UInt64(bits)
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        for (low, high) in [(-180.0, 180.0), (-90.0, 90.0)] {
            let step = (high - low) / Double(UInt64(1) << UInt64(bits))
            var values = [low, high, 0, -0.0, low.nextUp, high.nextDown]
            for _ in 0..<2000 {
                let grid = low + Double(next() % (UInt64(1) << UInt64(min(bits, 52)))) * step
                values += [grid, grid.nextUp, grid.nextDown]
                values.append(low + (high - low) * Double(next() % 1_000_000_007) / 1_000_000_007)
            }
            for value in values where value >= low && value <= high {
                #expect(
                    Geohash.cellIndex(value, min: low, max: high, bits: bits)
                        == Geohash.bisectionIndex(value, min: low, max: high, bits: bits),
                    "\(value) at \(bits) bits")
            }
        }
    }

    @Test func interleavingAllBitsAtOnceAgreesWithOneAtATime() {
        var random = SystemRandomNumberGenerator()
        for bits in 1...60 {
            for _ in 0..<500 {
                let longitude = random.next() & ((1 << UInt64((bits + 1) / 2)) - 1)
                let latitude = random.next() & ((1 << UInt64(bits / 2)) - 1)
                #expect(
                    Geohash.prefix(longitudeIndex: longitude, latitudeIndex: latitude, bits: bits)
                        == Geohash.bitwisePrefix(
                            longitudeIndex: longitude, latitudeIndex: latitude, bits: bits),
                    "\(bits) bits")
            }
        }
    }
}
