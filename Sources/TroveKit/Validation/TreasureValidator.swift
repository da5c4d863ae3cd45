import Foundation

/// A treasure as validation sees it: from a file (key derived, image resolved) or from
/// the workspace (with its stored geohash).
public struct TreasureRecord: Sendable {
    public var key: String
    public var name: String
    public var latitude: Double
    public var longitude: Double
    /// Absolute path, or an `http(s)://` URL.
    public var image: String?
    public var description: String?
    /// The stored geohash; nil for a file that has not been imported.
    public var geohash: String?
    public var location: Diagnostic.Location

    public init(
        key: String, name: String, latitude: Double, longitude: Double, image: String? = nil,
        description: String? = nil, geohash: String? = nil, location: Diagnostic.Location
    ) {
        self.key = key
        self.name = name
        self.latitude = latitude
        self.longitude = longitude
        self.image = image
        self.description = description
        self.geohash = geohash
        self.location = location
    }
}

/// Checks treasures one by one and across the set (duplicates, neighbours, swapped
/// coordinates), collecting `Diagnostic`s with stable codes.
public struct TreasureValidator {
    /// Names longer than this do not fit the apps' callouts.
    public static let maximumNameLength = 80
    /// Treasures closer than this are probably the same place entered twice.
    public static let minimumSpacing = 5.0

    public var bounds: GeoBounds?
    /// Geohash precision to judge stored geohashes by; nil skips geohash checks (files).
    public var geohashPrecision: Int?
    /// Checks one image reference; returns its findings.
    public var inspectImage: (String, Diagnostic.Location) -> [Diagnostic]

    private var findings: [Diagnostic] = []
    private var firstLocationOfKey: [String: Diagnostic.Location] = [:]
    private var firstLocationOfName: [String: Diagnostic.Location] = [:]
    private var points: [(latitude: Double, longitude: Double, index: Int)] = []
    private var locations: [Diagnostic.Location] = []
    private var keys: [String] = []

    public init(
        bounds: GeoBounds? = nil, geohashPrecision: Int? = nil,
        inspectImage: @escaping (String, Diagnostic.Location) -> [Diagnostic] = ImageCheck.inspect
    ) {
        self.bounds = bounds
        self.geohashPrecision = geohashPrecision
        self.inspectImage = inspectImage
    }

    // MARK: - One record

    /// Checks one record and remembers it for the checks across records.
    public mutating func add(_ record: TreasureRecord) {
        var location = record.location
        location.key = record.key
        func report(
            _ severity: Diagnostic.Severity, _ code: String, _ message: String, hint: String? = nil
        ) {
            findings.append(Diagnostic(severity, code, message, at: location, hint: hint))
        }

        if let problem = FirebaseKey.problem(record.key) {
            report(.error, DiagnosticCode.illegalKey, "key '\(record.key)' \(problem)")
        } else if record.key.allSatisfy(\.isASCIIDigit) {
            report(
                .warning, DiagnosticCode.numericKey,
                "key '\(record.key)' is all digits; Firebase may turn the parent into an array",
                hint: "prefix it, e.g. 't\(record.key)'")
        }
        if let first = firstLocationOfKey[record.key] {
            report(
                .error, DiagnosticCode.duplicateKey,
                "key '\(record.key)' is used again (first at \(first.text))")
        } else {
            firstLocationOfKey[record.key] = record.location
        }

        if record.name.isEmpty {
            report(.error, DiagnosticCode.emptyName, "name is empty")
        } else {
            if record.name.count > Self.maximumNameLength {
                report(
                    .warning, DiagnosticCode.longName,
                    "name is \(record.name.count) characters; callouts show about "
                        + "\(Self.maximumNameLength)")
            }
            if let first = firstLocationOfName[record.name] {
                report(
                    .warning, DiagnosticCode.duplicateName,
                    "name '\(record.name)' is used again (first at \(first.text))")
            } else {
                firstLocationOfName[record.name] = record.location
            }
        }
        for (field, text) in [
            ("key", record.key), ("name", record.name), ("description", record.description ?? ""),
        ] where text.hasSurroundingWhitespace {
            report(.warning, DiagnosticCode.surroundingSpaces, "\(field) has surrounding spaces")
        }

        let latitude = record.latitude
        let longitude = record.longitude
        guard latitude.isFinite, longitude.isFinite else {
            report(.error, DiagnosticCode.notANumber, "position is not a finite number")
            return
        }
        if !(-90...90).contains(latitude) {
            report(
                .error, DiagnosticCode.latitudeOutOfRange,
                "latitude \(latitude) is outside [-90, 90]")
        }
        if !(-180...180).contains(longitude) {
            report(
                .error, DiagnosticCode.longitudeOutOfRange,
                "longitude \(longitude) is outside [-180, 180]")
        }
        if latitude == 0 && longitude == 0 {
            report(
                .warning, DiagnosticCode.nullIsland,
                "position is (0, 0), \"Null Island\": usually a missing value")
        }
        if let bounds, !bounds.contains(latitude: latitude, longitude: longitude) {
            if bounds.contains(latitude: longitude, longitude: latitude) {
                report(
                    .warning, DiagnosticCode.swappedCoordinates,
                    "coordinates look swapped (lon/lat): [\(latitude), \(longitude)] lies "
                        + "inside game.bounds only when exchanged")
            } else {
                report(
                    .warning, DiagnosticCode.outsideBounds,
                    "position (\(latitude), \(longitude)) is outside game.bounds")
            }
        }

        if let precision = geohashPrecision {
            let expected = Geohash.encode(
                latitude: latitude, longitude: longitude, precision: precision)
            if record.geohash == nil {
                report(
                    .warning, DiagnosticCode.geohashMissing, "no geohash yet",
                    hint: "run 'trove geohash'")
            } else if record.geohash != expected {
                report(
                    .warning, DiagnosticCode.geohashStale,
                    "geohash \(record.geohash!) does not match the position (\(expected))",
                    hint: "run 'trove geohash'")
            }
        }
        if let image = record.image, !image.hasPrefix("http://"), !image.hasPrefix("https://") {
            findings += inspectImage(image, location)
        }

        points.append((latitude, longitude, locations.count))
        locations.append(location)
        keys.append(record.key)
    }

    // MARK: - Across records

    /// The findings, in input order, with the checks across records added.
    public mutating func finish() -> [Diagnostic] {
        findCloseNeighbours()
        if bounds == nil { findSwappedOutliers() }
        return findings
    }

    /// Pairs closer than `minimumSpacing`, found through a grid of cells at least that
    /// big, so the work stays linear.
    private mutating func findCloseNeighbours() {
        let cell = Self.minimumSpacing / 111_000  // degrees of latitude
        var grid: [Int64: [Int]] = [:]
        func cellKey(_ row: Int64, _ column: Int64) -> Int64 { row &* 100_000_000 &+ column }
        for point in points {
            let row = Int64((point.latitude / cell).rounded(.down))
            let column = Int64((point.longitude / cell).rounded(.down))
            grid[cellKey(row, column), default: []].append(point.index)
        }
        var reported: Set<Int> = []
        for point in points {
            let row = Int64((point.latitude / cell).rounded(.down))
            let column = Int64((point.longitude / cell).rounded(.down))
            // Longitude cells shrink towards the poles; widen the search to match.
            let span = Int64(
                min(1000, (1 / max(cos(point.latitude * .pi / 180), 1e-3)).rounded(.up)))
            for dr in -1...1 {
                for dc in -span...span {
                    for other in grid[cellKey(row + Int64(dr), column + dc)] ?? []
                    where other < point.index && !reported.contains(point.index) {
                        let neighbour = points[other]
                        let distance = haversineMetres(
                            point.latitude, point.longitude, neighbour.latitude,
                            neighbour.longitude)
                        if distance < Self.minimumSpacing {
                            reported.insert(point.index)
                            findings.append(
                                Diagnostic(
                                    .warning, DiagnosticCode.tooClose,
                                    String(
                                        format: "only %.1f m from '%@' (%@)", distance,
                                        keys[other], locations[other].text),
                                    at: locations[point.index]))
                        }
                    }
                }
            }
        }
    }

    /// Without game.bounds: a point far from the others that lands among them when its
    /// coordinates are exchanged was probably written lon/lat.
    private mutating func findSwappedOutliers() {
        guard points.count >= 3 else { return }
        let latitudes = points.map(\.latitude).sorted()
        let longitudes = points.map(\.longitude).sorted()
        let centre = (latitudes[latitudes.count / 2], longitudes[longitudes.count / 2])
        for point in points {
            let asIs = haversineMetres(point.latitude, point.longitude, centre.0, centre.1)
            guard asIs > 1_000_000, (-90...90).contains(point.longitude) else { continue }
            let swapped = haversineMetres(point.longitude, point.latitude, centre.0, centre.1)
            if swapped < 100_000 {
                findings.append(
                    Diagnostic(
                        .warning, DiagnosticCode.swappedCoordinates,
                        "coordinates look swapped (lon/lat): [\(point.latitude), "
                            + "\(point.longitude)] is \(Int(asIs / 1000)) km from the others, "
                            + "\(Int(swapped / 1000)) km when exchanged",
                        at: locations[point.index]))
            }
        }
    }
}

/// Firebase Realtime Database key rules.
public enum FirebaseKey {
    /// Why `key` cannot be a Firebase key, or nil when it can.
    public static func problem(_ key: String) -> String? {
        if key.isEmpty { return "is empty" }
        if key.utf8.count > 768 { return "is longer than 768 bytes" }
        for scalar in key.unicodeScalars {
            if ".$#[]/".unicodeScalars.contains(scalar) {
                return "contains '\(scalar)', which Firebase forbids in keys (. $ # [ ] /)"
            }
            if scalar.value < 0x20 || scalar.value == 0x7F {
                return "contains a control character"
            }
        }
        return nil
    }
}

/// Great-circle distance in metres, as GeoFire measures it.
func haversineMetres(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
    greatCircleDistance(fromLatitude: lat1, longitude: lon1, toLatitude: lat2, longitude: lon2)
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}

extension String {
    fileprivate var hasSurroundingWhitespace: Bool {
        guard let first = unicodeScalars.first, let last = unicodeScalars.last else {
            return false
        }
        return first.properties.isWhitespace || last.properties.isWhitespace
    }
}
