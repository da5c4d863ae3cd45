import Testing

@testable import TroveImaging

/// Every caller decodes through the row stream (`ImagePipeline`); the one-shot decoders
/// stay as the reference the tests compare with. The two must give the same pixels.
@Suite struct StreamDecodeTests {
    /// The rows of a stream, top to bottom, as one bitmap.
    static func collect(
        _ width: Int, _ height: Int, _ channels: Int,
        _ readRow: (UnsafeMutablePointer<UInt8>) -> Bool
    ) -> Bitmap? {
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        let complete = pixels.withUnsafeMutableBufferPointer { buffer in
            (0..<height).allSatisfy { readRow(buffer.baseAddress! + $0 * width * channels) }
        }
        return complete
            ? Bitmap(width: width, height: height, channels: channels, pixels: pixels) : nil
    }

    @Test(arguments: ["progressive.jpg", "cmyk.jpg"])
    func streamedJPEGEqualsTheOneShotDecodeAtEveryScale(name: String) throws {
        // At 1/8 a progressive file is decoded from its DC scans only, in both paths.
        let data = try fixture(name)
        for scale in 1...8 {
            let streamed = try Native.streamJPEG(
                data, scaleEighths: scale, maxPixels: Thumbnailer.defaultMaxPixels, Self.collect)
            #expect(
                streamed == (try JPEG.decode(data, scaleEighths: scale)), "\(name) at \(scale)/8")
        }
    }

    @Test func streamedPNGEqualsTheOneShotDecodeWithTheSameMetadata() throws {
        let photo = Synthetic.photo(width: 37, height: 23)
        let data = try PNG.encode(photo, iccProfile: sampleICCProfile())
        let (streamed, metadata) = try Native.streamPNG(
            data, maxPixels: Thumbnailer.defaultMaxPixels, Self.collect)
        let reference = try PNG.decodeWithMetadata(data, maxPixels: Thumbnailer.defaultMaxPixels)
        #expect(streamed == reference.bitmap)
        #expect(streamed == photo)
        #expect(metadata.iccProfile != nil)
        #expect(metadata.iccProfile == reference.metadata.iccProfile)
    }
}
