import Foundation

/// How a picture is placed in a box.
public enum ResizeMode: String, Sendable, Equatable {
    /// Entirely inside the box, aspect kept, never enlarged.
    case fit
    /// Fills the box, aspect kept, centre cropped, never enlarged.
    case cover
}

/// A part of a source image in source pixels, fractional so that crops stay centred.
public struct SourceRegion: Sendable, Equatable {
    /// Left edge.
    public var x: Double
    /// Top edge.
    public var y: Double
    /// Width.
    public var width: Double
    /// Height.
    public var height: Double

    /// Creates a region.
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}

/// Output size and source crop for a picture placed in a box.
public struct ResizePlan: Sendable, Equatable {
    /// Output width.
    public var width: Int
    /// Output height.
    public var height: Int
    /// The part of the source that the output shows.
    public var region: SourceRegion

    /// Places a `sourceWidth`×`sourceHeight` picture in a box.
    ///
    /// `fit` keeps the whole picture; `cover` crops the centre to the box's aspect. Neither
    /// enlarges: a picture smaller than the box keeps its own scale.
    public init(
        sourceWidth: Int, sourceHeight: Int, boxWidth: Int, boxHeight: Int, mode: ResizeMode
    ) {
        precondition(sourceWidth > 0 && sourceHeight > 0 && boxWidth > 0 && boxHeight > 0)
        let sw = Double(sourceWidth)
        let sh = Double(sourceHeight)
        let bw = Double(boxWidth)
        let bh = Double(boxHeight)
        switch mode {
        case .fit:
            let scale = min(bw / sw, bh / sh, 1)
            width = max(1, Int((sw * scale).rounded()))
            height = max(1, Int((sh * scale).rounded()))
            region = SourceRegion(x: 0, y: 0, width: sw, height: sh)
        case .cover:
            // Shrink the box to the source when the source is too small, keeping its aspect.
            let shrink = min(1, sw / bw, sh / bh)
            width = max(1, Int((bw * shrink).rounded()))
            height = max(1, Int((bh * shrink).rounded()))
            let scale = max(Double(width) / sw, Double(height) / sh)
            let cropWidth = min(sw, Double(width) / scale)
            let cropHeight = min(sh, Double(height) / scale)
            region = SourceRegion(
                x: (sw - cropWidth) / 2, y: (sh - cropHeight) / 2, width: cropWidth,
                height: cropHeight)
        }
    }

    init(width: Int, height: Int, region: SourceRegion) {
        self.width = width
        self.height = height
        self.region = region
    }

    /// The same plan for the source stored transposed (EXIF orientations 5–8).
    var transposed: ResizePlan {
        ResizePlan(
            width: height, height: width,
            region: SourceRegion(
                x: region.y, y: region.x, width: region.height, height: region.width))
    }
}

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

// MARK: - Kernel

/// A pixel as the filter sees it: one float for grey, four (RGBA or RGB0) otherwise.
protocol FilterPixel {
    static var zero: Self { get }
    static func + (lhs: Self, rhs: Self) -> Self
    static func * (lhs: Self, rhs: Float) -> Self
}

extension Float: FilterPixel {}

extension SIMD4: FilterPixel where Scalar == Float {}

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

/// The two passes over unsafe buffers, so the inner loops carry no bounds checks.
final class Kernel<Pixel: FilterPixel> {
    let width: Int
    let channels: Int
    let columns: Weights
    let rows: Weights
    private let outputWidth: Int
    private let outputHeight: Int
    private let ringSize: Int
    private let line: UnsafeMutablePointer<Pixel>
    private let ring: UnsafeMutablePointer<Pixel>
    private let sum: UnsafeMutablePointer<Pixel>
    private var ringRow: [Int]
    private var sourceRow = 0
    private var outputRow = 0
    /// Scattered input: the weighted sums of every output pixel so far, and the first
    /// output row that the current pass's source rows can still reach.
    private let accumulator: UnsafeMutablePointer<Pixel>?
    private var passRow = -1
    private var firstOpen = 0

    init(
        _ width: Int, _ channels: Int, _ columns: Weights, _ rows: Weights,
        scattered: Bool = false
    ) {
        self.width = width
        self.channels = channels
        self.columns = columns
        self.rows = rows
        outputWidth = columns.starts.count
        outputHeight = rows.starts.count
        // The ring holds every source row that one output row needs; scattered input
        // needs none, as every row is added into the output sums as it comes.
        ringSize = scattered ? 1 : rows.stride
        line = .allocate(capacity: width)
        ring = .allocate(capacity: ringSize * outputWidth)
        sum = .allocate(capacity: outputWidth)
        ringRow = [Int](repeating: -1, count: ringSize)
        if scattered {
            let sums = UnsafeMutablePointer<Pixel>.allocate(capacity: outputWidth * outputHeight)
            sums.initialize(repeating: .zero, count: outputWidth * outputHeight)
            accumulator = sums
        } else {
            accumulator = nil
        }
    }

    deinit {
        line.deallocate()
        ring.deallocate()
        sum.deallocate()
        accumulator?.deallocate()
    }

    /// Adds `count` pixels of source row `y`, at columns `first + k * step`, to the sums of
    /// every output pixel they reach. Within a pass rows come top to bottom; a row above
    /// the previous one starts a new pass.
    func scatter(_ pixels: UnsafePointer<UInt8>, y: Int, first: Int, step: Int, count: Int) {
        guard let accumulator else { return }
        if y <= passRow { firstOpen = 0 }
        passRow = y
        // Output rows end at non-decreasing source rows: those ended above `y` stay ended
        // for the rest of the pass.
        while firstOpen < outputHeight && rows.starts[firstOpen] + rows.counts[firstOpen] <= y {
            firstOpen += 1
        }
        guard firstOpen < outputHeight, rows.starts[firstOpen] <= y else { return }
        loadLattice(pixels, first: first, step: step, count: count, into: line)
        columns.starts.withUnsafeBufferPointer { starts in
            columns.counts.withUnsafeBufferPointer { counts in
                columns.values.withUnsafeBufferPointer { weights in
                    if step == 1 {
                        filter(line, into: sum, outputWidth, starts, counts, weights)
                    } else {
                        filterLattice(
                            line, first: first, step: step, into: sum, starts, counts, weights)
                    }
                }
            }
        }
        var y0 = firstOpen
        while y0 < outputHeight && rows.starts[y0] <= y {
            let tap = y - rows.starts[y0]
            if tap < rows.counts[y0] {
                let weight = rows.values[y0 * rows.stride + tap]
                let target = accumulator + y0 * outputWidth
                for x in 0..<outputWidth { target[x] = target[x] + sum[x] * weight }
            }
            y0 += 1
        }
    }

    /// Writes the scattered sums out as pixels.
    func storeScattered(into target: UnsafeMutableBufferPointer<UInt8>) {
        guard let accumulator else { return }
        for y in 0..<outputHeight {
            store(accumulator + y * outputWidth, row: y, outputWidth, into: target)
        }
    }

    /// `load` for pixels at columns `first + k * step` only; other columns keep stale
    /// values, which `filterLattice` never reads.
    private func loadLattice(
        _ start: UnsafePointer<UInt8>, first: Int, step: Int, count: Int,
        into line: UnsafeMutablePointer<Pixel>
    ) {
        switch channels {
        case 1:
            let out = UnsafeMutableRawPointer(line).assumingMemoryBound(to: Float.self)
            for k in 0..<count { out[first + k * step] = Float(start[k]) }
        case 3:
            let out = UnsafeMutableRawPointer(line).assumingMemoryBound(to: SIMD4<Float>.self)
            for k in 0..<count {
                let p = start + k * 3
                out[first + k * step] = SIMD4(Float(p[0]), Float(p[1]), Float(p[2]), 0)
            }
        default:
            let out = UnsafeMutableRawPointer(line).assumingMemoryBound(to: SIMD4<Float>.self)
            let raw = UnsafeRawPointer(start)
            for k in 0..<count {
                let value = SIMD4<Float>(
                    raw.loadUnaligned(fromByteOffset: k * 4, as: SIMD4<UInt8>.self))
                var factor = SIMD4<Float>(repeating: value[3] * (1 / 255))
                factor[3] = 1
                out[first + k * step] = value * factor
            }
        }
    }

    /// The horizontal pass over the taps that fall on columns `first + k * step`.
    private func filterLattice(
        _ line: UnsafeMutablePointer<Pixel>, first: Int, step: Int,
        into output: UnsafeMutablePointer<Pixel>, _ starts: UnsafeBufferPointer<Int>,
        _ counts: UnsafeBufferPointer<Int>, _ weights: UnsafeBufferPointer<Float>
    ) {
        let stride = columns.stride
        let weightBase = weights.baseAddress!
        for x in 0..<outputWidth {
            let start = starts[x]
            let taps = weightBase + x * stride
            let count = counts[x]
            var tap = ((first - start) % step + step) % step
            var total = Pixel.zero
            while tap < count {
                total = total + line[start + tap] * taps[tap]
                tap += step
            }
            output[x] = total
        }
    }

    var isComplete: Bool { outputRow >= outputHeight }

    func push(_ row: UnsafePointer<UInt8>, into target: UnsafeMutableBufferPointer<UInt8>) {
        let current = sourceRow
        sourceRow += 1
        guard outputRow < outputHeight, current >= rows.starts[outputRow] else { return }
        // Output rows start at non-decreasing source rows and need at most `ringSize` of
        // them, so the slot overwritten here belongs to no row still to be combined.
        let slot = current % ringSize
        load(row, into: line)
        columns.starts.withUnsafeBufferPointer { starts in
            columns.counts.withUnsafeBufferPointer { counts in
                columns.values.withUnsafeBufferPointer { weights in
                    filter(
                        line, into: ring + slot * outputWidth, outputWidth, starts, counts, weights)
                }
            }
        }
        ringRow[slot] = current
        while outputRow < outputHeight
            && rows.starts[outputRow] + rows.counts[outputRow] - 1 <= current
        {
            combine(outputRow, into: target)
            outputRow += 1
        }
    }

    private func combine(_ y: Int, into target: UnsafeMutableBufferPointer<UInt8>) {
        let first = rows.starts[y]
        let count = rows.counts[y]
        sum.initialize(repeating: .zero, count: outputWidth)
        rows.values.withUnsafeBufferPointer { rowWeights in
            for tap in 0..<count {
                let slot = (first + tap) % ringSize
                // A row that never came (a source shorter than announced) adds nothing.
                guard ringRow[slot] == first + tap else { continue }
                let cached = ring + slot * outputWidth
                let weight = rowWeights[y * rows.stride + tap]
                for x in 0..<outputWidth {
                    sum[x] = sum[x] + cached[x] * weight
                }
            }
        }
        store(sum, row: y, outputWidth, into: target)
    }

    /// Converts one source row to floats, premultiplying alpha.
    @inline(__always)
    private func load(_ start: UnsafePointer<UInt8>, into line: UnsafeMutablePointer<Pixel>) {
        switch channels {
        case 1:
            let out = UnsafeMutableRawPointer(line).assumingMemoryBound(to: Float.self)
            for x in 0..<width { out[x] = Float(start[x]) }
        case 3:
            let out = UnsafeMutableRawPointer(line).assumingMemoryBound(to: SIMD4<Float>.self)
            for x in 0..<width {
                let p = start + x * 3
                out[x] = SIMD4(Float(p[0]), Float(p[1]), Float(p[2]), 0)
            }
        default:
            let out = UnsafeMutableRawPointer(line).assumingMemoryBound(to: SIMD4<Float>.self)
            let raw = UnsafeRawPointer(start)
            for x in 0..<width {
                let bytes = raw.loadUnaligned(fromByteOffset: x * 4, as: SIMD4<UInt8>.self)
                let value = SIMD4<Float>(bytes)
                let alpha = value[3]
                var factor = SIMD4<Float>(repeating: alpha * (1 / 255))
                factor[3] = 1
                out[x] = value * factor
            }
        }
    }

    @inline(__always)
    private func filter(
        _ line: UnsafeMutablePointer<Pixel>, into output: UnsafeMutablePointer<Pixel>,
        _ outputWidth: Int, _ starts: UnsafeBufferPointer<Int>, _ counts: UnsafeBufferPointer<Int>,
        _ weights: UnsafeBufferPointer<Float>
    ) {
        let stride = columns.stride
        let weightBase = weights.baseAddress!
        for x in 0..<outputWidth {
            let pixels = line + starts[x]
            let taps = weightBase + x * stride
            let count = counts[x]
            // Four accumulators keep four independent add chains in flight; one chain
            // would wait on the previous addition's latency at every tap.
            var total0 = Pixel.zero
            var total1 = Pixel.zero
            var total2 = Pixel.zero
            var total3 = Pixel.zero
            var tap = 0
            while tap + 4 <= count {
                total0 = total0 + pixels[tap] * taps[tap]
                total1 = total1 + pixels[tap + 1] * taps[tap + 1]
                total2 = total2 + pixels[tap + 2] * taps[tap + 2]
                total3 = total3 + pixels[tap + 3] * taps[tap + 3]
                tap += 4
            }
            while tap < count {
                total0 = total0 + pixels[tap] * taps[tap]
                tap += 1
            }
            output[x] = (total0 + total1) + (total2 + total3)
        }
    }

    @inline(__always)
    private func store(
        _ sum: UnsafeMutablePointer<Pixel>, row: Int, _ outputWidth: Int,
        into target: UnsafeMutableBufferPointer<UInt8>
    ) {
        let out = target.baseAddress! + row * outputWidth * channels
        switch channels {
        case 1:
            let values = UnsafeMutableRawPointer(sum).assumingMemoryBound(to: Float.self)
            for x in 0..<outputWidth { out[x] = clampByte(values[x]) }
        case 3:
            let values = UnsafeMutableRawPointer(sum).assumingMemoryBound(to: SIMD4<Float>.self)
            for x in 0..<outputWidth {
                let v = values[x]
                out[x * 3] = clampByte(v[0])
                out[x * 3 + 1] = clampByte(v[1])
                out[x * 3 + 2] = clampByte(v[2])
            }
        default:
            let values = UnsafeMutableRawPointer(sum).assumingMemoryBound(to: SIMD4<Float>.self)
            for x in 0..<outputWidth {
                let v = values[x]
                let alpha = clampByte(v[3])
                let p = out + x * 4
                if alpha == 0 {
                    // Transparent stays transparent, with no stray colour to bleed later.
                    p[0] = 0
                    p[1] = 0
                    p[2] = 0
                    p[3] = 0
                } else {
                    let factor = 255 / v[3]
                    p[0] = clampByte(v[0] * factor)
                    p[1] = clampByte(v[1] * factor)
                    p[2] = clampByte(v[2] * factor)
                    p[3] = alpha
                }
            }
        }
    }
}

@inline(__always)
func clampByte(_ value: Float) -> UInt8 {
    // NaN compares false and ends up 0.
    let rounded = value + 0.5
    if rounded >= 255 { return 255 }
    if rounded >= 0 { return UInt8(rounded) }
    return 0
}
