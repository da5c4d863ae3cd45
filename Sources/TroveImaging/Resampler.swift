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
        let columns = Weights(
            sourceSize: bitmap.width, origin: region.x, span: region.width, outputSize: width)
        let rows = Weights(
            sourceSize: bitmap.height, origin: region.y, span: region.height, outputSize: height)
        var output = [UInt8](repeating: 0, count: width * height * bitmap.channels)
        bitmap.pixels.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                switch bitmap.channels {
                case 1:
                    Kernel<Float>(source, bitmap, columns, rows, target).run()
                default:
                    Kernel<SIMD4<Float>>(source, bitmap, columns, rows, target).run()
                }
            }
        }
        return Bitmap(width: width, height: height, channels: bitmap.channels, pixels: output)
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

/// The two passes over unsafe buffers, so the inner loops carry no bounds checks.
struct Kernel<Pixel: FilterPixel> {
    let source: UnsafeBufferPointer<UInt8>
    let width: Int
    let channels: Int
    let columns: Weights
    let rows: Weights
    let target: UnsafeMutableBufferPointer<UInt8>

    init(
        _ source: UnsafeBufferPointer<UInt8>, _ bitmap: Bitmap, _ columns: Weights,
        _ rows: Weights, _ target: UnsafeMutableBufferPointer<UInt8>
    ) {
        self.source = source
        self.width = bitmap.width
        self.channels = bitmap.channels
        self.columns = columns
        self.rows = rows
        self.target = target
    }

    func run() {
        let outputWidth = columns.starts.count
        let outputHeight = rows.starts.count
        // The ring holds every source row that one output row needs.
        let ringSize = rows.stride
        let line = UnsafeMutablePointer<Pixel>.allocate(capacity: width)
        let ring = UnsafeMutablePointer<Pixel>.allocate(capacity: ringSize * outputWidth)
        let sum = UnsafeMutablePointer<Pixel>.allocate(capacity: outputWidth)
        var ringRow = [Int](repeating: -1, count: ringSize)
        defer {
            line.deallocate()
            ring.deallocate()
            sum.deallocate()
        }
        columns.starts.withUnsafeBufferPointer { columnStarts in
            columns.counts.withUnsafeBufferPointer { columnCounts in
                columns.values.withUnsafeBufferPointer { columnWeights in
                    rows.values.withUnsafeBufferPointer { rowWeights in
                        for y in 0..<outputHeight {
                            let first = rows.starts[y]
                            let count = rows.counts[y]
                            sum.initialize(repeating: .zero, count: outputWidth)
                            for tap in 0..<count {
                                let sourceRow = first + tap
                                let slot = sourceRow % ringSize
                                let cached = ring + slot * outputWidth
                                if ringRow[slot] != sourceRow {
                                    load(row: sourceRow, into: line)
                                    filter(
                                        line, into: cached, outputWidth, columnStarts,
                                        columnCounts, columnWeights)
                                    ringRow[slot] = sourceRow
                                }
                                let weight = rowWeights[y * rows.stride + tap]
                                for x in 0..<outputWidth {
                                    sum[x] = sum[x] + cached[x] * weight
                                }
                            }
                            store(sum, row: y, outputWidth)
                        }
                    }
                }
            }
        }
    }

    /// Converts one source row to floats, premultiplying alpha.
    @inline(__always)
    private func load(row: Int, into line: UnsafeMutablePointer<Pixel>) {
        let start = source.baseAddress! + row * width * channels
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
            for x in 0..<width {
                let p = start + x * 4
                let alpha = Float(p[3])
                let factor = alpha * (1 / 255)
                out[x] = SIMD4(
                    Float(p[0]) * factor, Float(p[1]) * factor, Float(p[2]) * factor, alpha)
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
            var total = Pixel.zero
            for tap in 0..<counts[x] {
                total = total + pixels[tap] * taps[tap]
            }
            output[x] = total
        }
    }

    @inline(__always)
    private func store(_ sum: UnsafeMutablePointer<Pixel>, row: Int, _ outputWidth: Int) {
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
