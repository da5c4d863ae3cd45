import TroveBase

/// A latitude/longitude rectangle, as `minLat,minLon,maxLat,maxLon`.
public struct GeoBounds: Equatable, Sendable {
    public var minLatitude: Double
    public var minLongitude: Double
    public var maxLatitude: Double
    public var maxLongitude: Double
    /// The text it was read from, as messages quote it.
    public var text: String

    /// Parses `minLat,minLon,maxLat,maxLon`; nil when malformed or out of range.
    public init?(parsing text: String) {
        let numbers = text.split(separator: ",").compactMap {
            Double($0.trimmingCharacters(in: .whitespaces))
        }
        guard numbers.count == 4,
            Coordinate.isValid(latitude: numbers[0], longitude: numbers[1]),
            Coordinate.isValid(latitude: numbers[2], longitude: numbers[3]),
            numbers[0] <= numbers[2]
        else { return nil }
        minLatitude = numbers[0]
        minLongitude = numbers[1]
        maxLatitude = numbers[2]
        maxLongitude = numbers[3]
        self.text = text
    }

    /// Whether the point lies inside; a box whose minLon exceeds maxLon crosses the
    /// antimeridian.
    public func contains(latitude: Double, longitude: Double) -> Bool {
        guard (minLatitude...maxLatitude).contains(latitude) else { return false }
        if minLongitude <= maxLongitude {
            return (minLongitude...maxLongitude).contains(longitude)
        }
        return longitude >= minLongitude || longitude <= maxLongitude
    }
}
