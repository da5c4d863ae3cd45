import Foundation

/// How a stored image must be turned to look upright, as EXIF tag 0x0112 says.
public enum ImageOrientation: Int, Sendable, Equatable, CaseIterable {
    /// Stored upright.
    case up = 1
    /// Mirrored left to right.
    case upMirrored = 2
    /// Upside down.
    case down = 3
    /// Mirrored top to bottom.
    case downMirrored = 4
    /// Mirrored along the main diagonal (rows become columns).
    case leftMirrored = 5
    /// Needs a 90° clockwise turn.
    case right = 6
    /// Mirrored along the anti-diagonal.
    case rightMirrored = 7
    /// Needs a 90° counter-clockwise turn.
    case left = 8

    /// Whether width and height trade places when the orientation is applied.
    public var swapsDimensions: Bool { rawValue >= 5 }
}

/// Metadata that trove reads from an image: orientation, place, time, camera, colour.
///
/// Parsed defensively: a damaged EXIF block yields fewer fields, never a crash.
public struct ImageMetadata: Sendable, Equatable {
    /// EXIF orientation; `.up` when absent or invalid.
    public var orientation: ImageOrientation = .up
    /// GPS latitude in signed decimal degrees (south negative).
    public var latitude: Double?
    /// GPS longitude in signed decimal degrees (west negative).
    public var longitude: Double?
    /// Why a GPS position the EXIF block holds could not be read (a coordinate stored as
    /// text instead of three rationals, a missing reference), when it holds one.
    public var gpsProblem: String?
    /// DateTimeOriginal as ISO 8601 local time, e.g. `2024-05-01T13:45:00`, followed by the
    /// offset (`+02:00`) when OffsetTimeOriginal is present.
    public var captureTime: String?
    /// Camera maker (EXIF Make).
    public var cameraMake: String?
    /// Camera model (EXIF Model).
    public var cameraModel: String?
    /// The embedded ICC colour profile.
    public var iccProfile: [UInt8]?

    /// Empty metadata: upright, nothing known.
    public init() {}

    /// Parses an EXIF TIFF stream (the bytes after `Exif\0\0`) and keeps an ICC profile.
    public init(exif: [UInt8]?, iccProfile: [UInt8]? = nil) {
        self.iccProfile = iccProfile
        if let exif { EXIFReader(Self.tiff(exif)).read(into: &self) }
    }

    /// What a file's metadata blocks say, the orientation taken as Pillow's
    /// `exif_transpose` takes it: EXIF first (JPEG APP1 or PNG eXIf, with or without a
    /// stray `Exif\0\0` prefix), then ImageMagick's "Raw profile type exif" text chunk,
    /// then XMP `tiff:Orientation`.
    init(_ raw: Native.RawMetadata) {
        self.init(
            exif: raw.exif, xmp: raw.xmp, exifText: raw.exifText, iccProfile: raw.icc)
    }

    /// See `init(_:)`; each block may be absent.
    init(exif: [UInt8]?, xmp: [UInt8]?, exifText: [UInt8]?, iccProfile: [UInt8]?) {
        self.iccProfile = iccProfile
        var found = false
        if let exif { found = EXIFReader(Self.tiff(exif)).read(into: &self) }
        if !found, let exifText, let bytes = Self.rawProfile(exifText) {
            if exif == nil {
                found = EXIFReader(Self.tiff(bytes)).read(into: &self)
            } else {
                // The EXIF block wins for everything it has; the text only for orientation.
                var other = ImageMetadata()
                if EXIFReader(Self.tiff(bytes)).read(into: &other) {
                    orientation = other.orientation
                    found = true
                }
            }
        }
        if !found, let xmp, let value = XMPOrientation.read(xmp) {
            orientation = value
        }
    }

    /// The TIFF stream, without the `Exif\0\0` that JPEG's APP1 puts before it.
    static func tiff(_ bytes: [UInt8]) -> [UInt8] {
        let prefix: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]
        return bytes.starts(with: prefix) ? Array(bytes.dropFirst(prefix.count)) : bytes
    }

    /// Decodes ImageMagick's raw profile text: a newline, the profile's name, its length in
    /// bytes, then that many bytes as hex digits broken into lines. Nil when malformed.
    static func rawProfile(_ text: [UInt8]) -> [UInt8]? {
        var position = 0
        func skipSpace() {
            while position < text.count,
                text[position] == 0x0A || text[position] == 0x20
                    || text[position] == 0x0D || text[position] == 0x09
            {
                position += 1
            }
        }
        skipSpace()
        // The name runs to the end of its line.
        while position < text.count, text[position] != 0x0A { position += 1 }
        skipSpace()
        var length = 0
        var digits = 0
        while position < text.count, (0x30...0x39).contains(text[position]), digits < 10 {
            length = length * 10 + Int(text[position] - 0x30)
            position += 1
            digits += 1
        }
        guard digits > 0, length > 0, length <= (text.count - position) / 2 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(length)
        var high: UInt8?
        while position < text.count, bytes.count < length {
            let character = text[position]
            position += 1
            let value: UInt8
            switch character {
            case 0x30...0x39: value = character - 0x30
            case 0x61...0x66: value = character - 0x61 + 10
            case 0x41...0x46: value = character - 0x41 + 10
            case 0x0A, 0x0D, 0x20, 0x09: continue
            default: return nil
            }
            if let first = high {
                bytes.append(first << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        return bytes.count == length ? bytes : nil
    }
}

// MARK: - XMP orientation

/// Finds `tiff:Orientation` in an XMP packet, as an attribute (`tiff:Orientation="6"`) or
/// an element (`<tiff:Orientation>6</tiff:Orientation>`), the forms Adobe's tools write.
enum XMPOrientation {
    static func read(_ packet: [UInt8]) -> ImageOrientation? {
        let name = Array("tiff:Orientation".utf8)
        var start = 0
        while start + name.count < packet.count {
            guard let found = find(name, in: packet, from: start) else { return nil }
            var position = found + name.count
            start = position
            // `="6"`, `='6'` or `>6<`, allowing spaces around `=`.
            while position < packet.count, packet[position] == 0x20 { position += 1 }
            guard position < packet.count else { return nil }
            if packet[position] == 0x3D {
                position += 1
                while position < packet.count, packet[position] == 0x20 { position += 1 }
                guard position < packet.count, packet[position] == 0x22 || packet[position] == 0x27
                else { continue }
                position += 1
            } else if packet[position] == 0x3E {
                position += 1
            } else {
                continue
            }
            while position < packet.count, packet[position] == 0x20 { position += 1 }
            guard position + 1 < packet.count, (0x31...0x38).contains(packet[position]),
                !(0x30...0x39).contains(packet[position + 1])
            else { continue }
            return ImageOrientation(rawValue: Int(packet[position] - 0x30))
        }
        return nil
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        var index = from
        while index + needle.count <= haystack.count {
            if haystack[index] == needle[0]
                && haystack[index..<(index + needle.count)].elementsEqual(needle)
            {
                return index
            }
            index += 1
        }
        return nil
    }
}

// MARK: - EXIF reader

/// A bounds-checked reader of the TIFF structure inside EXIF.
///
/// Every offset and count comes from outside, so each read checks its range, counts are
/// checked for overflow, and each IFD is visited at most once (chains may loop).
struct EXIFReader {
    private let bytes: [UInt8]
    private var littleEndian = true

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    private struct Entry {
        var tag: UInt16
        var type: UInt16
        var count: Int
        /// Where the value lives: inside the entry when it fits in four bytes.
        var valueOffset: Int
    }

    /// The GPS tags a position is made of.
    private static let gpsTagNames: [UInt16: String] = [
        1: "GPSLatitudeRef", 2: "GPSLatitude", 3: "GPSLongitudeRef", 4: "GPSLongitude",
    ]
    /// TIFF field types, as an EXIF tool names them.
    private static let typeNames: [UInt16: String] = [
        1: "bytes", 2: "ASCII text", 3: "shorts", 4: "longs", 5: "rationals", 6: "signed bytes",
        7: "undefined bytes", 8: "signed shorts", 9: "signed longs", 10: "signed rationals",
        11: "floats", 12: "doubles",
    ]
    private static let typeSizes: [UInt16: Int] = [
        1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8,
    ]

    private func u16(_ offset: Int) -> UInt16? {
        guard offset >= 0, offset <= bytes.count - 2 else { return nil }
        let a = UInt16(bytes[offset])
        let b = UInt16(bytes[offset + 1])
        return littleEndian ? a | b << 8 : a << 8 | b
    }

    private func u32(_ offset: Int) -> UInt32? {
        guard offset >= 0, offset <= bytes.count - 4 else { return nil }
        var value: UInt32 = 0
        for index in 0..<4 {
            let byte = UInt32(bytes[offset + (littleEndian ? 3 - index : index)])
            value = value << 8 | byte
        }
        return value
    }

    /// Reads the fields trove uses; returns whether a valid orientation was among them.
    @discardableResult
    func read(into metadata: inout ImageMetadata) -> Bool {
        var reader = self
        var orientationFound = false
        guard bytes.count >= 8 else { return false }
        switch (bytes[0], bytes[1]) {
        case (0x49, 0x49): reader.littleEndian = true
        case (0x4D, 0x4D): reader.littleEndian = false
        default: return false
        }
        guard reader.u16(2) == 42, let first = reader.u32(4) else { return false }
        var visited = Set<Int>()
        let root = reader.entries(at: Int(first), visited: &visited)
        var exifPointer: Int?
        var gpsPointer: Int?
        for entry in root {
            switch entry.tag {
            case 0x0112:
                if let value = reader.integer(entry),
                    let orientation = ImageOrientation(
                        rawValue: value)
                {
                    metadata.orientation = orientation
                    orientationFound = true
                }
            case 0x010F: metadata.cameraMake = reader.string(entry)
            case 0x0110: metadata.cameraModel = reader.string(entry)
            case 0x8769: exifPointer = reader.integer(entry)
            case 0x8825: gpsPointer = reader.integer(entry)
            default: break
            }
        }
        if let exifPointer {
            var dateTime: String?
            var offset: String?
            for entry in reader.entries(at: exifPointer, visited: &visited) {
                if entry.tag == 0x9003 { dateTime = reader.string(entry) }
                if entry.tag == 0x9011 { offset = reader.string(entry) }
            }
            metadata.captureTime = Self.isoTime(dateTime, offset: offset)
        }
        if let gpsPointer {
            reader.readGPS(at: gpsPointer, visited: &visited, into: &metadata)
        }
        return orientationFound
    }

    /// The position in the GPS IFD at `pointer`, when both coordinates are valid; else
    /// why not, where the fields say.
    private func readGPS(
        at pointer: Int, visited: inout Set<Int>, into metadata: inout ImageMetadata
    ) {
        var references: [UInt16: String] = [:]
        var coordinates: [UInt16: Double] = [:]
        var problems: [String] = []
        for entry in entries(at: pointer, visited: &visited) {
            switch entry.tag {
            case 1, 3: references[entry.tag] = string(entry)
            case 2, 4:
                coordinates[entry.tag] = degrees(entry)
                if coordinates[entry.tag] == nil {
                    problems.append(
                        "\(Self.gpsTagNames[entry.tag] ?? "") is stored as "
                            + "\(Self.typeNames[entry.type] ?? "type \(entry.type)") "
                            + "(\(entry.count) value\(entry.count == 1 ? "" : "s")), not as three "
                            + "rationals")
                }
            default: break
            }
        }
        for (coordinate, reference) in [(UInt16(2), UInt16(1)), (4, 3)]
        where coordinates[coordinate] != nil {
            let valid = coordinate == 2 ? ["N", "S"] : ["E", "W"]
            if !valid.contains(references[reference]?.uppercased() ?? "") {
                problems.append(
                    "\(Self.gpsTagNames[reference] ?? "") is "
                        + (references[reference].map { "'\($0)'" } ?? "missing")
                        + ", not \(valid.joined(separator: " or "))")
            }
        }
        if let latitude = coordinates[2], latitude <= 90 {
            switch references[1]?.uppercased() {
            case "N": metadata.latitude = latitude
            case "S": metadata.latitude = -latitude
            default: break
            }
        }
        if let longitude = coordinates[4], longitude <= 180 {
            switch references[3]?.uppercased() {
            case "E": metadata.longitude = longitude
            case "W": metadata.longitude = -longitude
            default: break
            }
        }
        if metadata.latitude == nil || metadata.longitude == nil {
            metadata.latitude = nil
            metadata.longitude = nil
            if !problems.isEmpty { metadata.gpsProblem = problems.joined(separator: "; ") }
        }
    }

    /// The entries of one IFD; empty when it was seen before or does not fit.
    private func entries(at offset: Int, visited: inout Set<Int>) -> [Entry] {
        guard offset >= 8, !visited.contains(offset), let count = u16(offset) else { return [] }
        visited.insert(offset)
        // Entries that run past the end are dropped, not read.
        let available = (bytes.count - offset - 2) / 12
        var result: [Entry] = []
        for index in 0..<min(Int(count), max(0, available)) {
            let start = offset + 2 + index * 12
            guard let tag = u16(start), let type = u16(start + 2), let count = u32(start + 4),
                let size = Self.typeSizes[type]
            else { continue }
            let total = Int(count) * size
            let valueOffset: Int
            if total <= 4 {
                valueOffset = start + 8
            } else if let pointer = u32(start + 8), Int(pointer) <= bytes.count - total {
                valueOffset = Int(pointer)
            } else {
                continue
            }
            result.append(Entry(tag: tag, type: type, count: Int(count), valueOffset: valueOffset))
        }
        return result
    }

    private func integer(_ entry: Entry) -> Int? {
        guard entry.count >= 1 else { return nil }
        switch entry.type {
        case 3: return u16(entry.valueOffset).map(Int.init)
        case 4: return u32(entry.valueOffset).map(Int.init)
        default: return nil
        }
    }

    private func string(_ entry: Entry) -> String? {
        guard entry.type == 2, entry.count > 0 else { return nil }
        let end = entry.valueOffset + entry.count
        guard entry.valueOffset >= 0, end <= bytes.count else { return nil }
        let raw = bytes[entry.valueOffset..<end].prefix { $0 != 0 }
        let text = String(decoding: raw, as: UTF8.self)
            .trimmingCharacters(in: .whitespaces)
        return text.isEmpty ? nil : text
    }

    /// Degrees, minutes and seconds as three rationals, summed to decimal degrees.
    private func degrees(_ entry: Entry) -> Double? {
        guard entry.type == 5, entry.count >= 3 else { return nil }
        var parts: [Double] = []
        for index in 0..<3 {
            guard let numerator = u32(entry.valueOffset + index * 8),
                let denominator = u32(entry.valueOffset + index * 8 + 4), denominator != 0
            else { return nil }
            parts.append(Double(numerator) / Double(denominator))
        }
        let value = parts[0] + parts[1] / 60 + parts[2] / 3600
        return value.isFinite ? value : nil
    }

    /// `YYYY:MM:DD HH:MM:SS` to `YYYY-MM-DDTHH:MM:SS`, nil unless it has that shape.
    static func isoTime(_ text: String?, offset: String?) -> String? {
        guard let text else { return nil }
        let characters = Array(text.utf8)
        guard characters.count >= 19 else { return nil }
        let digitPositions = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18]
        for position in digitPositions where !(48...57).contains(characters[position]) {
            return nil
        }
        guard characters[4] == 58, characters[7] == 58, characters[13] == 58,
            characters[16] == 58
        else { return nil }
        let digits = String(decoding: characters[0..<19], as: UTF8.self)
        let date = digits.prefix(10).replacingOccurrences(of: ":", with: "-")
        var result = date + "T" + digits.suffix(8)
        if let offset, offset.utf8.count == 6,
            offset.hasPrefix("+") || offset.hasPrefix("-")
        {
            result += offset
        }
        return result
    }
}
