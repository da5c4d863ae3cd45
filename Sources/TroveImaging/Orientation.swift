extension Bitmap {
    /// The bitmap turned and mirrored so that it looks upright.
    ///
    /// `orientation` says how the stored pixels relate to the upright picture (EXIF tag
    /// 0x0112); orientations 5–8 swap width and height.
    public func applying(_ orientation: ImageOrientation) -> Bitmap {
        if orientation == .up { return self }
        let swaps = orientation.swapsDimensions
        let outWidth = swaps ? height : width
        let outHeight = swaps ? width : height
        var output = [UInt8](repeating: 0, count: pixels.count)
        let w = width
        let h = height
        let c = channels
        pixels.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                guard let from = source.baseAddress, let to = target.baseAddress else { return }
                for oy in 0..<outHeight {
                    for ox in 0..<outWidth {
                        // Where the upright pixel (ox, oy) is stored.
                        let sx: Int
                        let sy: Int
                        switch orientation {
                        case .up: (sx, sy) = (ox, oy)
                        case .upMirrored: (sx, sy) = (w - 1 - ox, oy)
                        case .down: (sx, sy) = (w - 1 - ox, h - 1 - oy)
                        case .downMirrored: (sx, sy) = (ox, h - 1 - oy)
                        case .leftMirrored: (sx, sy) = (oy, ox)
                        case .right: (sx, sy) = (oy, h - 1 - ox)
                        case .rightMirrored: (sx, sy) = (w - 1 - oy, h - 1 - ox)
                        case .left: (sx, sy) = (w - 1 - oy, ox)
                        }
                        let s = from + (sy * w + sx) * c
                        let t = to + (oy * outWidth + ox) * c
                        for k in 0..<c { t[k] = s[k] }
                    }
                }
            }
        }
        return Bitmap(width: outWidth, height: outHeight, channels: c, pixels: output)
    }
}
