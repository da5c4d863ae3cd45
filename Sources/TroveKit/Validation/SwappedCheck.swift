import Foundation
import TroveBase
import TroveStore

/// Without game.bounds: a point far from every other that lands among others when its
/// coordinates are exchanged was probably written lon/lat. Each point is judged by its
/// neighbours, not by the file's centre, so a world file's remote towns are not suspects:
/// only a point with no other within `isolation` whose exchanged position has at least
/// two others within `landing`.
struct SwappedCheck {
    static let landing = 100_000.0
    static let isolation = 500_000.0

    /// Every compared position, in the records' order.
    private let positions: [(latitude: Double, longitude: Double)]
    /// Indexes into `positions` by one-degree cell (about 111 km of latitude).
    private var cells: [Int64: [Int32]] = [:]
    /// How many records there are, positions or not.
    package let count: Int

    /// A check of points among `positions` (those in range, in the records' order) of
    /// `count` records.
    package init(positions: some Sequence<(Double, Double)>, count: Int) {
        self.positions = positions.map { (latitude: $0.0, longitude: $0.1) }
        self.count = count
        for (index, position) in self.positions.enumerated() {
            cells[Self.cell(position.latitude, position.longitude), default: []].append(
                Int32(index))
        }
    }

    private static func cell(_ latitude: Double, _ longitude: Double) -> Int64 {
        Int64((latitude + 90).rounded(.down)) * 1000 + Int64((longitude + 180).rounded(.down))
    }

    /// Whether a point that is one of the positions could be swapped: exchangeable, with
    /// no other within `isolation`. The answer does not depend on the positions' order.
    func isSuspect(_ latitude: Double, _ longitude: Double) -> Bool {
        guard Coordinate.isValid(latitude: longitude), latitude != longitude else { return false }
        // Isolation first: nearly every point has a neighbour in its own cell.
        return neighbours(
            latitude, longitude, within: Self.isolation, of: (latitude, longitude), limit: 1
        ).count == 0
    }

    /// For a suspect: the distance from its exchanged position to the nearer of the first
    /// two others found within `landing` of it, or nil when there are not two. Which two
    /// are found first depends on the positions' order: the records', or the same order
    /// of the positions `landingBand(_:_:)` spans.
    func landing(_ latitude: Double, _ longitude: Double) -> Double? {
        let exchanged = neighbours(
            longitude, latitude, within: Self.landing, of: (latitude, longitude), limit: 2)
        return exchanged.count >= 2 ? exchanged.nearest : nil
    }

    /// The latitudes whose positions `landing(_:_:)` of a point reads: whole one-degree
    /// rows either side of its exchanged position's.
    static func landingBand(_ latitude: Double, _ longitude: Double) -> ClosedRange<Double> {
        let rows = Int((landing / 111_000).rounded(.up))
        let row = (longitude + 90).rounded(.down)
        return (row - Double(rows) - 90)...(row + Double(rows) + 1 - 90)
    }

    /// The others than the point `own` within `radius` of a position (at most `limit`
    /// counted), and the distance to the nearest one. The point is left out once: another
    /// at the very same place counts, as it would by its own index.
    private func neighbours(
        _ latitude: Double, _ longitude: Double, within radius: Double,
        of own: (latitude: Double, longitude: Double), limit: Int
    ) -> (count: Int, nearest: Double) {
        let rows = Int((radius / 111_000).rounded(.up))
        let columns = Int(
            min(180, (Double(rows) / max(cos(latitude * .pi / 180), 0.01)).rounded(.up)))
        var count = 0
        var nearest = Double.infinity
        var skippedOwn = false
        let baseRow = Int((latitude + 90).rounded(.down))
        let baseColumn = Int((longitude + 180).rounded(.down))
        // The point's own cell first, then outwards: in a dense file the first cell
        // usually answers, and `limit` ends the search there.
        func outwards(_ reach: Int) -> [Int] {
            [0] + (0..<reach).flatMap { [-($0 + 1), $0 + 1] }
        }
        for rowOffset in outwards(rows) {
            let row = baseRow + rowOffset
            guard (0..<180).contains(row) else { continue }
            for offset in outwards(columns) {
                let column = ((baseColumn + offset) % 360 + 360) % 360
                guard let members = cells[Int64(row) * 1000 + Int64(column)] else { continue }
                for other in members {
                    let neighbour = positions[Int(other)]
                    if !skippedOwn, neighbour.latitude == own.latitude,
                        neighbour.longitude == own.longitude
                    {
                        skippedOwn = true
                        continue
                    }
                    let distance = greatCircleDistance(
                        fromLatitude: latitude, longitude: longitude,
                        toLatitude: neighbour.latitude, longitude: neighbour.longitude)
                    if distance <= radius {
                        count += 1
                        nearest = min(nearest, distance)
                        if count >= limit { return (count, nearest) }
                    }
                }
            }
        }
        return (count, nearest)
    }
}
