import Testing

@testable import TroveImaging

@Suite struct CodecTests {
    let photo: Bitmap

    init() {
        photo = Synthetic.photo(width: 96, height: 64)
    }

    // MARK: - Sniffing and headers

    @Test func sniffsFormatsByMagicBytes() throws {
        #expect(ImageFormat(sniffing: try JPEG.encode(photo, quality: 80)) == .jpeg)
        #expect(ImageFormat(sniffing: try PNG.encode(photo)) == .png)
        #expect(ImageFormat(sniffing: Array("GIF89a".utf8)) == nil)
        #expect(ImageFormat(sniffing: []) == nil)
    }

    @Test func readsHeadersWithoutDecoding() throws {
        let jpeg = try ImageHeader.read(from: JPEG.encode(photo, quality: 80))
        #expect(
            jpeg
                == ImageHeader(
                    format: .jpeg, width: 96, height: 64, hasAlpha: false, progressive: false))
        let progressive = try ImageHeader.read(from: fixture("progressive.jpg"))
        #expect(progressive.progressive && progressive.width == 200 && progressive.height == 150)
        let rgba = Bitmap(
            width: 2, height: 2, channels: 4, pixels: [UInt8](repeating: 9, count: 16))
        let png = try ImageHeader.read(from: PNG.encode(rgba))
        #expect(
            png
                == ImageHeader(
                    format: .png, width: 2, height: 2, hasAlpha: true, progressive: false))
    }

    // MARK: - JPEG

    @Test func jpegRoundTripsCloselyAtHighQuality() throws {
        let decoded = try JPEG.decode(JPEG.encode(photo, quality: 95))
        #expect(decoded.width == 96 && decoded.height == 64 && decoded.channels == 3)
        #expect(psnr(decoded, photo) > 28)
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8])
    func jpegDecodesAtEveryDCTScale(eighths: Int) throws {
        let decoded = try JPEG.decode(JPEG.encode(photo, quality: 90), scaleEighths: eighths)
        #expect(decoded.width == (96 * eighths + 7) / 8)
        #expect(decoded.height == (64 * eighths + 7) / 8)
    }

    @Test func greyscaleJPEGDecodesToOneChannel() throws {
        let grey = Bitmap(
            width: 16, height: 16, channels: 1, pixels: (0..<256).map { UInt8($0) })
        let decoded = try JPEG.decode(JPEG.encode(grey, quality: 95))
        #expect(decoded.channels == 1)
        #expect(meanAbsoluteDifference(decoded, grey) < 4)
    }

    @Test func adobeCMYKJPEGDecodesToRGB() throws {
        let decoded = try JPEG.decode(fixture("cmyk.jpg"))
        #expect(decoded.channels == 3 && decoded.width == 32)
        func pixel(_ x: Int, _ y: Int) -> [Int] {
            (0..<3).map { Int(decoded.pixels[(y * 32 + x) * 3 + $0]) }
        }
        let expected: [((Int, Int), [Int])] = [
            ((6, 6), [255, 0, 0]), ((24, 6), [0, 255, 0]), ((6, 24), [0, 0, 255]),
            ((24, 24), [255, 255, 255]),
        ]
        for ((x, y), colour) in expected {
            let actual = pixel(x, y)
            #expect(zip(actual, colour).allSatisfy { abs($0 - $1) < 24 }, "\(actual) vs \(colour)")
        }
    }

    @Test func progressiveJPEGDecodes() throws {
        let decoded = try JPEG.decode(fixture("progressive.jpg"))
        #expect(decoded.width == 200 && decoded.height == 150 && decoded.channels == 3)
    }

    @Test func progressiveDecodeAtOneEighthIsTheDCImageOfTheFullDecode() throws {
        // At 1/8 each pixel is its block's DC term: the mean of the block in the full-scan
        // decode, within one level of rounding. Luma only (chroma is subsampled).
        let data = try fixture("progressive.jpg")
        let small = try JPEG.decode(data, scaleEighths: 1, grey: true)
        let full = try JPEG.decode(data, grey: true)
        #expect(small.width == 25 && small.height == 19 && small.channels == 1)
        var worst = 0
        for by in 0..<(full.height / 8) {
            for bx in 0..<(full.width / 8) {
                var total = 0
                for y in 0..<8 {
                    for x in 0..<8 {
                        total += Int(full.pixels[(by * 8 + y) * full.width + bx * 8 + x])
                    }
                }
                let mean = (Double(total) / 64).rounded()
                worst = max(worst, abs(Int(mean) - Int(small.pixels[by * small.width + bx])))
            }
        }
        #expect(worst <= 1)
    }

    /// The fixture with its last scan (luma AC refinement) cut short, and with that scan
    /// pointing at a Huffman table that does not exist.
    static func damagedProgressive() throws -> [(name: String, bytes: [UInt8])] {
        let data = try fixture("progressive.jpg")
        var lastScan = 0
        for index in 0..<(data.count - 1) where data[index] == 0xFF && data[index + 1] == 0xDA {
            lastScan = index
        }
        let dataStart = lastScan + 2 + (Int(data[lastScan + 2]) << 8 | Int(data[lastScan + 3]))
        let cut = Array(data[..<(dataStart + (data.count - dataStart) / 2)]) + [0xFF, 0xD9]
        var badTable = data
        badTable[lastScan + 6] = 0x03
        return [("cut", cut), ("bad-table", badTable)]
    }

    @Test func damagedACScansAreRefusedAtEveryScale() throws {
        for (name, bytes) in try Self.damagedProgressive() {
            for scale in 1...8 {
                #expect(throws: ImageCodecError.self, "\(name) at \(scale)/8") {
                    try JPEG.decode(bytes, scaleEighths: scale)
                }
            }
            // A small thumbnail (decoded at 1/8) is refused like a full-size rendition.
            #expect(throws: ImageCodecError.self, "\(name)") {
                try Thumbnailer.render(source: bytes, box: (16, 16), mode: .fit)
            }
            #expect(throws: ImageCodecError.self, "\(name)") { try Thumbnailer.verify(bytes) }
        }
    }

    // MARK: - PNG

    @Test func pngRoundTripsExactlyWithAlpha() throws {
        var pixels: [UInt8] = []
        for index in 0..<(20 * 10) {
            pixels += [UInt8(index % 256), 7, 200, UInt8(index % 3 * 100)]
        }
        let rgba = Bitmap(width: 20, height: 10, channels: 4, pixels: pixels)
        #expect(try PNG.decode(PNG.encode(rgba)) == rgba)
    }

    @Test func sixteenBitPNGScalesToEightBits() throws {
        let data = PNGBuilder.make(width: 4, height: 3, depth: 16, color: 2) { x, y in
            let value = UInt16(x * 20000 + y * 1000)
            return [UInt8(value >> 8), UInt8(value & 0xFF), 0xFF, 0xFF, 0, 0]
        }
        let decoded = try PNG.decode(data)
        #expect(decoded.channels == 3 && decoded.width == 4)
        #expect(decoded.pixels[0..<3] == [0, 255, 0])
        let last = (2 * 4 + 3) * 3
        #expect(abs(Int(decoded.pixels[last]) - Int((62000.0 / 65535 * 255).rounded())) <= 1)
    }

    @Test func palettePNGWithTransparencyBecomesRGBA() throws {
        let palette = PNGBuilder.chunk("PLTE", [255, 0, 0, 0, 255, 0, 0, 0, 255])
        let transparency = PNGBuilder.chunk("tRNS", [0, 128])
        let data = PNGBuilder.make(
            width: 3, height: 1, depth: 8, color: 3, extra: [palette, transparency]
        ) { x, _ in [UInt8(x)] }
        let decoded = try PNG.decode(data)
        #expect(decoded.channels == 4)
        #expect(decoded.pixels == [255, 0, 0, 0, 0, 255, 0, 128, 0, 0, 255, 255])
    }

    @Test func greyPNGStaysGreyAndGreyAlphaBecomesRGBA() throws {
        let grey = PNGBuilder.make(width: 2, height: 1, depth: 8, color: 0) { x, _ in
            [UInt8(x * 200)]
        }
        #expect(try PNG.decode(grey).pixels == [0, 200])
        let greyAlpha = PNGBuilder.make(width: 1, height: 1, depth: 8, color: 4) { _, _ in [50, 60]
        }
        #expect(try PNG.decode(greyAlpha).pixels == [50, 50, 50, 60])
    }

    @Test func interlacedPNGDecodesLikeItsPixels() throws {
        let data = PNGBuilder.make(width: 13, height: 11, depth: 8, color: 2, interlaced: true) {
            x, y in
            [UInt8(x * 19), UInt8(y * 23), UInt8((x * y) % 256)]
        }
        #expect(try ImageHeader.read(from: data).progressive)
        let decoded = try PNG.decode(data)
        for y in 0..<11 {
            for x in 0..<13 {
                let index = (y * 13 + x) * 3
                #expect(
                    decoded.pixels[index..<(index + 3)].elementsEqual([
                        UInt8(x * 19), UInt8(y * 23), UInt8((x * y) % 256),
                    ]))
            }
        }
    }

    // MARK: - Hostile input

    @Test func truncatedJPEGReportsLibjpegMessage() throws {
        let full = try JPEG.encode(Synthetic.photo(width: 256, height: 256), quality: 90)
        let truncated = Array(full.prefix(full.count / 2))
        let error = #expect(throws: ImageCodecError.self) { try JPEG.decode(truncated) }
        #expect(error?.kind == .corrupt)
        #expect(error?.description.contains("Premature end of JPEG file") == true)
        #expect(throws: ImageCodecError.self) {
            try Thumbnailer.render(source: truncated, box: (64, 64), mode: .fit)
        }
    }

    @Test func garbageWithJPEGMagicIsCorrupt() {
        var garbage: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0]
        var state: UInt32 = 7
        for _ in 0..<2000 {
            state = state &* 1_103_515_245 &+ 12345
            garbage.append(UInt8(state >> 24))
        }
        let error = #expect(throws: ImageCodecError.self) {
            try Thumbnailer.render(source: garbage, box: (64, 64), mode: .fit)
        }
        #expect(error?.kind == .corrupt)
        #expect(error?.message.isEmpty == false)
    }

    @Test func textNamedLikeAJPEGIsNotAnImage() {
        let error = #expect(throws: ImageCodecError.self) {
            try Thumbnailer.render(source: Array("hello, world".utf8), box: (64, 64), mode: .fit)
        }
        #expect(error?.kind == .unrecognizedFormat)
    }

    @Test func zeroBytesAreEmpty() {
        let error = #expect(throws: ImageCodecError.self) {
            try Thumbnailer.render(source: [], box: (64, 64), mode: .fit)
        }
        #expect(error?.kind == .empty)
        #expect(throws: ImageCodecError.self) { try JPEG.decode([]) }
        #expect(throws: ImageCodecError.self) { try PNG.decode([]) }
    }

    @Test func pngWithBadCRCIsAnError() throws {
        var data = try PNG.encode(photo)
        // Damage the stored CRC of the image data.
        let idat = try #require(pngChunkOffset(data, "IDAT"))
        let length = Int(data[idat + 2]) << 8 | Int(data[idat + 3])
        data[idat + 8 + length] ^= 0x55
        let error = #expect(throws: ImageCodecError.self) { try PNG.decode(data) }
        #expect(error?.kind == .corrupt)
        #expect(error?.message.contains("CRC") == true, "\(String(describing: error))")
    }

    @Test func ancillaryChunkWithBadCRCIsAnError() throws {
        var text = PNGBuilder.chunk("tEXt", Array("Comment\0hi".utf8))
        text[text.count - 1] ^= 1
        let data = PNGBuilder.make(width: 1, height: 1, depth: 8, color: 0, extra: [text]) { _, _ in
            [1]
        }
        #expect(throws: ImageCodecError.self) { try PNG.decode(data) }
    }

    @Test func truncatedPNGIsAnError() throws {
        let data = try PNG.encode(photo)
        for cut in [10, 40, data.count / 2, data.count - 5] {
            #expect(throws: ImageCodecError.self) { try PNG.decode(Array(data.prefix(cut))) }
        }
    }

    @Test func truncatedOrDamagedPNGFailsRendering() throws {
        let data = try PNG.encode(Synthetic.photo(width: 300, height: 200))
        for cut in [60, data.count / 3, data.count - 13] {
            #expect(throws: ImageCodecError.self) {
                try Thumbnailer.render(source: Array(data.prefix(cut)), box: (50, 50), mode: .cover)
            }
        }
        // A damaged chunk after the pixels is found too, although no pixel needs it.
        var late = data
        let end = try #require(pngChunkOffset(late, "IEND"))
        late.insert(contentsOf: PNGBuilder.chunk("tEXt", Array("k\0v".utf8)), at: end)
        late[end + 9] ^= 0x20
        let error = #expect(throws: ImageCodecError.self) {
            try Thumbnailer.render(source: late, box: (50, 50), mode: .fit)
        }
        #expect(error?.message.contains("CRC") == true)
    }

    @Test func streamedPNGRenderMatchesFullDecode() throws {
        let source = Synthetic.photo(width: 300, height: 200, seed: 7)
        let data = try PNG.encode(source)
        for mode in [ResizeMode.fit, .cover] {
            let rendered = try PNG.decode(
                Thumbnailer.render(source: data, box: (64, 64), mode: mode).bytes)
            let expected = Resampler.resize(source, boxWidth: 64, boxHeight: 64, mode: mode)
            #expect(rendered == expected)
        }
    }

    @Test func hugeHeaderIsRefusedBeforeDecoding() throws {
        // A real IHDR announcing 100000x100000 followed by almost nothing.
        var data: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        data += PNGBuilder.header(width: 100_000, height: 100_000, depth: 8, color: 2, interlace: 0)
        data += PNGBuilder.chunk("IDAT", [0x78, 0x01, 0, 0, 0])
        data += PNGBuilder.chunk("IEND", [])
        let error = #expect(throws: ImageCodecError.self) {
            try Thumbnailer.render(
                source: data, box: (256, 256), mode: .fit, maxPixels: 100_000_000)
        }
        #expect(error?.kind == .tooManyPixels(width: 100_000, height: 100_000, limit: 100_000_000))
        #expect(error?.description.contains("100000x100000") == true)
        // Direct decoding applies the same limit before allocating anything.
        let direct = #expect(throws: ImageCodecError.self) { try PNG.decode(data) }
        #expect(direct?.kind == .tooManyPixels(width: 100_000, height: 100_000, limit: 100_000_000))
    }

    @Test func hugeJPEGHeaderIsRefusedBeforeDecoding() throws {
        var data = try JPEG.encode(photo, quality: 50)
        // Rewrite the SOF0 dimensions to 60000x60000.
        let sof = try #require(
            (0..<(data.count - 1)).first { data[$0] == 0xFF && data[$0 + 1] == 0xC0 })
        data[sof + 5] = 0xEA
        data[sof + 6] = 0x60
        data[sof + 7] = 0xEA
        data[sof + 8] = 0x60
        let error = #expect(throws: ImageCodecError.self) {
            try Thumbnailer.render(source: data, box: (256, 256), mode: .fit)
        }
        #expect(error?.kind == .tooManyPixels(width: 60000, height: 60000, limit: 100_000_000))
    }

    @Test func randomlyDamagedFilesNeverCrash() throws {
        let sources = [
            try JPEG.encode(photo, quality: 80), try PNG.encode(photo),
            try fixture("progressive.jpg"),
        ]
        var state: UInt64 = 42
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33)
        }
        for source in sources {
            for _ in 0..<60 {
                var damaged = source
                for _ in 0..<(1 + next() % 8) {
                    let index = 3 + next() % (damaged.count - 3)
                    damaged[index] = UInt8(next() % 256)
                }
                if next() % 3 == 0 { damaged = Array(damaged.prefix(next() % damaged.count)) }
                _ = try? Thumbnailer.render(source: damaged, box: (32, 32), mode: .cover)
            }
        }
    }
}

/// Offset of the first chunk of `type` (at its length field).
func pngChunkOffset(_ bytes: [UInt8], _ type: String) -> Int? {
    var position = 8
    while position + 12 <= bytes.count {
        let length =
            Int(bytes[position]) << 24 | Int(bytes[position + 1]) << 16
            | Int(bytes[position + 2]) << 8 | Int(bytes[position + 3])
        if String(decoding: bytes[(position + 4)..<(position + 8)], as: UTF8.self) == type {
            return position
        }
        position += 12 + length
    }
    return nil
}
