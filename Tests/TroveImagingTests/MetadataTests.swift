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
