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
        if let exif { EXIFReader(exif).read(into: &self) }
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

    func read(into metadata: inout ImageMetadata) {
        var reader = self
        guard bytes.count >= 8 else { return }
        switch (bytes[0], bytes[1]) {
        case (0x49, 0x49): reader.littleEndian = true
        case (0x4D, 0x4D): reader.littleEndian = false
        default: return
        }
        guard reader.u16(2) == 42, let first = reader.u32(4) else { return }
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
            var references: [UInt16: String] = [:]
            var coordinates: [UInt16: Double] = [:]
            for entry in reader.entries(at: gpsPointer, visited: &visited) {
                switch entry.tag {
                case 1, 3: references[entry.tag] = reader.string(entry)
                case 2, 4: coordinates[entry.tag] = reader.degrees(entry)
                default: break
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
            }
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
