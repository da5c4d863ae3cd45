import Testing

@testable import TroveImaging

@Suite struct BitmapTests {
    @Test func storesDimensions() {
        let bitmap = Bitmap(width: 2, height: 1, channels: 3, pixels: [1, 2, 3, 4, 5, 6])
        #expect(bitmap.pixels.count == bitmap.width * bitmap.height * bitmap.channels)
    }
}
