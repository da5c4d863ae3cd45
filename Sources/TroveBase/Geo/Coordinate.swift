/// A position on the Earth in degrees: latitude in [-90, 90], longitude in [-180, 180],
/// both finite.
///
/// The one home of the range rule. Everything that accepts, stores, hashes or compares a
/// position asks it here (``isValid(latitude:longitude:)``), and everything that tells a
/// user a value is out of range says it in ``CoordinateError``'s words.
public struct Coordinate: Hashable, Sendable {
    /// Degrees north of the equator, in [-90, 90].
    public let latitude: Double
    /// Degrees east of Greenwich, in [-180, 180].
    public let longitude: Double

    /// The latitudes a position can have, in degrees.
    public static let latitudeRange: ClosedRange<Double> = -90...90
    /// The longitudes a position can have, in degrees.
    public static let longitudeRange: ClosedRange<Double> = -180...180

    /// A checked position.
    ///
    /// - Throws: ``CoordinateError`` for the first axis (latitude, then longitude) that is
    ///   not finite or out of range.
    public init(latitude: Double, longitude: Double) throws(CoordinateError) {
        try Self.check(latitude: latitude)
        try Self.check(longitude: longitude)
        self.latitude = latitude
        self.longitude = longitude
    }

    /// A position already known to be valid; nil when it is not.
    public init?(validLatitude latitude: Double, longitude: Double) {
        guard Self.isValid(latitude: latitude, longitude: longitude) else { return nil }
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Whether a latitude is finite and in [-90, 90].
    @inline(__always)
    public static func isValid(latitude: Double) -> Bool {
        // A closed range holds neither NaN nor an infinity: the test is also the finite one.
        latitudeRange.contains(latitude)
    }

    /// Whether a longitude is finite and in [-180, 180].
    @inline(__always)
    public static func isValid(longitude: Double) -> Bool {
        longitudeRange.contains(longitude)
    }

    /// Whether both values are finite and in range.
    @inline(__always)
    public static func isValid(latitude: Double, longitude: Double) -> Bool {
        isValid(latitude: latitude) && isValid(longitude: longitude)
    }

    /// Checks a latitude; `text` is the value as the user wrote it, for the message.
    ///
    /// - Throws: ``CoordinateError`` when it is not finite or outside [-90, 90].
    public static func check(latitude: Double, text: String? = nil) throws(CoordinateError) {
        guard isValid(latitude: latitude) else {
            throw CoordinateError(.latitude, latitude, text: text)
        }
    }

    /// Checks a longitude; `text` is the value as the user wrote it, for the message.
    ///
    /// - Throws: ``CoordinateError`` when it is not finite or outside [-180, 180].
    public static func check(longitude: Double, text: String? = nil) throws(CoordinateError) {
        guard isValid(longitude: longitude) else {
            throw CoordinateError(.longitude, longitude, text: text)
        }
    }
}

/// A latitude or longitude that is not finite or out of range, described in the words every
/// command uses: `latitude 140.2 is outside [-90, 90]`.
public struct CoordinateError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Which of a position's two numbers.
    public enum Axis: String, Sendable {
        case latitude
        case longitude

        /// The values the axis allows.
        public var range: ClosedRange<Double> {
            self == .latitude ? Coordinate.latitudeRange : Coordinate.longitudeRange
        }

        /// `[-90, 90]` or `[-180, 180]`.
        public var rangeText: String {
            self == .latitude ? "[-90, 90]" : "[-180, 180]"
        }
    }

    /// The axis at fault.
    public var axis: Axis
    /// The value.
    public var value: Double
    /// The value as written, or as the shortest number text that reads back as it.
    public var text: String

    /// The error for `value` on `axis`; `text` is the value as written, when known.
    public init(_ axis: Axis, _ value: Double, text: String? = nil) {
        self.axis = axis
        self.value = value
        self.text = text ?? (value.isFinite ? jsonNumber(value) : value.description)
    }

    /// The stable diagnostic code: T101 or T102 out of range, the not-a-number code for
    /// NaN and infinities.
    public var code: String {
        guard value.isFinite else { return DiagnosticCode.notANumber }
        return axis == .latitude
            ? DiagnosticCode.latitudeOutOfRange : DiagnosticCode.longitudeOutOfRange
    }

    /// `latitude 140.2 is outside [-90, 90]`, or `latitude nan is not a finite number`.
    public var description: String {
        value.isFinite
            ? "\(axis.rawValue) \(text) is outside \(axis.rangeText)"
            : "\(axis.rawValue) \(text) is not a finite number"
    }
}
