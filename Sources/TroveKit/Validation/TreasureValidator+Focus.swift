import Foundation
import TroveBase
import TroveStore

extension TreasureValidator {
    /// The records `validate --changed` reports on: the changed ones, those closer than
    /// `minimumSpacing` to one (a changed record can make or end a near-duplicate finding
    /// on either side), and those that share a name with one (likewise for duplicate names).
    struct Focus {
        package var keys: Set<String> = []
        package var names: Set<String> = []
        /// The changed records' positions.
        private var positions: NeighbourIndex?

        /// A focus on no record.
        package init() {}

        /// A focus on the records with these keys alone.
        package init(keys: Set<String>) {
            self.keys = keys
        }

        /// A focus on changed records.
        package init(changed: [Treasure]) {
            for record in changed {
                keys.insert(record.key)
                if !record.name.isEmpty { names.insert(record.name) }
            }
            positions = NeighbourIndex(
                radius: TreasureValidator.minimumSpacing, latitudes: changed.map(\.latitude),
                longitudes: changed.map(\.longitude))
        }

        /// Whether the record with these fields is reported on.
        func includes(key: String, name: String, latitude: Double, longitude: Double) -> Bool {
            keys.contains(key) || names.contains(name)
                || isNear(latitude: latitude, longitude: longitude)
        }

        /// Whether a position is closer than `minimumSpacing` to a focused record's.
        func isNear(latitude: Double, longitude: Double) -> Bool {
            guard let positions else { return false }
            var near = false
            positions.forEachCandidate(latitude: latitude, longitude: longitude) { point in
                near =
                    greatCircleDistance(
                        fromLatitude: latitude, longitude: longitude,
                        toLatitude: positions.latitudes[Int(point)],
                        longitude: positions.longitudes[Int(point)])
                    < TreasureValidator.minimumSpacing
                return !near
            }
            return near
        }
    }
}
