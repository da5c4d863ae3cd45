import Testing

@testable import TroveImaging

/// Interlaced (Adam7) PNGs are resampled pass by pass, never decoded whole: every output
/// must equal the one from the same pixels stored without interlacing, up to float rounding
/// (one level per channel).
@Suite struct InterlacedPNGTests {
    /// A PNG layout and the sample bytes of pixel (x, y) in it.
    struct Layout: CustomStringConvertible, Sendable {
        var description: String
        var depth: UInt8
        var color: UInt8
        var extra: [[UInt8]] = []
        var pixel: @Sendable (Int, Int) -> [UInt8]
    }

    static func rgb(_ x: Int, _ y: Int) -> [UInt8] {
        [UInt8(x * 7 % 256), UInt8(y * 11 % 256), UInt8((x * y + 40) % 256)]
    }

    static func rgba(_ x: Int, _ y: Int) -> [UInt8] {
        let alpha: UInt8 = (x + y) % 5 == 0 ? 0 : UInt8((x * 31 + y * 17) % 256)
        return [UInt8(x * 13 % 256), UInt8(y * 5 % 256), UInt8((x ^ y) * 9 % 256), alpha]
    }

    static func grey(_ x: Int, _ y: Int) -> [UInt8] { [UInt8((x * 9 + y * 3) % 256)] }

    static func greyAlpha(_ x: Int, _ y: Int) -> [UInt8] {
        [UInt8((x * 9 + y * 3) % 256), UInt8(255 - (x * y) % 200)]
    }

    static func rgb16(_ x: Int, _ y: Int) -> [UInt8] {
        [UInt8(x * 7 % 256), UInt8(y % 256), UInt8(y * 3 % 256), UInt8(x % 256), 90]
            + [UInt8(x * y % 256)]
    }

    static func paletteIndex(_ x: Int, _ y: Int) -> [UInt8] { [UInt8((x / 3 + y / 2) % 16)] }

    static let palette: [[UInt8]] = {
        var colours: [UInt8] = []
        var alphas: [UInt8] = []
        for index in 0..<16 {
            colours += [UInt8(index * 16), UInt8(255 - index * 9), UInt8(index * 5)]
            alphas.append(index % 4 == 0 ? 0 : UInt8(255 - index * 8))
        }
        return [PNGBuilder.chunk("PLTE", colours), PNGBuilder.chunk("tRNS", alphas)]
    }()

    static let layouts: [Layout] = [
        Layout(description: "RGB", depth: 8, color: 2, pixel: rgb),
        Layout(description: "RGBA with transparent pixels", depth: 8, color: 6, pixel: rgba),
        Layout(description: "grey", depth: 8, color: 0, pixel: grey),
        Layout(description: "grey and alpha", depth: 8, color: 4, pixel: greyAlpha),
        Layout(description: "16-bit RGB", depth: 16, color: 2, pixel: rgb16),
        Layout(
            description: "palette with tRNS", depth: 8, color: 3, extra: palette,
            pixel: paletteIndex),
    ]

    static func pair(_ layout: Layout, width: Int, height: Int) -> (plain: [UInt8], adam7: [UInt8])
    {
        let make = { (interlaced: Bool) in
            PNGBuilder.make(
                width: width, height: height, depth: layout.depth, color: layout.color,
                interlaced: interlaced, extra: layout.extra, pixel: layout.pixel)
        }
        return (make(false), make(true))
    }

    func expectClose(_ adam7: Bitmap, _ plain: Bitmap, _ what: String) {
        #expect(adam7.width == plain.width && adam7.height == plain.height, "\(what)")
        #expect(adam7.channels == plain.channels, "\(what)")
        let largest = zip(adam7.pixels, plain.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(largest <= 1, "\(what): differs by up to \(largest)")
    }

    @Test(arguments: layouts)
    func renditionsEqualTheNonInterlacedFile(layout: Layout) throws {
        let (plain, adam7) = Self.pair(layout, width: 37, height: 29)
        #expect(try ImageHeader.read(from: adam7).progressive)
        // Shrunk to fit, cropped to cover, and left at its own size (the box is larger).
        let boxes: [(Int, Int, ResizeMode)] = [
            (9, 9, .fit), (12, 5, .cover), (30, 30, .cover), (100, 100, .fit),
        ]
        for (width, height, mode) in boxes {
            let what = "\(layout) in \(width)x\(height) \(mode)"
            let expected = try Thumbnailer.renderBitmap(
                source: plain, box: (width, height), mode: mode, maxPixels: 1_000_000
            ).0
            let got = try Thumbnailer.renderBitmap(
                source: adam7, box: (width, height), mode: mode, maxPixels: 1_000_000
            ).0
            expectClose(got, expected, what)
        }
        // The identity box gives exactly the decoded pixels.
        let whole = try Thumbnailer.renderBitmap(
            source: adam7, box: (100, 100), mode: .fit, maxPixels: 1_000_000
        ).0
        #expect(whole == (try PNG.decode(plain)))
    }

    @Test func severalRenditionsAndAnalysisFromOneInterlacedDecode() throws {
        let (plain, adam7) = Self.pair(Self.layouts[1], width: 150, height: 90)
        let requests = [
            RenditionRequest(width: 40, height: 40, mode: .fit),
            RenditionRequest(width: 16, height: 16, mode: .cover),
            RenditionRequest(width: 150, height: 90, mode: .fit),
        ]
        let expected = try Thumbnailer.render(source: plain, renditions: requests)
        let got = try Thumbnailer.render(source: adam7, renditions: requests)
        #expect(got.count == 3)
        for (rendition, reference) in zip(got, expected) {
            #expect(rendition.format == .png)
            expectClose(
                try PNG.decode(rendition.bytes), try PNG.decode(reference.bytes),
                "\(rendition.width)x\(rendition.height)")
        }
        let analysis = try Thumbnailer.decodeForAnalysis(adam7, minimumSide: 20)
        let reference = try Thumbnailer.decodeForAnalysis(plain, minimumSide: 20)
        expectClose(analysis.bitmap, reference.bitmap, "analysis")
    }

    /// Images so small or narrow that some of the seven passes hold no pixel.
    @Test(arguments: [(1, 1), (1, 9), (9, 1), (2, 2), (3, 17), (17, 3), (5, 6)])
    func passesWithoutPixelsAreSkipped(size: (Int, Int)) throws {
        let (plain, adam7) = Self.pair(Self.layouts[0], width: size.0, height: size.1)
        #expect(try Thumbnailer.verify(adam7).width == size.0)
        for box in [(1, 1), (2, 3), (40, 40)] {
            let expected = try Thumbnailer.renderBitmap(
                source: plain, box: box, mode: .fit, maxPixels: 1_000_000
            ).0
            let got = try Thumbnailer.renderBitmap(
                source: adam7, box: box, mode: .fit, maxPixels: 1_000_000
            ).0
            expectClose(got, expected, "\(size) in \(box)")
        }
    }

    @Test func orientationAfterThePixelsTurnsTheInterlacedRenditionToo() throws {
        let layout = Self.layouts[0]
        let exif = PNGBuilder.chunk("eXIf", EXIFBuilder.make(orientation: 6))
        let make = { (interlaced: Bool) -> [UInt8] in
            var file = PNGBuilder.make(
                width: 40, height: 24, depth: 8, color: 2, interlaced: interlaced,
                pixel: layout.pixel)
            // Just before IEND: read only after every pass.
            file.insert(contentsOf: exif, at: file.count - 12)
            return file
        }
        let expected = try Thumbnailer.renderBitmap(
            source: make(false), box: (12, 12), mode: .fit, maxPixels: 1_000_000)
        let got = try Thumbnailer.renderBitmap(
            source: make(true), box: (12, 12), mode: .fit, maxPixels: 1_000_000)
        #expect(got.1.orientation == .right && got.0.width < got.0.height)
        expectClose(got.0, expected.0, "turned")
    }

    @Test func truncatedInterlacedFileIsRefusedLikeVerifySays() throws {
        let (_, adam7) = Self.pair(Self.layouts[1], width: 60, height: 40)
        // Cut inside the IDAT chunk: the last passes never arrive.
        let cut = Array(adam7[..<(adam7.count - 2_000)])
        #expect(throws: ImageCodecError.self) { try Thumbnailer.verify(cut) }
        #expect(throws: ImageCodecError.self) {
            try Thumbnailer.render(source: cut, box: (10, 10), mode: .fit)
        }
    }
}
