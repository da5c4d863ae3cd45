import Testing

@testable import TroveImaging

@Suite struct ThumbnailerTests {
    let upright: Bitmap

    init() {
        upright = Synthetic.quadrants(width: 64, height: 48)
    }

    // MARK: - Orientation

    @Test(arguments: [ResizeMode.fit, .cover])
    func allEightOrientationsRenderUpright(mode: ResizeMode) throws {
        let box = mode == .fit ? (32, 32) : (30, 20)
        let expectedSize = mode == .fit ? (32, 24) : (30, 20)
        let reference = Resampler.resize(upright, boxWidth: box.0, boxHeight: box.1, mode: mode)
        var first: Bitmap?
        for orientation in 1...8 {
            let source = stored(upright, for: orientation)
            let data = try jpegWithEXIF(
                source, tiff: EXIFBuilder.make(orientation: UInt16(orientation)))
            let rendered = try Thumbnailer.render(
                source: data, box: box, mode: mode, quality: 95)
            #expect(rendered.width == expectedSize.0 && rendered.height == expectedSize.1)
            #expect(!jpegMarkers(rendered.bytes).contains(0xE1))
            let render = try JPEG.decode(rendered.bytes)
            // Same picture as the upright file gives, up to JPEG noise of turned blocks.
            if let first {
                #expect(meanAbsoluteDifference(render, first) < 3, "orientation \(orientation)")
            } else {
                first = render
            }
            // And close to resampling the original pixels (DCT scaling differs at edges).
            #expect(meanAbsoluteDifference(render, reference) < 8, "orientation \(orientation)")
        }
    }

    @Test(arguments: ImageOrientation.allCases)
    func applyingOrientationUndoesHowItWasStored(orientation: ImageOrientation) {
        let odd = Synthetic.photo(width: 7, height: 5)
        #expect(stored(odd, for: orientation.rawValue).applying(orientation) == odd)
    }

    @Test func orientationIsAppliedForAnalysisToo() throws {
        let data = try jpegWithEXIF(stored(upright, for: 6), tiff: EXIFBuilder.make(orientation: 6))
        let analysed = try Thumbnailer.decodeForAnalysis(data, minimumSide: 48)
        #expect(analysed.bitmap.width == 64 && analysed.bitmap.height == 48)
        #expect(meanAbsoluteDifference(analysed.bitmap, upright) < 4)
    }

    @Test func analysisShrinksOnLoad() throws {
        let photo = Synthetic.photo(width: 640, height: 480)
        let jpeg = try Thumbnailer.decodeForAnalysis(
            try JPEG.encode(photo, quality: 90), minimumSide: 100)
        // 1/4 gives 160x120, the smallest DCT scale with a shorter side of at least 100.
        #expect(jpeg.bitmap.width == 160 && jpeg.bitmap.height == 120)
        #expect(jpeg.header.width == 640)
        let png = try Thumbnailer.decodeForAnalysis(try PNG.encode(photo), minimumSide: 100)
        #expect(png.bitmap == Resampler.resize(photo, width: 133, height: 100))
    }

    // MARK: - Metadata in output

    @Test func outputKeepsOnlyTheICCProfile() throws {
        let profile = sampleICCProfile()
        let tiff = EXIFBuilder.make(
            orientation: 1, make: "Trove", model: "Serial 123", dateTime: "2024:01:02 03:04:05",
            gps: (lat: 1, latRef: "N", lon: 2, lonRef: "E"))
        var source = try JPEG.encode(upright, quality: 90, iccProfile: profile)
        source = insertingSegment(0xE1, Array("Exif".utf8) + [0, 0] + tiff, into: source)
        source = insertingSegment(
            0xE1, Array("http://ns.adobe.com/xap/1.0/\0<x/>".utf8), into: source)
        source = insertingSegment(0xFE, Array("a comment".utf8), into: source)
        let rendered = try Thumbnailer.render(source: source, box: (32, 32), mode: .cover)
        let markers = jpegMarkers(rendered.bytes)
        #expect(
            markers.allSatisfy { [0xE0, 0xE2, 0xDB, 0xC0, 0xC4, 0xDA].contains($0) }, "\(markers)")
        #expect(!markers.contains(0xE1) && !markers.contains(0xFE))
        let metadata = try Thumbnailer.decodeForAnalysis(rendered.bytes, minimumSide: 8).metadata
        #expect(metadata.iccProfile == profile)
        #expect(
            metadata.cameraModel == nil && metadata.latitude == nil && metadata.captureTime == nil)
    }

    @Test func profileForAnotherColourSpaceIsDropped() throws {
        var cmykProfile = sampleICCProfile()
        cmykProfile.replaceSubrange(16..<20, with: Array("CMYK".utf8))
        let source = try JPEG.encode(upright, quality: 90, iccProfile: cmykProfile)
        let rendered = try Thumbnailer.render(source: source, box: (16, 16), mode: .fit)
        #expect(!jpegMarkers(rendered.bytes).contains(0xE2))
    }

    @Test func pngOutputCarriesNoTextOrEXIF() throws {
        let profile = sampleICCProfile()
        let text = PNGBuilder.chunk("tEXt", Array("Author\0someone".utf8))
        let exif = PNGBuilder.chunk("eXIf", EXIFBuilder.make(orientation: 1, make: "X"))
        let time = PNGBuilder.chunk("tIME", [7, 232, 1, 2, 3, 4, 5])
        let icc = try PNG.encode(upright, iccProfile: profile)
        let iccp = try #require(pngChunkOffset(icc, "iCCP"))
        let iccpLength = Int(icc[iccp + 2]) << 8 | Int(icc[iccp + 3])
        let iccpChunk = Array(icc[iccp..<(iccp + 12 + iccpLength)])
        let source = PNGBuilder.make(
            width: 40, height: 40, depth: 8, color: 6, extra: [iccpChunk, text, exif, time]
        ) { x, y in
            [UInt8(x * 6), UInt8(y * 6), 100, 255]
        }
        let rendered = try Thumbnailer.render(source: source, box: (16, 16), mode: .fit)
        #expect(Set(pngChunks(rendered.bytes)) == ["IHDR", "iCCP", "IDAT", "IEND"])
        #expect(
            try Thumbnailer.decodeForAnalysis(rendered.bytes, minimumSide: 4).metadata.iccProfile
                == profile)
    }

    @Test func pngWithTheHPMicrosoftSRGBProfileRendersAndKeepsIt() throws {
        // libpng refuses to write this profile ("known incorrect sRGB profile") unless told
        // not to check it; it must come back byte for byte, the pixels untouched.
        let profile = hpSRGBLookalikeProfile()
        let iccp = PNGBuilder.chunk(
            "iCCP", Array("sRGB IEC61966-2.1".utf8) + [0, 0] + PNGBuilder.zlibStored(profile))
        func artwork(_ extra: [[UInt8]]) -> [UInt8] {
            PNGBuilder.make(width: 48, height: 40, depth: 8, color: 6, extra: extra) { x, y in
                [UInt8(x * 5), UInt8(y * 6), UInt8((x * y) % 256), UInt8(128 + x)]
            }
        }
        let source = artwork([iccp])
        let plain = artwork([])
        let rendered = try Thumbnailer.render(source: source, box: (24, 24), mode: .fit)
        let reference = try Thumbnailer.render(source: plain, box: (24, 24), mode: .fit)
        #expect(try PNG.decode(rendered.bytes) == PNG.decode(reference.bytes))
        let metadata = try Thumbnailer.decodeForAnalysis(rendered.bytes, minimumSide: 4).metadata
        #expect(metadata.iccProfile == profile)
        // `trove images` renders several renditions from one decode.
        let several = try Thumbnailer.render(
            source: source,
            renditions: [
                RenditionRequest(width: 24, height: 24, mode: .fit),
                RenditionRequest(width: 10, height: 10, mode: .cover),
            ])
        #expect(several.count == 2)
        // The same profile in a JPEG keeps working, as it always did.
        let jpeg = try JPEG.encode(upright, quality: 90, iccProfile: profile)
        let fromJPEG = try Thumbnailer.render(source: jpeg, box: (16, 16), mode: .fit)
        #expect(
            try Thumbnailer.decodeForAnalysis(fromJPEG.bytes, minimumSide: 4).metadata.iccProfile
                == profile)
    }

    // MARK: - Quality

    @Test func losslessThumbnailMatchesExactLanczos3Reference() throws {
        let source = Synthetic.photo(width: 1024, height: 768)
        let rendered = try Thumbnailer.render(
            source: try PNG.encode(source), box: (256, 256), mode: .fit)
        let ours = try PNG.decode(rendered.bytes)
        let reference = referenceLanczos3(source, width: 256, height: 192)
        let quality = psnr(ours, reference)
        #expect(quality > 60, "PSNR \(quality) dB")
    }

    @Test func shrinkOnLoadThumbnailStaysCloseToFullDecodeReference() throws {
        let source = Synthetic.photo(width: 1800, height: 1350, seed: 3)
        let data = try JPEG.encode(source, quality: 95)
        let (ours, _, _) = try Thumbnailer.renderBitmap(
            source: data, box: (256, 256), mode: .fit, maxPixels: 100_000_000)
        let reference = referenceLanczos3(try JPEG.decode(data), width: 256, height: 192)
        let quality = psnr(ours, reference)
        #expect(quality > 45, "PSNR \(quality) dB")
    }

    @Test func hardAlphaEdgeHasNoDarkHaloAndTransparencyStays() throws {
        // A white disc on fully transparent black.
        let size = 200
        var pixels = [UInt8](repeating: 0, count: size * size * 4)
        for y in 0..<size {
            for x in 0..<size {
                let dx = x - 100
                let dy = y - 100
                if dx * dx + dy * dy < 60 * 60 {
                    let index = (y * size + x) * 4
                    pixels[index] = 255
                    pixels[index + 1] = 255
                    pixels[index + 2] = 255
                    pixels[index + 3] = 255
                }
            }
        }
        let art = Bitmap(width: size, height: size, channels: 4, pixels: pixels)
        let rendered = try Thumbnailer.render(
            source: try PNG.encode(art), box: (57, 57), mode: .fit)
        let out = try PNG.decode(rendered.bytes)
        #expect(out.channels == 4 && out.width == 57)
        var partial = 0
        for y in 0..<57 {
            for x in 0..<57 {
                let index = (y * 57 + x) * 4
                let alpha = out.pixels[index + 3]
                if alpha > 0 {
                    // Any visible pixel is white: no dark fringe.
                    #expect(out.pixels[index] >= 250, "(\(x), \(y)) \(out.pixels[index])")
                    if alpha < 255 { partial += 1 }
                }
                // Corners are far from the disc and were fully transparent.
                let dx = Double(x) + 0.5 - 28.5
                let dy = Double(y) + 0.5 - 28.5
                if (dx * dx + dy * dy).squareRoot() > 21 { #expect(alpha == 0, "(\(x), \(y))") }
            }
        }
        #expect(partial > 0)
    }

    @Test func coverFillsTheBoxAndCropsTheCentre() throws {
        let data = try PNG.encode(Synthetic.quadrants(width: 300, height: 100))
        let rendered = try Thumbnailer.render(source: data, box: (100, 100), mode: .cover)
        #expect(rendered.width == 100 && rendered.height == 100)
        let fit = try Thumbnailer.render(source: data, box: (100, 100), mode: .fit)
        #expect(fit.width == 100 && fit.height == 33)
        let small = try Thumbnailer.render(source: data, box: (1000, 1000), mode: .fit)
        #expect(small.width == 300 && small.height == 100)
    }

    @Test func streamedJPEGRenderMatchesDecodeThenResample() throws {
        let data = try JPEG.encode(Synthetic.photo(width: 640, height: 480), quality: 90)
        let (streamed, _, _) = try Thumbnailer.renderBitmap(
            source: data, box: (200, 100), mode: .cover, maxPixels: 1_000_000)
        let plan = ResizePlan(
            sourceWidth: 640, sourceHeight: 480, boxWidth: 200, boxHeight: 100, mode: .cover)
        #expect(Thumbnailer.jpegScale(width: 640, height: 480, plan: plan) == 3)
        let decoded = try JPEG.decode(data, scaleEighths: 3)
        let region = SourceRegion(
            x: plan.region.x * 240 / 640, y: plan.region.y * 180 / 480,
            width: plan.region.width * 240 / 640, height: plan.region.height * 180 / 480)
        #expect(streamed == Resampler.resample(decoded, region: region, width: 200, height: 100))
    }

    @Test func cmykGreyAndProgressiveJPEGsRender() throws {
        let cmyk = try Thumbnailer.renderBitmap(
            source: fixture("cmyk.jpg"), box: (16, 16), mode: .fit, maxPixels: 1_000_000
        ).0
        #expect(cmyk.channels == 3 && cmyk.width == 16)
        // Top-left quadrant is red, bottom-right white.
        #expect(cmyk.pixels[(2 * 16 + 2) * 3] > 200 && cmyk.pixels[(2 * 16 + 2) * 3 + 1] < 60)
        #expect(cmyk.pixels[(13 * 16 + 13) * 3 + 2] > 200)
        let grey = Bitmap(
            width: 64, height: 64, channels: 1, pixels: (0..<4096).map { UInt8($0 % 251) })
        let greyRender = try Thumbnailer.render(
            source: try JPEG.encode(grey, quality: 90), box: (16, 16), mode: .fit)
        #expect(try JPEG.decode(greyRender.bytes).channels == 1)
        // 200x150 into 25x25: streamed at scale 1/8, equal to decoding then resizing.
        let progressive = try fixture("progressive.jpg")
        let streamed = try Thumbnailer.renderBitmap(
            source: progressive, box: (25, 25), mode: .fit, maxPixels: 1_000_000
        ).0
        let full = try JPEG.decode(progressive, scaleEighths: 1)
        #expect(streamed == Resampler.resize(full, width: 25, height: 19))
    }

    @Test func severalRenditionsComeFromOneDecode() throws {
        let requests = [
            RenditionRequest(width: 160, height: 160, mode: .fit),
            RenditionRequest(width: 64, height: 64, mode: .fit),
            RenditionRequest(width: 30, height: 30, mode: .cover),
        ]
        let photo = Synthetic.photo(width: 400, height: 300)
        let tiff = EXIFBuilder.make(orientation: 6)
        let jpeg = try jpegWithEXIF(stored(photo, for: 6), tiff: tiff, quality: 92)
        let rendered = try Thumbnailer.render(source: jpeg, renditions: requests)
        #expect(rendered.map { [$0.width, $0.height] } == [[160, 120], [64, 48], [30, 30]])
        for (request, rendition) in zip(requests, rendered) {
            let alone = try Thumbnailer.render(
                source: jpeg, box: (request.width, request.height), mode: request.mode)
            let difference = meanAbsoluteDifference(
                try JPEG.decode(rendition.bytes), try JPEG.decode(alone.bytes))
            // Small renditions differ a little: resampled from a larger decode they keep
            // more of the noise that a 1/8 DCT decode averages away.
            #expect(difference < 6, "\(request)")
        }
        // PNG renditions are exactly what single renders give.
        let png = try PNG.encode(photo)
        let pngRendered = try Thumbnailer.render(source: png, renditions: requests)
        for (request, rendition) in zip(requests, pngRendered) {
            let alone = try Thumbnailer.render(
                source: png, box: (request.width, request.height), mode: request.mode)
            #expect(rendition == alone)
        }
        #expect(try Thumbnailer.render(source: png, renditions: []).isEmpty)
    }

    // MARK: - DCT scale

    @Test func picksTheSmallestDCTScaleThatCoversTheOutput() {
        func scale(
            _ w: Int, _ h: Int, box: (Int, Int), _ mode: ResizeMode = .fit, swapped: Bool = false
        ) -> Int {
            var plan = ResizePlan(
                sourceWidth: swapped ? h : w, sourceHeight: swapped ? w : h, boxWidth: box.0,
                boxHeight: box.1, mode: mode)
            if swapped { plan = plan.transposed }
            return Thumbnailer.jpegScale(width: w, height: h, plan: plan)
        }
        #expect(scale(4032, 3024, box: (256, 256)) == 1)
        #expect(scale(4032, 3024, box: (1024, 1024)) == 3)
        #expect(scale(4032, 3024, box: (1600, 1600)) == 4)
        #expect(scale(4032, 3024, box: (4032, 4032)) == 8)
        #expect(scale(4032, 3024, box: (100, 100), .cover) == 1)
        #expect(scale(4000, 3000, box: (1500, 1000)) == 3)
        // Rotated a quarter turn the picture is tall, so the box's height limits it.
        #expect(scale(4000, 3000, box: (1500, 1000), swapped: true) == 2)
    }

    // MARK: - Perceptual hash

    @Test func perceptualHashSurvivesResizingAndSeparatesPictures() throws {
        let original = Synthetic.photo(width: 400, height: 300, seed: 5)
        let resized = Resampler.resize(original, width: 173, height: 130)
        let recompressed = try JPEG.decode(JPEG.encode(resized, quality: 60))
        let other = Synthetic.photo(width: 400, height: 300, seed: 9)
        let hash = perceptualHash(of: original)
        #expect(hammingDistance(hash, perceptualHash(of: resized)) <= 6)
        #expect(hammingDistance(hash, perceptualHash(of: recompressed)) <= 8)
        #expect(hammingDistance(hash, perceptualHash(of: other)) >= 16)
        #expect(
            hammingDistance(hash, perceptualHash(of: Synthetic.quadrants(width: 400, height: 300)))
                >= 16)
    }
}

/// Colour profiles whose headers libpng dislikes are kept byte for byte, as libvips and
/// Pillow keep them.
@Suite struct ICCQuirkTests {
    /// A greyscale profile like Photoshop's "Dot Gain 20%": rendering intent 0x01000000.
    static func dotGainProfile() -> [UInt8] {
        var profile = sampleICCProfile()
        profile.replaceSubrange(16..<20, with: Array("GRAY".utf8))
        profile.replaceSubrange(64..<68, with: [0x01, 0, 0, 0])
        return profile
    }

    /// A grey PNG written by hand (stored deflate), its iCCP chunk too: nothing of
    /// trove's own encoder in the input.
    static func greyPNG(profile: [UInt8]) -> [UInt8] {
        let iccp = PNGBuilder.chunk(
            "iCCP", Array("Dot Gain 20%".utf8) + [0, 0] + PNGBuilder.zlibStored(profile))
        return PNGBuilder.make(width: 300, height: 200, depth: 8, color: 0, extra: [iccp]) {
            x, y in [UInt8((x + y) % 256)]
        }
    }

    @Test func aProfileLibpngDiscardsComesThroughEveryRendition() throws {
        let profile = Self.dotGainProfile()
        let source = Self.greyPNG(profile: profile)
        let read = try Thumbnailer.decodeForAnalysis(source, minimumSide: 8).metadata
        #expect(read.iccProfile == profile)
        let renditions = try Thumbnailer.render(
            source: source,
            renditions: [
                RenditionRequest(width: 256, height: 256, mode: .fit),
                RenditionRequest(width: 100, height: 100, mode: .cover),
                RenditionRequest(width: 1024, height: 1024, mode: .fit),
            ])
        for rendition in renditions {
            let metadata = try Thumbnailer.decodeForAnalysis(rendition.bytes, minimumSide: 8)
                .metadata
            #expect(metadata.iccProfile == profile)
            #expect(pngChunks(rendition.bytes).filter { $0 == "iCCP" }.count == 1)
        }
    }

    @Test func aDamagedProfileIsDroppedWithoutCrashing() throws {
        var iccp = Array("x".utf8) + [0, 0] + PNGBuilder.zlibStored(Self.dotGainProfile())
        iccp.removeLast(9)  // the zlib data ends early
        let source = PNGBuilder.make(
            width: 40, height: 40, depth: 8, color: 0, extra: [PNGBuilder.chunk("iCCP", iccp)]
        ) { x, y in [UInt8(x ^ y)] }
        let rendered = try Thumbnailer.render(source: source, box: (20, 20), mode: .fit)
        #expect(
            try Thumbnailer.decodeForAnalysis(rendered.bytes, minimumSide: 8).metadata
                .iccProfile == nil)
    }
}
