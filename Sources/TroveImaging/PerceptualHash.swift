import Foundation

/// A 64-bit perceptual hash (pHash) of a picture and the distance between two of them.
///
/// The picture is reduced to 32×32 grey, transformed with a 2-D DCT, and the 8×8 lowest
/// frequencies are compared with their median: resizing, recompression and small colour
/// changes keep most bits, a different picture flips about half.
public enum PerceptualHash {
    /// The hash of a bitmap (alpha is composited over white first).
    public static func hash(of bitmap: Bitmap) -> UInt64 {
        let small = Resampler.resize(bitmap, width: size, height: size)
        var grey = [Double](repeating: 0, count: size * size)
        for index in 0..<(size * size) {
            let p = index * small.channels
            switch small.channels {
            case 1:
                grey[index] = Double(small.pixels[p])
            default:
                var luma =
                    0.299 * Double(small.pixels[p]) + 0.587 * Double(small.pixels[p + 1])
                    + 0.114 * Double(small.pixels[p + 2])
                if small.channels == 4 {
                    let alpha = Double(small.pixels[p + 3]) / 255
                    luma = luma * alpha + 255 * (1 - alpha)
                }
                grey[index] = luma
            }
        }
        // Separable DCT-II, keeping only the 8 lowest frequencies on each axis.
        var rowsDone = [Double](repeating: 0, count: size * kept)
        for y in 0..<size {
            for u in 0..<kept {
                var total = 0.0
                for x in 0..<size { total += grey[y * size + x] * cosines[u * size + x] }
                rowsDone[y * kept + u] = total
            }
        }
        var coefficients = [Double](repeating: 0, count: kept * kept)
        for v in 0..<kept {
            for u in 0..<kept {
                var total = 0.0
                for y in 0..<size { total += rowsDone[y * kept + u] * cosines[v * size + y] }
                coefficients[v * kept + u] = total
            }
        }
        // The DC term only says how bright the picture is; leave it out of the median.
        let median = coefficients.dropFirst().sorted()[(kept * kept - 1) / 2]
        var bits: UInt64 = 0
        for (index, value) in coefficients.enumerated() where value > median {
            bits |= 1 << UInt64(index)
        }
        return bits
    }

    /// How many of the 64 bits differ; below about 10 usually means the same picture.
    public static func distance(_ a: UInt64, _ b: UInt64) -> Int {
        (a ^ b).nonzeroBitCount
    }

    private static let size = 32
    private static let kept = 8
    private static let cosines: [Double] = {
        var table = [Double](repeating: 0, count: kept * size)
        for u in 0..<kept {
            for x in 0..<size {
                table[u * size + x] = cos(Double.pi * Double(u) * (2 * Double(x) + 1) / 64)
            }
        }
        return table
    }()
}

/// The perceptual hash of a bitmap; see `PerceptualHash`.
public func perceptualHash(of bitmap: Bitmap) -> UInt64 {
    PerceptualHash.hash(of: bitmap)
}

/// The number of differing bits between two perceptual hashes.
public func hammingDistance(_ a: UInt64, _ b: UInt64) -> Int {
    PerceptualHash.distance(a, b)
}
