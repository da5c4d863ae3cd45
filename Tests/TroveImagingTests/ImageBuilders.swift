import Foundation

@testable import TroveImaging

// MARK: - EXIF

/// Writes little-endian TIFF/EXIF blocks.
enum EXIFBuilder {
    struct Entry {
        var tag: UInt16
        var type: UInt16
        var count: UInt32
        var payload: [UInt8]
    }

    static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    static func le32(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8((value >> ($0 * 8)) & 0xFF) }
    }

    static func ascii(_ tag: UInt16, _ text: String) -> Entry {
        let bytes = Array(text.utf8) + [0]
        return Entry(tag: tag, type: 2, count: UInt32(bytes.count), payload: bytes)
    }

    static func short(_ tag: UInt16, _ value: UInt16) -> Entry {
        Entry(tag: tag, type: 3, count: 1, payload: le16(value) + [0, 0])
    }

    static func long(_ tag: UInt16, _ value: UInt32) -> Entry {
        Entry(tag: tag, type: 4, count: 1, payload: le32(value))
    }

    static func rationals(_ tag: UInt16, _ values: [(UInt32, UInt32)]) -> Entry {
        Entry(
            tag: tag, type: 5, count: UInt32(values.count),
            payload: values.flatMap { le32($0.0) + le32($0.1) })
    }

    static func size(_ entries: [Entry]) -> Int {
        2 + 12 * entries.count + 4
            + entries.reduce(0) { $0 + ($1.payload.count > 4 ? ($1.payload.count + 1) / 2 * 2 : 0) }
    }

    static func ifd(_ entries: [Entry], at offset: Int) -> [UInt8] {
        var head = le16(UInt16(entries.count))
        var data: [UInt8] = []
        let dataStart = offset + 2 + 12 * entries.count + 4
        for entry in entries {
            head += le16(entry.tag) + le16(entry.type) + le32(entry.count)
            if entry.payload.count <= 4 {
                head += entry.payload + [UInt8](repeating: 0, count: 4 - entry.payload.count)
            } else {
                head += le32(UInt32(dataStart + data.count))
                data += entry.payload
                if data.count % 2 == 1 { data.append(0) }
            }
        }
        return head + le32(0) + data
    }

    /// A complete TIFF block with IFD0 and optional Exif and GPS IFDs.
    static func make(
        orientation: UInt16? = nil, make: String? = nil, model: String? = nil,
        dateTime: String? = nil,
        gps: (lat: Double, latRef: String, lon: Double, lonRef: String)? = nil
    ) -> [UInt8] {
        var root: [Entry] = []
        if let make { root.append(ascii(0x010F, make)) }
        if let model { root.append(ascii(0x0110, model)) }
        if let orientation { root.append(short(0x0112, orientation)) }
        var exif: [Entry] = []
        if let dateTime { exif.append(ascii(0x9003, dateTime)) }
        var gpsEntries: [Entry] = []
        if let gps {
            func dms(_ value: Double) -> [(UInt32, UInt32)] {
                let degrees = floor(value)
                let minutes = floor((value - degrees) * 60)
                let seconds = ((value - degrees) * 60 - minutes) * 60
                return [(UInt32(degrees), 1), (UInt32(minutes), 1), (UInt32(seconds * 1000), 1000)]
            }
            gpsEntries = [
                ascii(1, gps.latRef), rationals(2, dms(gps.lat)), ascii(3, gps.lonRef),
                rationals(4, dms(gps.lon)),
            ]
        }
        // Pointer entries have a fixed size, so offsets can be computed before writing.
        let pointerCount = (exif.isEmpty ? 0 : 1) + (gpsEntries.isEmpty ? 0 : 1)
        let rootSize = size(root) + 12 * pointerCount
        let exifOffset = 8 + rootSize
        let gpsOffset = exifOffset + (exif.isEmpty ? 0 : size(exif))
        if !exif.isEmpty { root.append(long(0x8769, UInt32(exifOffset))) }
        if !gpsEntries.isEmpty { root.append(long(0x8825, UInt32(gpsOffset))) }
        var block: [UInt8] = [0x49, 0x49, 42, 0] + le32(8)
        block += ifd(root, at: 8)
        if !exif.isEmpty { block += ifd(exif, at: exifOffset) }
        if !gpsEntries.isEmpty { block += ifd(gpsEntries, at: gpsOffset) }
        return block
    }
}

// MARK: - JPEG and PNG bytes

/// Inserts an APPn segment right after SOI.
func insertingSegment(_ marker: UInt8, _ payload: [UInt8], into jpeg: [UInt8]) -> [UInt8] {
    let length = payload.count + 2
    let segment = [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    return Array(jpeg[0..<2]) + segment + Array(jpeg[2...])
}

/// A JPEG carrying `tiff` as its EXIF APP1 segment.
func jpegWithEXIF(_ bitmap: Bitmap, tiff: [UInt8], quality: Int = 95) throws -> [UInt8] {
    let plain = try JPEG.encode(bitmap, quality: quality)
    return insertingSegment(0xE1, Array("Exif".utf8) + [0, 0] + tiff, into: plain)
}

/// The markers of a JPEG up to the first SOS.
func jpegMarkers(_ bytes: [UInt8]) -> [UInt8] {
    var markers: [UInt8] = []
    var position = 2
    while position + 4 <= bytes.count, bytes[position] == 0xFF {
        let marker = bytes[position + 1]
        markers.append(marker)
        if marker == 0xDA { break }
        let length = Int(bytes[position + 2]) << 8 | Int(bytes[position + 3])
        position += 2 + length
    }
    return markers
}

/// The chunk types of a PNG.
func pngChunks(_ bytes: [UInt8]) -> [String] {
    var types: [String] = []
    var position = 8
    while position + 12 <= bytes.count {
        let length =
            Int(bytes[position]) << 24 | Int(bytes[position + 1]) << 16
            | Int(bytes[position + 2]) << 8 | Int(bytes[position + 3])
        types.append(String(decoding: bytes[(position + 4)..<(position + 8)], as: UTF8.self))
        position += 12 + length
    }
    return types
}

/// Writes PNG files directly (stored deflate blocks), for layouts libpng is not asked to
/// produce: 16-bit, palette, interlaced, hand-made headers.
enum PNGBuilder {
    static let crcTable: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in bytes { c = crcTable[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }

    static func be32(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8((value >> (24 - $0 * 8)) & 0xFF) }
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(UInt32(data.count)) + body + be32(crc32(body))
    }

    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let count = min(65535, data.count - offset)
            let final: UInt8 = offset + count == data.count ? 1 : 0
            out += [final, UInt8(count & 0xFF), UInt8(count >> 8)]
            out += [UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            out += data[offset..<(offset + count)]
            offset += count
        } while offset < data.count
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return out + be32(b << 16 | a)
    }

    static func header(width: Int, height: Int, depth: UInt8, color: UInt8, interlace: UInt8)
        -> [UInt8]
    {
        chunk("IHDR", be32(UInt32(width)) + be32(UInt32(height)) + [depth, color, 0, 0, interlace])
    }

    /// A PNG whose pixel (x, y) has the sample bytes `pixel(x, y)`.
    static func make(
        width: Int, height: Int, depth: UInt8, color: UInt8, interlaced: Bool = false,
        extra: [[UInt8]] = [], pixel: (Int, Int) -> [UInt8]
    ) -> [UInt8] {
        var raw: [UInt8] = []
        if interlaced {
            let passes = [
                (0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2),
                (0, 1, 1, 2),
            ]
            for (x0, y0, dx, dy) in passes {
                let xs = Array(stride(from: x0, to: width, by: dx))
                if xs.isEmpty { continue }
                for y in stride(from: y0, to: height, by: dy) {
                    raw.append(0)
                    for x in xs { raw += pixel(x, y) }
                }
            }
        } else {
            for y in 0..<height {
                raw.append(0)
                for x in 0..<width { raw += pixel(x, y) }
            }
        }
        var file: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        file += header(
            width: width, height: height, depth: depth, color: color, interlace: interlaced ? 1 : 0)
        for chunk in extra { file += chunk }
        file += chunk("IDAT", zlibStored(raw))
        file += chunk("IEND", [])
        return file
    }
}

/// A small, structurally valid ICC profile that libpng accepts.
///
/// One tag of pseudo-random bytes keeps it from compressing below what libpng's iCCP
/// reader expects of a chunk.
func sampleICCProfile() -> [UInt8] {
    let tagSize = 256
    let total = 132 + 12 + tagSize
    var profile = [UInt8](repeating: 0, count: total)
    func put(_ offset: Int, _ bytes: [UInt8]) {
        for (index, byte) in bytes.enumerated() { profile[offset + index] = byte }
    }
    put(0, PNGBuilder.be32(UInt32(total)))
    put(4, Array("trov".utf8))
    put(8, [0x02, 0x10, 0, 0])
    put(12, Array("mntr".utf8))
    put(16, Array("RGB ".utf8))
    put(20, Array("XYZ ".utf8))
    put(36, Array("acsp".utf8))
    put(
        68,
        PNGBuilder.be32(0x0000_F6D6) + PNGBuilder.be32(0x0001_0000)
            + PNGBuilder.be32(0x0000_D32D))
    put(80, Array("trov".utf8))
    put(128, PNGBuilder.be32(1))
    put(132, Array("dmdd".utf8) + PNGBuilder.be32(144) + PNGBuilder.be32(UInt32(tagSize)))
    var state: UInt32 = 12345
    put(144, Array("desc".utf8))
    for index in 152..<total {
        state = state &* 1_103_515_245 &+ 12345
        profile[index] = UInt8(state >> 24)
    }
    return profile
}
