import Foundation

// MARK: - Resampler

/// High-quality separable Lanczos3 resampling with premultiplied alpha.
///
/// Weights are computed once per output column and row. Rows are filtered horizontally
/// once each into a small ring of float rows, which the vertical pass then combines, so
/// memory stays at a few output rows whatever the source size.
public enum Resampler {
    /// Resizes the whole bitmap to exactly `width`×`height`.
    public static func resize(_ bitmap: Bitmap, width: Int, height: Int) -> Bitmap {
        resample(
            bitmap,
            region: SourceRegion(
                x: 0, y: 0, width: Double(bitmap.width), height: Double(bitmap.height)),
            width: width, height: height)
    }

    /// Resizes into a box with `fit` or `cover`.
    public static func resize(
        _ bitmap: Bitmap, boxWidth: Int, boxHeight: Int, mode: ResizeMode
    ) -> Bitmap {
        let plan = ResizePlan(
            sourceWidth: bitmap.width, sourceHeight: bitmap.height, boxWidth: boxWidth,
            boxHeight: boxHeight, mode: mode)
        return resample(bitmap, region: plan.region, width: plan.width, height: plan.height)
    }

    /// Resamples a region of the source to `width`×`height` pixels.
    public static func resample(
        _ bitmap: Bitmap, region: SourceRegion, width: Int, height: Int
    ) -> Bitmap {
        precondition(width > 0 && height > 0, "output needs at least one pixel")
        if width == bitmap.width && height == bitmap.height && region.x == 0 && region.y == 0
            && region.width == Double(width) && region.height == Double(height)
        {
            return bitmap
        }
        let stride = bitmap.width * bitmap.channels
        let resampler = RowResampler(
            sourceWidth: bitmap.width, sourceHeight: bitmap.height, channels: bitmap.channels,
            region: region, width: width, height: height)
        bitmap.pixels.withUnsafeBufferPointer { source in
            // A bitmap has at least one pixel, so its storage has an address.
            let base = source.baseAddress!
            for row in 0..<bitmap.height where !resampler.isComplete {
                resampler.push(base + row * stride)
            }
        }
        return resampler.finish()
    }

    /// The Lanczos kernel with three lobes.
    static func lanczos3(_ x: Double) -> Double {
        let distance = abs(x)
        if distance < 1e-9 { return 1 }
        if distance >= 3 { return 0 }
        let pix = Double.pi * distance
        return 3 * sin(pix) * sin(pix / 3) / (pix * pix)
    }
}

/// Normalised filter taps for every output position along one axis.
struct Weights {
    /// First source index of each output position.
    var starts: [Int]
    /// Number of taps of each output position.
    var counts: [Int]
    /// `stride` weights per output position.
    var values: [Float]
    var stride: Int

    init(sourceSize: Int, origin: Double, span: Double, outputSize: Int) {
        let scale = span / Double(outputSize)
        let filterScale = max(scale, 1)
        let support = 3 * filterScale
        stride = Int((2 * support).rounded(.up)) + 2
        starts = [Int](repeating: 0, count: outputSize)
        counts = [Int](repeating: 0, count: outputSize)
        values = [Float](repeating: 0, count: outputSize * stride)
        var taps = [Double](repeating: 0, count: stride)
        for index in 0..<outputSize {
            let center = origin + (Double(index) + 0.5) * scale
            var first = max(0, Int((center - support + 0.5).rounded(.down)))
            var last = min(sourceSize, Int((center + support + 0.5).rounded(.down)))
            if last - first > stride { last = first + stride }
            if last <= first {
                // Far outside the source: take the nearest edge pixel.
                first = min(max(0, Int(center)), sourceSize - 1)
                last = first + 1
            }
            var total = 0.0
            for tap in first..<last {
                let weight = Resampler.lanczos3((Double(tap) + 0.5 - center) / filterScale)
                taps[tap - first] = weight
                total += weight
            }
            if total == 0 { total = 1 }
            for tap in 0..<(last - first) {
                values[index * stride + tap] = Float(taps[tap] / total)
            }
            starts[index] = first
            counts[index] = last - first
        }
    }
}

// MARK: - Row resampler

/// A resampler that takes source rows in order, as a decoder produces them, so that one
/// decode can feed several outputs and no full-size bitmap is ever held.
///
/// Each row is filtered horizontally once into a ring of float rows; an output row is
/// combined as soon as its last source row has arrived. Rows no output needs are skipped.
final class RowResampler {
    private enum Storage {
        case identity
        case grey(Kernel<Float>)
        case colour(Kernel<SIMD4<Float>>)
    }

    private let storage: Storage
    private let width: Int
    private let height: Int
    private let channels: Int
    private let sourceStride: Int
    private var output: [UInt8]
    private var nextRow = 0

    /// A resampler of `region` of a `sourceWidth`×`sourceHeight` source to
    /// `width`×`height`; a whole-source region at the same size copies rows as they come.
    ///
    /// `scattered` resamplers take pixels in any order instead, through `pushPass` (the
    /// passes of an interlaced PNG): the filter is linear, so each source pixel's weighted
    /// contribution is added straight into a float image of the output's size, which then
    /// holds the same sums as the row-by-row filter, up to float rounding.
    init(
        sourceWidth: Int, sourceHeight: Int, channels: Int, region: SourceRegion, width: Int,
        height: Int, scattered: Bool = false
    ) {
        precondition(width > 0 && height > 0, "output needs at least one pixel")
        self.width = width
        self.height = height
        self.channels = channels
        sourceStride = sourceWidth * channels
        output = [UInt8](repeating: 0, count: width * height * channels)
        if width == sourceWidth && height == sourceHeight && region.x == 0 && region.y == 0
            && region.width == Double(width) && region.height == Double(height)
        {
            storage = .identity
            return
        }
        let columns = Weights(
            sourceSize: sourceWidth, origin: region.x, span: region.width, outputSize: width)
        let rows = Weights(
            sourceSize: sourceHeight, origin: region.y, span: region.height, outputSize: height)
        switch channels {
        case 1:
            storage = .grey(Kernel(sourceWidth, channels, columns, rows, scattered: scattered))
        default:
            storage = .colour(Kernel(sourceWidth, channels, columns, rows, scattered: scattered))
        }
    }

    /// Whether every output row is done; later source rows are not needed.
    var isComplete: Bool {
        switch storage {
        case .identity: return nextRow >= height
        case .grey(let kernel): return kernel.isComplete
        case .colour(let kernel): return kernel.isComplete
        }
    }

    /// Takes the next source row (`sourceWidth * channels` bytes).
    func push(_ row: UnsafePointer<UInt8>) {
        output.withUnsafeMutableBufferPointer { target in
            switch storage {
            case .identity:
                guard nextRow < height else { return }
                (target.baseAddress! + nextRow * sourceStride).update(
                    from: row, count: sourceStride)
            case .grey(let kernel): kernel.push(row, into: target)
            case .colour(let kernel): kernel.push(row, into: target)
            }
        }
        nextRow += 1
    }

    /// Takes `count` pixels of source row `y` at columns `first`, `first + step`, ...
    /// (`channels` bytes each, packed), for a resampler made `scattered`.
    func pushPass(
        _ pixels: UnsafePointer<UInt8>, y: Int, first: Int, step: Int, count: Int
    ) {
        output.withUnsafeMutableBufferPointer { target in
            switch storage {
            case .identity:
                guard y < height else { return }
                let row = target.baseAddress! + y * sourceStride
                for index in 0..<count {
                    (row + (first + index * step) * channels).update(
                        from: pixels + index * channels, count: channels)
                }
            case .grey(let kernel):
                kernel.scatter(pixels, y: y, first: first, step: step, count: count)
            case .colour(let kernel):
                kernel.scatter(pixels, y: y, first: first, step: step, count: count)
            }
        }
    }

    /// The output; rows whose sources never came are zero.
    func finish() -> Bitmap {
        output.withUnsafeMutableBufferPointer { target in
            switch storage {
            case .identity: break
            case .grey(let kernel): kernel.storeScattered(into: target)
            case .colour(let kernel): kernel.storeScattered(into: target)
            }
        }
        return Bitmap(width: width, height: height, channels: channels, pixels: output)
    }
}
