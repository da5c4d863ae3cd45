import Foundation
import TroveBase

/// Without game.bounds: a point whose exchanged position fits the rest of the file clearly
/// better than the point as given was probably written lon/lat.
///
/// How well a position fits is how close its second-nearest other point is (one neighbour
/// could be a coincidence). A point is called swapped only when that distance, as given, is
/// at least `improvement` times the distance exchanged, and a landing closer than the
/// file's usual spacing (the median of every point's second-nearest distance) counts as
/// that spacing: a dense region offers a close landing to any point. Remote real places
/// (Rodrigues, Svalbard, Franz Josef Land) are far from the others but land no better than
/// a few tens of times closer when exchanged; a point swapped out of a region of treasures
/// lands hundreds or thousands of times closer.
///
/// Measured on 28,000 airports and 144,000 towns of more than 1,000 people: no real point
/// scores 60 (the highest are 49 and 36 among the towns, As Sulayyil and Longyearbyen, and 31
/// among the airports, Rodrigues), while a single swapped row of those files scores more in
/// about a fifth to a quarter of the cases, and of a file of one country's towns or airports
/// in 70 to 80%. The answer does not depend on the positions' order.
struct SwappedCheck {
    /// How many times farther the second-nearest other point must be as given than
    /// exchanged (or than the usual spacing, for a closer landing).
    static let improvement = 60.0
    /// Points whose second-nearest distances make the usual spacing, at most: an even
    /// sample of the positions in their sorted order.
    static let spacingSample = 2048
    /// The smallest usual spacing, for files whose points mostly repeat a few positions.
    static let minimumSpacing = 1.0

    /// Every compared position.
    private let positions: [(latitude: Double, longitude: Double)]
    /// Indexes into `positions` by one-degree cell (about 111 km of latitude).
    private var cells: [Int64: [Int32]] = [:]
    /// How many records there are, positions or not.
    let count: Int
    /// The file's usual spacing: the median distance from a point to its second-nearest
    /// other, in metres.
    private(set) var spacing = Double.infinity

    /// What made a point a suspect, in metres.
    struct Suspect {
        /// The distance to the nearest other point, as given.
        var given: Double
        /// The distance to the nearest other point, exchanged.
        var exchanged: Double
        /// The file's usual spacing.
        var spacing: Double
    }

    /// A check of points among `positions` (those in range, in any order) of `count`
    /// records.
    init(positions: some Sequence<(Double, Double)>, count: Int) {
        self.positions = positions.lazy.filter {
            Coordinate.isValid(latitude: $0.0, longitude: $0.1)
        }
        .map { (latitude: $0.0, longitude: $0.1) }
        self.count = count
        for (index, position) in self.positions.enumerated() {
            cells[Self.cell(position.latitude, position.longitude), default: []].append(
                Int32(index))
        }
        guard self.positions.count >= 3 else { return }
        // An even sample of the sorted positions, so that any order gives the same one.
        let sorted = self.positions.sorted {
            ($0.latitude, $0.longitude) < ($1.latitude, $1.longitude)
        }
        let stride = max(1, sorted.count / Self.spacingSample)
        var seconds = Swift.stride(from: 0, to: sorted.count, by: stride).map { index in
            let position = sorted[index]
            return nearestTwo(position.latitude, position.longitude, of: position).second
        }
        seconds.sort()
        spacing = max(seconds[(seconds.count - 1) / 2], Self.minimumSpacing)
    }

    private static func cell(_ latitude: Double, _ longitude: Double) -> Int64 {
        Int64(row(latitude)) * 1000 + Int64(column(longitude))
    }

    /// The cell row of a latitude, 0 to 179 (the north pole in the last).
    private static func row(_ latitude: Double) -> Int {
        min(Int((latitude + 90).rounded(.down)), 179)
    }

    /// The cell column of a longitude, 0 to 359 (180 is -180's meridian).
    private static func column(_ longitude: Double) -> Int {
        Int((longitude + 180).rounded(.down)) % 360
    }

    /// Whether a point that is one of the positions looks swapped, and why.
    func suspect(_ latitude: Double, _ longitude: Double) -> Suspect? {
        guard Coordinate.isValid(latitude: longitude), latitude != longitude,
            Self.improvement * spacing < Double.pi * earthRadiusMetres
        else { return nil }
        let own = (latitude: latitude, longitude: longitude)
        // Nearly every point has two others well within the distance that would clear it,
        // in its own cell: counting them is the cheap test.
        var near = 0
        scan(latitude, longitude, within: Self.improvement * spacing, of: own) { _ in
            near += 1
            return near < 2
        }
        guard near < 2 else { return nil }
        let given = nearestTwo(latitude, longitude, of: own)
        let exchanged = nearestTwo(longitude, latitude, of: own)
        guard given.second >= Self.improvement * max(exchanged.second, spacing) else {
            return nil
        }
        return Suspect(given: given.first, exchanged: exchanged.first, spacing: spacing)
    }

    /// The distances from a position to the nearest and second-nearest others than the
    /// point `own` (infinity where there are none).
    private func nearestTwo(
        _ latitude: Double, _ longitude: Double,
        of own: (latitude: Double, longitude: Double)
    ) -> (first: Double, second: Double) {
        var radius = 10_000.0
        while true {
            var first = Double.infinity
            var second = Double.infinity
            let whole = radius >= Double.pi * earthRadiusMetres
            scan(latitude, longitude, within: radius, of: own) { distance in
                if distance < first {
                    second = first
                    first = distance
                } else if distance < second {
                    second = distance
                }
                return true
            }
            // Every point within the radius was seen: two found there are the nearest.
            if second <= radius || whole { return (first, second) }
            radius *= 4
        }
    }

    /// Calls `visit` with the distance of each other than the point `own` within `radius`
    /// of a position, the position's own cell first, until it returns false. The point is
    /// left out once: another at the very same place counts, as it would by its own index.
    private func scan(
        _ latitude: Double, _ longitude: Double, within radius: Double,
        of own: (latitude: Double, longitude: Double), visit: (Double) -> Bool
    ) {
        let angle = radius / earthRadiusMetres
        let rows = Int(min(angle * 180 / .pi, 180).rounded(.up))
        // The widest the circle is in longitude; all of it when it holds a pole.
        let latitudeAngle = abs(latitude) * .pi / 180
        let columns =
            angle >= .pi / 2 - latitudeAngle
            ? 360 : Int((asin(min(sin(angle) / cos(latitudeAngle), 1)) * 180 / .pi).rounded(.up))
        var skippedOwn = false
        let baseRow = Self.row(latitude)
        let baseColumn = Self.column(longitude)
        // Offsets from the point's own cell outwards: in a dense file the first cell
        // usually answers.
        func outwards(_ reach: Int) -> [Int] {
            [0] + (0..<reach).flatMap { [-($0 + 1), $0 + 1] }
        }
        // Each column once, also when the reach wraps around the antimeridian.
        let columnOffsets = columns * 2 + 1 >= 360 ? outwards(179) + [180] : outwards(columns)
        for rowOffset in outwards(rows) {
            let row = baseRow + rowOffset
            guard (0..<180).contains(row) else { continue }
            for offset in columnOffsets {
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
                    if distance <= radius, !visit(distance) { return }
                }
            }
        }
    }
}
