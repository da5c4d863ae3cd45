/// Pixels in memory: 8-bit channels, rows top to bottom, no padding.
///
/// One channel is grey, three are RGB, four are RGBA with straight (not premultiplied)
/// alpha.
public struct Bitmap: Sendable, Equatable {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// Channels per pixel: 1 (grey), 3 (RGB) or 4 (RGBA).
    public var channels: Int
    /// `width * height * channels` bytes, row by row.
    public var pixels: [UInt8]

    /// Wraps pixel bytes; the count must match the dimensions.
    public init(width: Int, height: Int, channels: Int, pixels: [UInt8]) {
        precondition(width > 0 && height > 0, "a bitmap has at least one pixel")
        precondition(channels == 1 || channels == 3 || channels == 4, "1, 3 or 4 channels")
        precondition(pixels.count == width * height * channels, "pixel count must match")
        self.width = width
        self.height = height
        self.channels = channels
        self.pixels = pixels
    }

    /// Whether the bitmap has an alpha channel.
    public var hasAlpha: Bool { channels == 4 }
}
