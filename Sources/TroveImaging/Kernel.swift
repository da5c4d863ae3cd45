import Foundation

// MARK: - Pixels

/// A pixel as the filter sees it: one float for grey, four (RGBA or RGB0) otherwise.
protocol FilterPixel {
    static var zero: Self { get }
    static func + (lhs: Self, rhs: Self) -> Self
    static func * (lhs: Self, rhs: Float) -> Self
    static func * (lhs: Self, rhs: Self) -> Self
    /// `value` in every channel: a weight the filter multiplies a whole pixel by.
    init(broadcast value: Float)
}

extension Float: FilterPixel {
    init(broadcast value: Float) { self = value }
}

extension SIMD4: FilterPixel where Scalar == Float {
    init(broadcast value: Float) { self.init(repeating: value) }
}

/// Alpha's byte to the factor premultiplying the colour channels (alpha itself is
/// multiplied by 1): `broadcast(alpha) * premultiplyScale + premultiplyOne` is
/// `(a / 255, a / 255, a / 255, 1)` exactly, in three vector operations.
private let premultiplyScale = SIMD4<Float>(1 / 255, 1 / 255, 1 / 255, 0)
private let premultiplyOne = SIMD4<Float>(0, 0, 0, 1)

// MARK: - Kernel

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
    /// `columns.values` with each weight in every channel, so the horizontal pass
    /// multiplies whole pixels without spreading a weight at every tap.
    private let columnWeights: UnsafeMutablePointer<Pixel>
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
        columnWeights = .allocate(capacity: max(1, columns.values.count))
        for (index, weight) in columns.values.enumerated() {
            (columnWeights + index).initialize(to: Pixel(broadcast: weight))
        }
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
        columnWeights.deallocate()
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
                        filter(line, into: sum, outputWidth, starts, counts)
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
                let factor =
                    SIMD4<Float>(repeating: value[3]) * premultiplyScale + premultiplyOne
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
                filter(line, into: ring + slot * outputWidth, outputWidth, starts, counts)
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
                let factor =
                    SIMD4<Float>(repeating: value[3]) * premultiplyScale + premultiplyOne
                out[x] = value * factor
            }
        }
    }

    @inline(__always)
    private func filter(
        _ line: UnsafeMutablePointer<Pixel>, into output: UnsafeMutablePointer<Pixel>,
        _ outputWidth: Int, _ starts: UnsafeBufferPointer<Int>, _ counts: UnsafeBufferPointer<Int>
    ) {
        let stride = columns.stride
        let weightBase = columnWeights
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
