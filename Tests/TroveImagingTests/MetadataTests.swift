import Foundation
import Testing

@testable import TroveImaging

@Suite struct MetadataTests {
    let tiff: [UInt8]

    init() {
        tiff = EXIFBuilder.make(
            orientation: 6, make: "Trove Optics", model: "Pocket 12",
            dateTime: "2024:05:01 13:45:07",
            gps: (lat: 47.5, latRef: "S", lon: 8.25, lonRef: "W"))
    }

    @Test func readsEveryFieldFromEXIF() {
        let metadata = ImageMetadata(exif: tiff)
        #expect(metadata.orientation == .right)
        #expect(metadata.cameraMake == "Trove Optics")
        #expect(metadata.cameraModel == "Pocket 12")
        #expect(metadata.captureTime == "2024-05-01T13:45:07")
        #expect(abs((metadata.latitude ?? 0) + 47.5) < 1e-6)
        #expect(abs((metadata.longitude ?? 0) + 8.25) < 1e-6)
    }

    @Test func readsEXIFAndICCFromJPEG() throws {
        let photo = Synthetic.photo(width: 32, height: 32)
        let profile = sampleICCProfile()
        let plain = try JPEG.encode(photo, quality: 80, iccProfile: profile)
        let data = insertingSegment(0xE1, Array("Exif".utf8) + [0, 0] + tiff, into: plain)
        let metadata = try Thumbnailer.decodeForAnalysis(data, minimumSide: 8).metadata
        #expect(metadata.orientation == .right)
        #expect(metadata.iccProfile == profile)
        #expect(metadata.cameraModel == "Pocket 12")
    }

    @Test func readsEXIfAndICCPFromPNG() throws {
        let profile = sampleICCProfile()
        let withProfile = try PNG.encode(Synthetic.photo(width: 8, height: 8), iccProfile: profile)
        #expect(
            try Thumbnailer.decodeForAnalysis(withProfile, minimumSide: 4).metadata.iccProfile
                == profile)
        let exif = PNGBuilder.chunk("eXIf", tiff)
        let data = PNGBuilder.make(width: 2, height: 2, depth: 8, color: 2, extra: [exif]) { _, _ in
            [1, 2, 3]
        }
        let analysed = try Thumbnailer.decodeForAnalysis(data, minimumSide: 1)
        #expect(analysed.metadata.orientation == .right)
        #expect(analysed.metadata.cameraMake == "Trove Optics")
    }

    @Test func missingOrWrongFieldsAreNil() {
        #expect(ImageMetadata(exif: nil) == ImageMetadata())
        #expect(ImageMetadata(exif: [1, 2, 3]) == ImageMetadata())
        let badTime = ImageMetadata(exif: EXIFBuilder.make(orientation: 9, dateTime: "yesterday"))
        #expect(badTime.orientation == .up)
        #expect(badTime.captureTime == nil)
        let badReference = ImageMetadata(
            exif: EXIFBuilder.make(gps: (lat: 10, latRef: "Q", lon: 10, lonRef: "E")))
        #expect(badReference.latitude == nil && badReference.longitude == nil)
    }

    /// Some phones and editors write GPSLatitude as text ("40.7128"): the position is there
    /// but cannot be read, and that is said rather than taken for no position.
    @Test func gpsWrittenAsTextIsAProblemNotAnAbsence() {
        let gps: [EXIFBuilder.Entry] = [
            EXIFBuilder.ascii(1, "N"), EXIFBuilder.ascii(2, "40.7128"), EXIFBuilder.ascii(3, "W"),
            EXIFBuilder.ascii(4, "74.0060"),
        ]
        let root = [
            EXIFBuilder.long(0x8825, UInt32(8 + EXIFBuilder.size([EXIFBuilder.long(0x8825, 0)])))
        ]
        let tiff =
            Array("II".utf8) + [42, 0] + EXIFBuilder.le32(8) + EXIFBuilder.ifd(root, at: 8)
            + EXIFBuilder.ifd(gps, at: 8 + EXIFBuilder.size(root))
        let metadata = ImageMetadata(exif: tiff)
        #expect(metadata.latitude == nil && metadata.longitude == nil)
        #expect(
            metadata.gpsProblem
                == "GPSLatitude is stored as ASCII text (8 values), not as three rationals; "
                + "GPSLongitude is stored as ASCII text (8 values), not as three rationals")
        let none = ImageMetadata(exif: EXIFBuilder.make(orientation: 1))
        #expect(none.gpsProblem == nil)
    }

    @Test func offsetsOutsideTheSegmentAreIgnored() {
        var block = tiff
        // Point IFD0's first entry (Make, stored out of line) far past the end.
        block[8 + 2 + 8] = 0xFF
        block[8 + 2 + 9] = 0xFF
        block[8 + 2 + 10] = 0xFF
        block[8 + 2 + 11] = 0x7F
        let metadata = ImageMetadata(exif: block)
        #expect(metadata.cameraMake == nil)
        #expect(metadata.orientation == .right)
        // The first IFD itself outside the block.
        var lost = tiff
        lost[4] = 0xF0
        lost[7] = 0x70
        #expect(ImageMetadata(exif: lost) == ImageMetadata())
    }

    @Test func loopingIFDChainsTerminate() {
        // An Exif IFD pointer that points back at IFD0.
        let root = [
            EXIFBuilder.short(0x0112, 3), EXIFBuilder.long(0x8769, 8), EXIFBuilder.long(0x8825, 8),
        ]
        let block = [0x49, 0x49, 42, 0] + EXIFBuilder.le32(8) + EXIFBuilder.ifd(root, at: 8)
        #expect(ImageMetadata(exif: block).orientation == .down)
    }

    @Test func hugeCountsAreIgnored() {
        var block = tiff
        // Entry count of IFD0 to 65535, and the first entry's count to 0xFFFFFFFF.
        block[8] = 0xFF
        block[9] = 0xFF
        for index in 0..<4 { block[8 + 2 + 4 + index] = 0xFF }
        _ = ImageMetadata(exif: block)
    }

    @Test func exifInJPEGWithOffsetsOutsideSegmentStillRenders() throws {
        var block = tiff
        block[4] = 0xFF  // IFD0 offset far outside
        block[5] = 0xFF
        let data = try jpegWithEXIF(Synthetic.photo(width: 40, height: 30), tiff: block)
        let rendered = try Thumbnailer.render(source: data, box: (20, 20), mode: .fit)
        #expect(rendered.width == 20 && rendered.height == 15)
    }

    @Test func fuzzedEXIFNeverTraps() {
        var state: UInt64 = 0x5EED
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33)
        }
        for round in 0..<3000 {
            var block = tiff
            for _ in 0..<(1 + next() % 6) {
                block[next() % block.count] = UInt8(next() % 256)
            }
            if round % 4 == 0 { block = Array(block.prefix(1 + next() % block.count)) }
            if round % 7 == 0 { block[next() % block.count] = 0xFF }
            let metadata = ImageMetadata(exif: block)
            if let latitude = metadata.latitude { #expect(abs(latitude) <= 90) }
        }
    }
}

// MARK: - Orientation from other places than EXIF

@Suite struct OrientationSourceTests {
    let upright = Synthetic.quadrants(width: 12, height: 8)

    /// The upright picture stored turned (orientation 6), with `chunks` before the pixels
    /// or, when `late`, after them.
    func turnedPNG(_ chunks: [[UInt8]], late: Bool = false) -> [UInt8] {
        let turned = stored(upright, for: 6)
        var png = PNGBuilder.make(
            width: turned.width, height: turned.height, depth: 8, color: 2,
            extra: late ? [] : chunks
        ) { x, y in
            let base = (y * turned.width + x) * 3
            return Array(turned.pixels[base..<(base + 3)])
        }
        if late { png.insert(contentsOf: chunks.joined(), at: png.count - 12) }
        return png
    }

    /// What `trove images` publishes, decoded.
    func published(_ png: [UInt8]) throws -> Bitmap {
        try PNG.decode(Thumbnailer.render(source: png, box: (64, 64), mode: .fit).bytes)
    }

    static func xmp(_ orientation: String) -> [UInt8] {
        Array(
            """
            <?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/">\
            <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
            <rdf:Description rdf:about="" xmlns:tiff="http://ns.adobe.com/tiff/1.0/"\
            \(orientation)</rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>
            """.utf8)
    }

    /// An iTXt chunk as Photoshop and exiftool write XMP into PNG.
    static func xmpChunk(_ packet: [UInt8]) -> [UInt8] {
        PNGBuilder.chunk("iTXt", Array("XML:com.adobe.xmp".utf8) + [0, 0, 0, 0, 0] + packet)
    }

    /// ImageMagick's raw profile text: name, length, hex digits 72 to a line.
    static func rawProfile(_ bytes: [UInt8]) -> [UInt8] {
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        var text = "\nexif\n" + String(repeating: " ", count: 8 - String(bytes.count).count)
        text += "\(bytes.count)\n"
        var index = hex.startIndex
        while index < hex.endIndex {
            let end = hex.index(index, offsetBy: 72, limitedBy: hex.endIndex) ?? hex.endIndex
            text += hex[index..<end] + "\n"
            index = end
        }
        return Array(text.utf8)
    }

    @Test func xmpTIFFOrientationInPNGIsApplied() throws {
        let attribute = Self.xmpChunk(Self.xmp(" tiff:Orientation=\"6\">"))
        #expect(try published(turnedPNG([attribute])) == upright)
        let element = Self.xmpChunk(Self.xmp("><tiff:Orientation>6</tiff:Orientation>"))
        #expect(try published(turnedPNG([element])) == upright)
        #expect(try published(turnedPNG([element], late: true)) == upright)
    }

    @Test func imageMagickRawProfileIsApplied() throws {
        let exif = Array("Exif".utf8) + [0, 0] + EXIFBuilder.make(orientation: 6, make: "IM")
        let text = Self.rawProfile(exif)
        let zTXt = PNGBuilder.chunk(
            "zTXt", Array("Raw profile type exif".utf8) + [0, 0] + PNGBuilder.zlibStored(text))
        #expect(try published(turnedPNG([zTXt])) == upright)
        let tEXt = PNGBuilder.chunk("tEXt", Array("Raw profile type exif".utf8) + [0] + text)
        #expect(try published(turnedPNG([tEXt], late: true)) == upright)
        let analysed = try Thumbnailer.decodeForAnalysis(turnedPNG([zTXt]), minimumSide: 4)
        #expect(analysed.metadata.cameraMake == "IM")
        // A damaged one is ignored, not fatal.
        var broken = text
        broken[broken.count / 2] = UInt8(ascii: "z")
        let damaged = PNGBuilder.chunk("tEXt", Array("Raw profile type exif".utf8) + [0] + broken)
        #expect(try published(turnedPNG([damaged])) == stored(upright, for: 6))
    }

    @Test func eXIfWithTheJPEGPrefixIsApplied() throws {
        let chunk = PNGBuilder.chunk(
            "eXIf", Array("Exif".utf8) + [0, 0] + EXIFBuilder.make(orientation: 6))
        #expect(try published(turnedPNG([chunk])) == upright)
        #expect(try published(turnedPNG([chunk], late: true)) == upright)
    }

    @Test func exifOrientationWinsOverTextAndXMP() throws {
        let exif = PNGBuilder.chunk("eXIf", EXIFBuilder.make(orientation: 1))
        let xmp = Self.xmpChunk(Self.xmp(" tiff:Orientation=\"6\">"))
        #expect(try published(turnedPNG([exif, xmp])) == stored(upright, for: 6))
        // Without an orientation in EXIF, the XMP one counts.
        let noOrientation = PNGBuilder.chunk("eXIf", EXIFBuilder.make(make: "Only a make"))
        #expect(try published(turnedPNG([noOrientation, xmp])) == upright)
    }
}
