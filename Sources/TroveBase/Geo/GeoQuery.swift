import Foundation

// MARK: - Distance

/// The mean Earth radius GeoFire uses for its distances, in metres.
public let earthRadiusMetres = 6_371_000.0

/// The great-circle distance between two positions in metres, by the haversine formula
/// GeoFire uses (a sphere of radius 6371 km).
public func greatCircleDistance(
    fromLatitude latitude1: Double, longitude longitude1: Double,
    toLatitude latitude2: Double, longitude longitude2: Double
) -> Double {
    let radiansPerDegree = Double.pi / 180
    let latitudeDelta = (latitude2 - latitude1) * radiansPerDegree
    let longitudeDelta = (longitude2 - longitude1) * radiansPerDegree
    let a =
        sin(latitudeDelta / 2) * sin(latitudeDelta / 2)
        + cos(latitude1 * radiansPerDegree) * cos(latitude2 * radiansPerDegree)
        * sin(longitudeDelta / 2) * sin(longitudeDelta / 2)
    // Rounding can push `a` a hair outside [0, 1] for antipodal points.
    let clamped = min(1, max(0, a))
    return earthRadiusMetres * 2 * atan2(clamped.squareRoot(), (1 - clamped).squareRoot())
}

// MARK: - Ranges

/// A half-open range of geohash text, `start <= geohash < end`, compared byte by byte
/// (SQLite's BINARY collation), ready for `WHERE geohash >= ? AND geohash < ?`.
public struct GeohashRange: Hashable, Sendable, CustomStringConvertible {
    /// The first geohash in the range.
    public var start: String
    /// The first geohash after the range; `~` sorts after every base32 character.
    public var end: String

    /// The range `start <= geohash < end`.
    public init(start: String, end: String) {
        self.start = start
        self.end = end
    }

    /// Whether a stored geohash falls in the range.
    public func contains(_ geohash: String) -> Bool {
        !geohash.utf8.lexicographicallyPrecedes(start.utf8)
            && geohash.utf8.lexicographicallyPrecedes(end.utf8)
    }

    /// `[9q8y, 9q8z)`
    public var description: String { "[\(start), \(end))" }
}

/// A GeoFire-style circle query: a centre and a radius in metres.
///
/// Answer it in two steps, as GeoFire does: scan the stored geohashes in each of
/// ``geohashRanges(storedPrecision:)``, then keep the candidates for which ``contains(latitude:longitude:)``
/// holds. The ranges cover every point of the circle, so the result equals a
/// brute-force scan with the same distance test.
public struct GeoCircle: Equatable, Sendable {
    /// The centre's latitude in degrees.
    public var latitude: Double
    /// The centre's longitude in degrees.
    public var longitude: Double
    /// The radius in metres.
    public var radius: Double

    /// A circle around a centre, with a radius in metres.
    public init(latitude: Double, longitude: Double, radius: Double) {
        self.latitude = latitude
        self.longitude = longitude
        self.radius = radius
    }

    /// The distance in metres from the centre to a position.
    public func distance(toLatitude latitude: Double, longitude: Double) -> Double {
        greatCircleDistance(
            fromLatitude: self.latitude, longitude: self.longitude,
            toLatitude: latitude, longitude: longitude)
    }

    /// Whether a position lies within the radius (inclusive), by haversine distance.
    public func contains(latitude: Double, longitude: Double) -> Bool {
        distance(toLatitude: latitude, longitude: longitude) <= radius
    }

    /// The geohash ranges to scan, sorted and without overlaps.
    ///
    /// Follows GeoFire's `geohashQueries`: pick the number of bits whose cells are at
    /// least as large as the circle's bounding box is in each direction, then take the
    /// cells around the centre, wrapping at the antimeridian. Where GeoFire estimates
    /// the box on the ellipsoid, this uses the exact extent of a spherical cap of the
    /// same radius the distance filter uses, with a small margin against rounding, and
    /// a cap that reaches a pole spans every longitude. Without those two corrections a
    /// circle query can miss points the brute-force scan finds.
    ///
    /// - Parameter storedPrecision: The length of the shortest stored geohash; ranges are
    ///   never finer than that, so shorter hashes are still found.
    public func geohashRanges(storedPrecision: Int = Geohash.defaultPrecision) -> [GeohashRange] {
        let everything = [GeohashRange(start: "0", end: "~")]
        guard radius.isFinite, latitude.isFinite, longitude.isFinite else { return everything }
        let maximumBits =
            min(max(storedPrecision, 1), Geohash.precisionRange.upperBound)
            * Geohash.bitsPerCharacter
        guard let extent = extent else { return everything }
        let latitudeDelta = extent.latitudeDelta
        let south = extent.south
        let north = extent.north
        let longitudeDelta = extent.longitudeDelta

        let latitudeLimit = Self.bitsForCellSize(atLeast: latitudeDelta, span: 180)
        // A full-longitude band needs one range per longitude cell; sixteen keeps the
        // query count small while the latitude cut still prunes most of the world.
        let longitudeLimit =
            longitudeDelta.map { Self.bitsForCellSize(atLeast: $0, span: 360) } ?? 4
        let bits = min(2 * longitudeLimit, 2 * latitudeLimit + 1, maximumBits)
        guard bits > 0 else { return everything }
        let longitudeBits = (bits + 1) / 2
        let latitudeBits = bits / 2

        let firstRow = Geohash.cellIndex(max(south, -90), min: -90, max: 90, bits: latitudeBits)
        let lastRow = Geohash.cellIndex(min(north, 90), min: -90, max: 90, bits: latitudeBits)
        let lastColumn: UInt64 = (1 << UInt64(longitudeBits)) - 1
        func column(_ value: Double) -> UInt64 {
            Geohash.cellIndex(value, min: -180, max: 180, bits: longitudeBits)
        }
        var columns: [ClosedRange<UInt64>] = []
        if let longitudeDelta {
            let west = longitude - longitudeDelta
            let east = longitude + longitudeDelta
            if west < -180 {
                columns = [column(west + 360)...lastColumn, 0...column(east)]
            } else if east > 180 {
                columns = [column(west)...lastColumn, 0...column(east - 360)]
            } else {
                columns = [column(west)...column(east)]
            }
        } else {
            columns = [0...lastColumn]
        }

        var ranges: Set<GeohashRange> = []
        for row in firstRow...lastRow {
            for span in columns {
                for column in span {
                    ranges.insert(
                        Self.range(longitudeIndex: column, latitudeIndex: row, bits: bits))
                }
            }
        }
        return Self.merged(ranges)
    }

    // MARK: - Extent

    /// The latitudes and longitudes a circle reaches: its bounding box on the sphere, a
    /// little widened against rounding. Every neighbour search picks its candidates by it
    /// (geohash ranges, ``NeighbourIndex`` cells, a box of rows in SQL) before the exact
    /// distance test.
    package struct Extent: Equatable, Sendable {
        /// How far north and south of the centre the circle reaches, in degrees.
        var latitudeDelta: Double
        /// The centre's latitude less `latitudeDelta`; below -90 when the circle holds the
        /// south pole.
        package var south: Double
        /// The centre's latitude plus `latitudeDelta`; above 90 when it holds the north pole.
        package var north: Double
        /// How far east and west of the centre the circle reaches, in degrees (under 180);
        /// nil when it spans every longitude (it holds a pole, or is that wide).
        var longitudeDelta: Double?

        /// The extent of a circle of `angle` radians (`sine` is its sine) around a
        /// position: the exact extent of a spherical cap, widened.
        init(latitude: Double, angle: Double, sine: Double) {
            let degreesPerRadian = 180 / Double.pi
            latitudeDelta = GeoCircle.widened(angle * degreesPerRadian)
            south = latitude - latitudeDelta
            north = latitude + latitudeDelta
            longitudeDelta = nil
            if south > -90 && north < 90 {
                let ratio = sine / cos(latitude / degreesPerRadian)
                if ratio < 1 {
                    let delta = GeoCircle.widened(asin(ratio) * degreesPerRadian)
                    if delta < 180 { longitudeDelta = delta }
                }
            }
        }

        /// The longitudes reached around a centre's, as one or two closed ranges inside
        /// [-180, 180] in ascending order (two when the circle crosses the antimeridian);
        /// nil for all of them.
        package func longitudeRanges(around longitude: Double)
            -> (first: ClosedRange<Double>, second: ClosedRange<Double>?)?
        {
            guard let longitudeDelta else { return nil }
            let west = longitude - longitudeDelta
            let east = longitude + longitudeDelta
            // `longitudeDelta` is under 180, so the two ranges never meet.
            if west < -180 { return (-180...east, (west + 360)...180) }
            if east > 180 { return (-180...(east - 360), west...180) }
            return (west...east, nil)
        }
    }

    /// The circle's extent, or nil when it covers the whole sphere (or is not finite).
    package var extent: Extent? {
        guard radius.isFinite, latitude.isFinite, longitude.isFinite else { return nil }
        let angle = max(radius, 0) / earthRadiusMetres
        guard angle < Double.pi else { return nil }
        return Extent(latitude: latitude, angle: angle, sine: sin(angle))
    }

    // MARK: - Helpers

    /// A little larger than the value, so rounding in the bounding box never cuts off
    /// a point the distance filter would keep.
    static func widened(_ degrees: Double) -> Double {
        degrees * (1 + 1e-9) + 1e-9
    }

    /// The most bits (0...55) that still give cells of at least `size` degrees out of
    /// `span`.
    static func bitsForCellSize(atLeast size: Double, span: Double) -> Int {
        guard size > 0 else { return 55 }
        var bits = Int(log2(span / size).rounded(.down))
        bits = min(max(bits, 0), 55)
        // log2 may round up across a power of two: step back until the cell is big enough.
        while bits > 0 && span / Double(UInt64(1) << UInt64(bits)) < size { bits -= 1 }
        return bits
    }

    /// The range of every geohash inside one cell of `bits` bits.
    static func range(longitudeIndex: UInt64, latitudeIndex: UInt64, bits: Int) -> GeohashRange {
        let text = Array(
            Geohash.prefix(longitudeIndex: longitudeIndex, latitudeIndex: latitudeIndex, bits: bits)
                .utf8)
        let base = text.dropLast()
        let last = text.last.flatMap { Geohash.alphabetIndex($0) } ?? 0
        let usedBits = bits - base.count * Geohash.bitsPerCharacter
        let next = last + 1 << (Geohash.bitsPerCharacter - usedBits)
        let endByte = next > 31 ? UInt8(ascii: "~") : Geohash.alphabet[next]
        return GeohashRange(
            start: String(decoding: text, as: UTF8.self),
            end: String(decoding: base + [endByte], as: UTF8.self))
    }

    /// Sorted ranges, with touching or overlapping ones joined.
    static func merged(_ ranges: Set<GeohashRange>) -> [GeohashRange] {
        let sorted = ranges.sorted { $0.start.utf8.lexicographicallyPrecedes($1.start.utf8) }
        var result: [GeohashRange] = []
        for range in sorted {
            if let last = result.last, !last.end.utf8.lexicographicallyPrecedes(range.start.utf8) {
                if last.end.utf8.lexicographicallyPrecedes(range.end.utf8) {
                    result[result.count - 1].end = range.end
                }
            } else {
                result.append(range)
            }
        }
        return result
    }
}

// MARK: - Radius text

/// Radius text that is not a positive distance such as `500m`, `2km` or `750`.
public struct RadiusError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text as given.
    public var text: String

    /// The text, and how a radius is written.
    public var description: String {
        "'\(text)' is not a radius; write metres or kilometres, such as 500m, 2km or 1.5 km"
    }
}

/// Reads a radius such as `500m`, `2km`, `1.5 km` or `750` (metres) and returns metres.
///
/// The number is a plain decimal (no sign, exponent or hexadecimal); the unit, `m` or
/// `km` in any case, may follow after spaces.
/// - Throws: ``RadiusError`` for anything else, and for zero.
public func parseRadius(_ text: String) throws(RadiusError) -> Double {
    var bytes = Substring(text).utf8[...]
    while let first = bytes.first, first == UInt8(ascii: " ") { bytes = bytes.dropFirst() }
    while let last = bytes.last, last == UInt8(ascii: " ") { bytes = bytes.dropLast() }
    let numberEnd =
        bytes.firstIndex { !((0x30...0x39).contains($0) || $0 == UInt8(ascii: ".")) }
        ?? bytes.endIndex
    let number = bytes[..<numberEnd]
    var unit = bytes[numberEnd...]
    while let first = unit.first, first == UInt8(ascii: " ") { unit = unit.dropFirst() }

    let digits = number.filter { $0 != UInt8(ascii: ".") }
    guard !digits.isEmpty, number.count - digits.count <= 1,
        let value = Double(String(decoding: number, as: UTF8.self)), value.isFinite, value > 0
    else { throw RadiusError(text: text) }
    switch String(decoding: unit, as: UTF8.self).lowercased() {
    case "", "m": return value
    case "km": return value * 1000
    default: throw RadiusError(text: text)
    }
}
