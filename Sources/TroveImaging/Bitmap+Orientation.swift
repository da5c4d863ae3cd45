extension Bitmap {
    /// The bitmap turned and mirrored so that it looks upright.
    ///
    /// `orientation` says how the stored pixels relate to the upright picture (EXIF tag
    /// 0x0112); orientations 5–8 swap width and height.
    public func applying(_ orientation: ImageOrientation) -> Bitmap {
        if orientation == .up { return self }
        let w = width
        let h = height
        let c = channels
        let swaps = orientation.swapsDimensions
        let outWidth = swaps ? h : w
        let outHeight = swaps ? w : h
        // Where the upright pixel (ox, oy) is stored is affine in ox and oy:
        // sx = ax * ox + bx * oy + cx, sy = ay * ox + by * oy + cy.
        let (ax, bx, cx, ay, by, cy): (Int, Int, Int, Int, Int, Int)
        switch orientation {
        case .up: (ax, bx, cx, ay, by, cy) = (1, 0, 0, 0, 1, 0)
        case .upMirrored: (ax, bx, cx, ay, by, cy) = (-1, 0, w - 1, 0, 1, 0)
        case .down: (ax, bx, cx, ay, by, cy) = (-1, 0, w - 1, 0, -1, h - 1)
        case .downMirrored: (ax, bx, cx, ay, by, cy) = (1, 0, 0, 0, -1, h - 1)
        case .leftMirrored: (ax, bx, cx, ay, by, cy) = (0, 1, 0, 1, 0, 0)
        case .right: (ax, bx, cx, ay, by, cy) = (0, 1, 0, -1, 0, h - 1)
        case .rightMirrored: (ax, bx, cx, ay, by, cy) = (0, -1, w - 1, -1, 0, h - 1)
        case .left: (ax, bx, cx, ay, by, cy) = (0, -1, w - 1, 1, 0, 0)
        }
        // The same mapping in byte offsets.
        let stepX = (ax + ay * w) * c
        let stepY = (bx + by * w) * c
        let origin = (cx + cy * w) * c
        var output = [UInt8](repeating: 0, count: pixels.count)
        pixels.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                guard let from = source.baseAddress, let to = target.baseAddress else { return }
                for oy in 0..<outHeight {
                    var s = from + origin + oy * stepY
                    var t = to + oy * outWidth * c
                    for _ in 0..<outWidth {
                        for k in 0..<c { t[k] = s[k] }
                        s += stepX
                        t += c
                    }
                }
            }
        }
        return Bitmap(width: outWidth, height: outHeight, channels: c, pixels: output)
    }
}
