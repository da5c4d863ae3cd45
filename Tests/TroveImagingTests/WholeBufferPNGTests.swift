import Testing

@testable import TroveImaging

/// Plain 8-bit PNGs are inflated whole and unfiltered by trove's own code (png_idat.c);
/// everything else, and any file that code declines, goes through libpng's rows. The
/// files here are built byte by byte so that every filter type, pixel size and chunk
/// split is exercised, and the stream must give what libpng's one-shot decode gives.
@Suite struct WholeBufferPNGTests {
    /// A PNG of random rows, each with the filter byte `filters[y % filters.count]`
    /// (the bytes after it are random, so any filter gives some valid image), its zlib
    /// data stored uncompressed and split into IDAT chunks of `split` bytes.
    static func png(
        width: Int, height: Int, colorType: UInt8, channels: Int, filters: [UInt8],
        split: Int, seed: UInt64, extra: [UInt8] = [], afterData: [UInt8] = []
    ) -> [UInt8] {
        // Bytes from a linear congruential sequence: any bytes make some valid image.
        var state = seed
        var raw: [UInt8] = []
        for y in 0..<height {
            raw.append(filters[y % filters.count])
            for _ in 0..<(width * channels) {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                raw.append(UInt8(truncatingIfNeeded: state >> 33))
            }
        }
        let zlib = PNGBuilder.zlibStored(raw) + extra
        var file: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        file += PNGBuilder.header(
            width: width, height: height, depth: 8, color: colorType, interlace: 0)
        var start = 0
        while start < zlib.count {
            let end = min(zlib.count, start + split)
            file += PNGBuilder.chunk("IDAT", Array(zlib[start..<end]))
            start = end
        }
        return file + afterData + PNGBuilder.chunk("IEND", [])
    }

    static func streamed(_ data: [UInt8]) throws(ImageCodecError) -> Bitmap? {
        try Native.streamPNG(
            data, maxPixels: Thumbnailer.defaultMaxPixels, StreamDecodeTests.collect
        ).0
    }

    @Test(arguments: [(UInt8(0), 1), (UInt8(2), 3), (UInt8(6), 4)])
    func everyFilterOfEveryPixelSizeDecodesAsLibpngDecodesIt(colorType: UInt8, channels: Int)
        throws
    {
        let patterns: [[UInt8]] = [[0], [1], [2], [3], [4], [0, 1, 2, 3, 4], [4, 3, 2, 1, 0]]
        for (index, filters) in patterns.enumerated() {
            for (width, height) in [(1, 1), (2, 3), (37, 19)] {
                for split in [7, 100_000] {
                    let data = Self.png(
                        width: width, height: height, colorType: colorType,
                        channels: channels, filters: filters, split: split,
                        seed: UInt64(index * 1000 + width * 10 + split))
                    let reference = try PNG.decode(data)
                    #expect(
                        try Self.streamed(data) == reference,
                        "filters \(filters), \(width)x\(height), IDAT of \(split) bytes")
                }
            }
        }
    }

    @Test func aDamagedChunkIsLibpngsErrorInBothDecodes() throws {
        var data = Self.png(
            width: 9, height: 4, colorType: 6, channels: 4, filters: [4], split: 50, seed: 1)
        // A byte of the second IDAT's data: its CRC no longer matches.
        let second = data.indices.filter {
            data[$0..<min($0 + 4, data.count)].elementsEqual("IDAT".utf8)
        }[1]
        data[second + 10] ^= 0xFF
        var streamError: ImageCodecError?
        do { _ = try Self.streamed(data) } catch { streamError = error }
        var oneShotError: ImageCodecError?
        do { _ = try PNG.decode(data) } catch { oneShotError = error }
        #expect(streamError != nil)
        #expect(streamError?.message.contains("CRC") == true, "\(String(describing: streamError))")
        #expect(streamError?.message == oneShotError?.message)
    }

    @Test func dataAfterTheZlibStreamAndChunksAfterThePixelsAreLeftToLibpng() throws {
        // Bytes after the zlib stream, and a text chunk between the image data and IEND:
        // the whole-buffer path declines both, and the result is libpng's.
        let trailing = Self.png(
            width: 5, height: 3, colorType: 2, channels: 3, filters: [1, 4], split: 1000,
            seed: 2, extra: [0, 0, 0])
        let oneShot = Result { () throws(ImageCodecError) in try PNG.decode(trailing) }
        let stream = Result { () throws(ImageCodecError) in try Self.streamed(trailing) }
        switch (stream, oneShot) {
        case (.success(let streamed), .success(let decoded)): #expect(streamed == decoded)
        case (.failure(let streamed), .failure(let decoded)):
            #expect(streamed.message == decoded.message)
        default: Issue.record("stream \(stream), one-shot \(oneShot)")
        }
        let text = Self.png(
            width: 5, height: 3, colorType: 6, channels: 4, filters: [3], split: 1000, seed: 3,
            afterData: PNGBuilder.chunk("tEXt", Array("Comment\0after the pixels".utf8)))
        #expect(try Self.streamed(text) == (try PNG.decode(text)))
    }

    @Test func aFilterByteOutOfRangeIsLibpngsError() throws {
        let data = Self.png(
            width: 4, height: 2, colorType: 6, channels: 4, filters: [0, 5], split: 1000, seed: 4)
        var streamError: ImageCodecError?
        do { _ = try Self.streamed(data) } catch { streamError = error }
        var oneShotError: ImageCodecError?
        do { _ = try PNG.decode(data) } catch { oneShotError = error }
        #expect(streamError != nil)
        #expect(streamError?.message == oneShotError?.message)
    }
}
