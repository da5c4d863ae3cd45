import Foundation
import TroveBase
import TroveStore

/// Checks treasures one by one and across the set (duplicates, neighbours, swapped
/// coordinates), putting `Diagnostic`s with stable codes in `findings` as it goes.
///
/// What it keeps per record is small (position, file index, line), and findings do not
/// stay in memory (`OrderedFindings`), so a million treasures validate in a few seconds
/// and a few dozen megabytes, however many findings they have.
public struct TreasureValidator {
    /// Names longer than this do not fit the apps' callouts.
    public static let maximumNameLength = 80
    /// Treasures closer than this are probably the same place entered twice.
    public static let minimumSpacing = 5.0

    public var bounds: GeoBounds?
    /// Geohash precision to judge stored geohashes by; nil skips geohash checks (files).
    public var geohashPrecision: Int?
    /// Checks one image reference; returns its findings. Called from several threads at
    /// once, for a batch of records.
    public var inspectImage: @Sendable (String, Diagnostic.Location) -> [Diagnostic]
    /// Set when keys cannot repeat (the workspace's primary key), to skip that check.
    public var keysAreUnique = false
    /// The records to report on (`validate --changed`); nil reports on every record.
    /// The others are remembered for the checks across records, not checked themselves.
    var focus: Focus?
    /// The positions of every record, in any order, when only some were added
    /// (`--changed`): the swapped-coordinates check compares a point with all of them.
    var swappedContext: SwappedCheck?
    /// How many records were reported on.
    private(set) var checked = 0

    /// A record's place, as remembered for the checks across records (its position is in
    /// `latitudes` and `longitudes`, which a `NeighbourIndex` shares without copying).
    struct Entry {
        var file: Int32
        var line: Int32
        var feature: Int32
    }

    /// Where the findings go, in compiler order.
    let findings = OrderedFindings()
    /// Records with a position but no geohash yet, reported once as T130 by the caller.
    public private(set) var missingGeohashes = 0
    /// Records whose findings wait for a batch of image checks, each with its image, so
    /// that an image's findings follow its record's others.
    var pending: [(found: [Diagnostic], image: String?, location: Diagnostic.Location)] =
        []
    var pendingImages = 0
    /// The findings of each image file checked so far, by path (at the location of the
    /// first record that named it), so a file many records share is checked once.
    var imageFindings: [String: [Diagnostic]] = [:]
    /// Images checked at once: enough to keep every core busy, few enough to hold.
    static let imageBatch = 512
    var entries: [Entry] = []
    /// Each record's position, NaN when out of range.
    var latitudes: [Double] = []
    var longitudes: [Double] = []
    /// With a focus, whether each record is reported on.
    var reported: [Bool] = []
    var keys: [String] = []
    var files: [String] = []
    var fileIndex: [String: Int32] = [:]
    var firstOfKey: [String: Int32] = [:]
    var firstOfName: [String: Int32] = [:]

    public init(
        bounds: GeoBounds? = nil, geohashPrecision: Int? = nil,
        inspectImage: @escaping @Sendable (String, Diagnostic.Location) -> [Diagnostic] =
            ImageCheck.inspect
    ) {
        self.bounds = bounds
        self.geohashPrecision = geohashPrecision
        self.inspectImage = inspectImage
    }

    /// Makes room for `count` records up front.
    public mutating func reserveCapacity(_ count: Int) {
        entries.reserveCapacity(count)
        latitudes.reserveCapacity(count)
        longitudes.reserveCapacity(count)
        keys.reserveCapacity(count)
        firstOfName.reserveCapacity(count)
        if !keysAreUnique { firstOfKey.reserveCapacity(count) }
    }

    // MARK: - One record

    /// Checks one record and remembers it for the checks across records. A treasure from
    /// a file has its key derived and its image resolved; one from the workspace its
    /// stored geohash. Findings point at its `location`.
    public mutating func add(_ record: Treasure) {
        var location = record.location
        location.key = record.key
        findings.register(file: location.file)
        let index = Int32(entries.count)
        if let focus {
            let included = focus.includes(
                key: record.key, name: record.name, latitude: record.latitude,
                longitude: record.longitude)
            reported.append(included)
            if !included {
                remember(record, at: location)
                return
            }
        }
        checked += 1
        var found = RecordFindings(location: location)
        checkKey(record, index: index, into: &found)
        checkName(record, index: index, into: &found)
        let inRange = checkPosition(record, into: &found)
        if inRange { checkGeohash(record, into: &found) }
        if let image = record.image, !image.hasPrefix("http://"), !image.hasPrefix("https://") {
            pending.append((found.diagnostics, image, location))
            pendingImages += 1
            if pendingImages >= Self.imageBatch { checkImages() }
        } else if !pending.isEmpty {
            pending.append((found.diagnostics, nil, location))
        } else {
            for finding in found.diagnostics { findings.add(finding) }
        }
        append(record, at: location, inRange: inRange)
    }

    /// The findings of one record, each at its location.
    private struct RecordFindings {
        let location: Diagnostic.Location
        var diagnostics: [Diagnostic] = []

        mutating func report(
            _ severity: Diagnostic.Severity, _ code: String, _ message: String, hint: String? = nil
        ) {
            diagnostics.append(Diagnostic(severity, code, message, at: location, hint: hint))
        }
    }

    /// A key Firebase refuses or may misread, and a key used again.
    private mutating func checkKey(
        _ record: Treasure, index: Int32, into found: inout RecordFindings
    ) {
        if let problem = FirebaseKey.problem(record.key) {
            found.report(.error, DiagnosticCode.illegalKey, "key '\(record.key)' \(problem)")
        } else if record.key.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
            found.report(
                .warning, DiagnosticCode.numericKey,
                "key '\(record.key)' is all digits; Firebase may turn the parent into an array",
                hint: "prefix it, e.g. 't\(record.key)', or import the file with "
                    + "--ignore-numeric-ids to key it by its name")
        }
        if !keysAreUnique {
            if let first = firstOfKey[record.key] {
                found.report(
                    .error, DiagnosticCode.duplicateKey,
                    "key '\(record.key)' is used again (first at \(locationText(first)))")
            } else {
                firstOfKey[record.key] = index
            }
        }
    }

    /// An empty or long name, a name used again, and text with surrounding spaces.
    private mutating func checkName(
        _ record: Treasure, index: Int32, into found: inout RecordFindings
    ) {
        if record.name.isEmpty {
            found.report(.error, DiagnosticCode.emptyName, "name is empty")
        } else {
            if record.name.utf8.count > Self.maximumNameLength,
                record.name.count > Self.maximumNameLength
            {
                found.report(
                    .warning, DiagnosticCode.longName,
                    "name is \(record.name.count) characters; callouts show about "
                        + "\(Self.maximumNameLength)")
            }
            if let first = firstOfName[record.name] {
                found.report(
                    .warning, DiagnosticCode.duplicateName,
                    "name '\(record.name)' is used again (first at \(locationText(first)))")
            } else {
                firstOfName[record.name] = index
            }
        }
        for (field, text) in [
            ("key", record.key), ("name", record.name), ("description", record.description ?? ""),
        ] where text.hasSurroundingWhitespace {
            found.report(
                .warning, DiagnosticCode.surroundingSpaces, "\(field) has surrounding spaces")
        }
    }

    /// A position that is not a number, out of range, (0, 0) or outside game.bounds;
    /// returns whether it is in range.
    private func checkPosition(_ record: Treasure, into found: inout RecordFindings) -> Bool {
        let latitude = record.latitude
        let longitude = record.longitude
        let inRange = Self.inRange(latitude, longitude)
        if !latitude.isFinite || !longitude.isFinite {
            found.report(.error, DiagnosticCode.notANumber, "position is not a finite number")
        } else {
            do throws(CoordinateError) {
                try Coordinate.check(latitude: latitude)
            } catch {
                found.report(.error, error.code, error.description)
            }
            do throws(CoordinateError) {
                try Coordinate.check(longitude: longitude)
            } catch {
                found.report(.error, error.code, error.description)
            }
        }
        if latitude == 0 && longitude == 0 {
            found.report(
                .warning, DiagnosticCode.nullIsland,
                "position is (0, 0), \"Null Island\": usually a missing value")
        }
        if inRange, let bounds, !bounds.contains(latitude: latitude, longitude: longitude) {
            if bounds.contains(latitude: longitude, longitude: latitude) {
                found.report(
                    .warning, DiagnosticCode.swappedCoordinates,
                    "coordinates look swapped (lon/lat): [\(latitude), \(longitude)] lies "
                        + "inside game.bounds only when exchanged")
            } else {
                found.report(
                    .warning, DiagnosticCode.outsideBounds,
                    "position (\(latitude), \(longitude)) is outside game.bounds")
            }
        }
        return inRange
    }

    /// A stored geohash that does not match the position (of one in range), or none.
    private mutating func checkGeohash(_ record: Treasure, into found: inout RecordFindings) {
        let latitude = record.latitude
        let longitude = record.longitude
        if let precision = geohashPrecision {
            let expected = Geohash.encode(
                latitude: latitude, longitude: longitude, precision: precision)
            if let stored = record.geohash {
                if stored != expected {
                    found.report(
                        .warning, DiagnosticCode.geohashStale,
                        "geohash \(stored) does not match the position (\(expected))",
                        hint: "run 'trove geohash'")
                }
            } else {
                // Said once for them all (see `missingGeohashes`): before the first
                // `trove geohash` every treasure lacks one.
                missingGeohashes += 1
            }
        }
    }

    /// Remembers a record outside the focus as the checks across records need it: the
    /// first of its key and name, and its entry.
    mutating func remember(_ record: Treasure, at location: Diagnostic.Location) {
        let index = Int32(entries.count)
        if !keysAreUnique, firstOfKey[record.key] == nil { firstOfKey[record.key] = index }
        if !record.name.isEmpty, firstOfName[record.name] == nil {
            firstOfName[record.name] = index
        }
        append(record, at: location, inRange: Self.inRange(record.latitude, record.longitude))
    }

    mutating func append(
        _ record: Treasure, at location: Diagnostic.Location, inRange: Bool
    ) {
        let file = location.file ?? ""
        let fileNumber =
            fileIndex[file]
            ?? {
                files.append(file)
                fileIndex[file] = Int32(files.count - 1)
                return Int32(files.count - 1)
            }()
        latitudes.append(inRange ? record.latitude : .nan)
        longitudes.append(inRange ? record.longitude : .nan)
        entries.append(
            Entry(
                file: fileNumber, line: Int32(clamping: location.line ?? -1),
                feature: Int32(clamping: location.feature ?? -1)))
        keys.append(record.key)
    }

    /// Whether a position is one the checks across records compare.
    static func inRange(_ latitude: Double, _ longitude: Double) -> Bool {
        Coordinate.isValid(latitude: latitude, longitude: longitude)
    }

    /// Whether record `index` is reported on.
    func isReported(_ index: Int) -> Bool {
        focus == nil || reported[index]
    }

    func location(_ index: Int32) -> Diagnostic.Location {
        let entry = entries[Int(index)]
        let file = files[Int(entry.file)]
        return Diagnostic.Location(
            file: file.isEmpty ? nil : file, line: entry.line >= 0 ? Int(entry.line) : nil,
            feature: entry.feature >= 0 ? Int(entry.feature) : nil, key: keys[Int(index)])
    }

    func locationText(_ index: Int32) -> String {
        location(index).text
    }
}

extension String {
    fileprivate var hasSurroundingWhitespace: Bool {
        guard let first = utf8.first, let last = utf8.last else { return false }
        // Most text starts and ends with a plain ASCII letter: decide those without
        // looking up Unicode properties.
        func isLetterOrDigit(_ byte: UInt8) -> Bool {
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte)
                || (0x61...0x7A).contains(byte)
        }
        if isLetterOrDigit(first) && isLetterOrDigit(last) { return false }
        guard let firstScalar = unicodeScalars.first, let lastScalar = unicodeScalars.last else {
            return false
        }
        return firstScalar.properties.isWhitespace || lastScalar.properties.isWhitespace
    }
}
