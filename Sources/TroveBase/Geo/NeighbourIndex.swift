import Foundation

/// Positions bucketed in a grid of cells, so that the ones within a radius of a point are
/// found among the few cells the circle touches rather than among all of them.
///
/// Cells are `radius / 111 000` degrees on a side: a degree of latitude is about 111 195 m,
/// so a cell is a little taller than the radius and a circle touches two or three rows.
/// Which cells a circle touches comes from its ``GeoCircle/Extent``: towards the poles a
/// row's cells narrow and more of them are in reach, a circle that holds a pole reaches
/// every cell of its rows, and one that crosses the antimeridian reaches the cells at both
/// ends of its rows. The distance test is `greatCircleDistance`, as everywhere.
///
/// The cells are kept as one array of (cell key, point) sorted by row, then column, then
/// point, so an index of a million points is a few flat arrays (the positions are shared
/// with the caller's, not copied), and a query is a binary search per row it touches.
/// Points are visited in cell order: rows from south to north, columns from west (-180) to
/// east, and a cell's points in the order they were given.
package struct NeighbourIndex: Sendable {
    /// The largest distance in metres queries look for.
    package let radius: Double
    /// The side of a cell, in degrees.
    let cellDegrees: Double
    /// The positions by point number; NaN for one out of range (never indexed).
    package let latitudes: [Double]
    package let longitudes: [Double]
    /// The indexed points by cell key, ascending.
    private let slots: [Slot]
    /// The radius as an angle at the Earth's centre, and its sine; nil for a circle as large
    /// as the Earth.
    private let angle: Double?
    private let sine: Double
    private let firstRow: Int64
    private let firstColumn: Int64
    private let lastColumn: Int64

    /// An index for queries up to `radius` metres over the positions, numbered by their
    /// places in the arrays (which must have the same length). Positions out of range or
    /// not finite are left out.
    package init(radius: Double, latitudes: [Double], longitudes: [Double]) {
        precondition(latitudes.count == longitudes.count, "one latitude per longitude")
        precondition(latitudes.count <= Int(Int32.max), "too many points for an index")
        self.radius = radius
        self.latitudes = latitudes
        self.longitudes = longitudes
        // Cells no smaller than a row count fits in 32 bits, no larger than the world.
        let cellDegrees = min(max(radius / 111_000, 1e-7), 360)
        self.cellDegrees = cellDegrees
        let circleAngle = max(radius, 0) / earthRadiusMetres
        angle = circleAngle < Double.pi && circleAngle.isFinite ? circleAngle : nil
        sine = sin(circleAngle)
        firstRow = Int64((-90 / cellDegrees).rounded(.down))
        firstColumn = Int64((-180 / cellDegrees).rounded(.down))
        lastColumn = Int64((180 / cellDegrees).rounded(.down))

        var slots: [Slot] = []
        slots.reserveCapacity(latitudes.count)
        for point in latitudes.indices
        where Coordinate.isValid(latitude: latitudes[point], longitude: longitudes[point]) {
            slots.append(
                Slot(
                    key: Self.key(
                        row: Self.cell(latitudes[point], cellDegrees) - firstRow,
                        column: Self.cell(longitudes[point], cellDegrees) - firstColumn),
                    point: Int32(point)))
        }
        slots.sort { ($0.key, $0.point) < ($1.key, $1.point) }
        self.slots = slots
    }

    /// A point and the key of its cell: the row in the high 32 bits, the column in the low.
    private struct Slot {
        var key: UInt64
        var point: Int32
    }

    /// The indexed points, in cell order.
    package var pointsInCellOrder: some Collection<Int32> { slots.lazy.map(\.point) }

    // MARK: - Queries

    /// Calls `body` with every indexed point that may lie within `radius` of the position
    /// (every one that does, and a few that do not), in cell order, until it returns false.
    ///
    /// The position need not be one of the points; one out of range finds none.
    package func forEachCandidate(
        latitude: Double, longitude: Double, _ body: (_ point: Int32) -> Bool
    ) {
        guard Coordinate.isValid(latitude: latitude, longitude: longitude), !slots.isEmpty
        else { return }
        let rows: ClosedRange<Int64>
        // Key ranges to scan in each row, west to east: no array, as this runs per point.
        var first = 0...UInt64(lastColumn - firstColumn)
        var second: ClosedRange<UInt64>?
        if let angle {
            let extent = GeoCircle.Extent(latitude: latitude, angle: angle, sine: sine)
            rows = row(max(extent.south, -90))...row(min(extent.north, 90))
            if let ranges = extent.longitudeRanges(around: longitude) {
                first = column(ranges.first.lowerBound)...column(ranges.first.upperBound)
                second = ranges.second.map { column($0.lowerBound)...column($0.upperBound) }
            }
        } else {
            rows = row(-90)...row(90)
        }
        slots.withUnsafeBufferPointer { slots in
            func scan(_ base: UInt64, _ span: ClosedRange<UInt64>) -> Bool {
                let last = base | span.upperBound
                var position = Self.firstPosition(atLeast: base | span.lowerBound, in: slots)
                while position < slots.count, slots[position].key <= last {
                    guard body(slots[position].point) else { return false }
                    position += 1
                }
                return true
            }
            for row in rows {
                let base = UInt64(row) << 32
                guard scan(base, first) else { return }
                if let second, !scan(base, second) { return }
            }
        }
    }

    /// Calls `body` with every indexed point within `radius` (inclusive) of the position,
    /// and its distance in metres, in cell order.
    package func forEachNeighbour(
        latitude: Double, longitude: Double, _ body: (_ point: Int32, _ distance: Double) -> Void
    ) {
        forEachCandidate(latitude: latitude, longitude: longitude) { point in
            let distance = greatCircleDistance(
                fromLatitude: latitude, longitude: longitude,
                toLatitude: latitudes[Int(point)], longitude: longitudes[Int(point)])
            if distance <= radius { body(point, distance) }
            return true
        }
    }

    // MARK: - Cells

    private static func cell(_ degrees: Double, _ cellDegrees: Double) -> Int64 {
        Int64((degrees / cellDegrees).rounded(.down))
    }

    /// The row of a latitude, counted from the southernmost.
    private func row(_ latitude: Double) -> Int64 {
        Self.cell(latitude, cellDegrees) - firstRow
    }

    /// The column of a longitude in [-180, 180], counted from the westernmost.
    private func column(_ longitude: Double) -> UInt64 {
        UInt64(Self.cell(longitude, cellDegrees) - firstColumn)
    }

    private static func key(row: Int64, column: Int64) -> UInt64 {
        UInt64(row) << 32 | UInt64(column)
    }

    /// The first place in `slots` whose key is at least `key`.
    private static func firstPosition(atLeast key: UInt64, in slots: UnsafeBufferPointer<Slot>)
        -> Int
    {
        var low = 0
        var high = slots.count
        while low < high {
            let middle = (low + high) / 2
            if slots[middle].key < key { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
