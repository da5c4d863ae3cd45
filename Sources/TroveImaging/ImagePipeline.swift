/// The one decode path of every caller (renditions, the review sheet, analysis, checks).
///
/// A source is decoded once, as a stream of rows: JPEG at the DCT scale the plans need,
/// PNG row by row; the rows feed one resampler per plan, so memory stays at a few rows
/// whatever the source size. Interlaced PNGs complete no row before their last pass, so
/// each pass's pixels go straight into the resamplers' output sums instead (the filter is
/// linear): memory is a float image of each output's size, never the source's.
///
/// Metadata decides the orientation, and a PNG may carry it after its pixels (a late
/// eXIf or text chunk). The rule, for every caller: plan with what came before the pixels,
/// and when what came after changes the plans, stream the file once more with the new
/// ones.
enum ImagePipeline {
    struct Decoded {
        /// One upright bitmap per plan, in plan order.
        var bitmaps: [Bitmap]
        var header: ImageHeader
        /// Everything the file said about itself, after the pixels included.
        var metadata: ImageMetadata
    }

    /// Plans in stored orientation for a header and an orientation, and the JPEG DCT scale
    /// (in eighths) to decode at; PNGs ignore the scale.
    typealias Planner = (ImageHeader, ImageOrientation) -> (plans: [ResizePlan], scale: Int)

    static func decode(
        _ source: [UInt8], maxPixels: Int, planner: Planner
    ) throws(ImageCodecError) -> Decoded {
        let (header, early) = try ImageHeader.readWithMetadata(from: source)
        try Thumbnailer.check(header, maxPixels: maxPixels)
        let first = planner(header, early.orientation)
        var (bitmaps, metadata) = try run(
            source, header, first.plans, first.scale, maxPixels: maxPixels)
        let final = metadata ?? early
        if final.orientation != early.orientation {
            let second = planner(header, final.orientation)
            if second.plans != first.plans || second.scale != first.scale {
                (bitmaps, _) = try run(
                    source, header, second.plans, second.scale, maxPixels: maxPixels)
            }
        }
        return Decoded(
            bitmaps: bitmaps.map { $0.applying(final.orientation) }, header: header,
            metadata: final)
    }

    /// One pass over the file; returns the stored-orientation bitmaps and, for PNG, the
    /// metadata of the whole file.
    private static func run(
        _ source: [UInt8], _ header: ImageHeader, _ plans: [ResizePlan], _ scale: Int,
        maxPixels: Int
    ) throws(ImageCodecError) -> ([Bitmap], ImageMetadata?) {
        let stored = (header.width, header.height)
        switch header.format {
        case .jpeg:
            let bitmaps = try Native.streamJPEG(
                source, scaleEighths: scale, maxPixels: maxPixels
            ) { width, height, channels, readRow in
                feed(
                    width: width, height: height, channels: channels,
                    regions: plans.map { scaled($0.region, from: stored, to: (width, height)) },
                    plans: plans, readRow: readRow)
            }
            return (bitmaps, nil)
        case .png where !header.progressive:
            let (bitmaps, metadata) = try Native.streamPNG(source, maxPixels: maxPixels) {
                width, height, channels, readRow in
                feed(
                    width: width, height: height, channels: channels,
                    regions: plans.map(\.region), plans: plans, readRow: readRow)
            }
            return (bitmaps, metadata)
        case .png:
            let (bitmaps, metadata) = try Native.streamPNG(source, maxPixels: maxPixels) {
                width, height, channels, readRow in
                feedPasses(
                    width: width, height: height, channels: channels, plans: plans,
                    readRow: readRow)
            }
            return (bitmaps, metadata)
        }
    }

    /// Adam7: first column, first row, column step and row step of each pass.
    static let adam7: [(x: Int, y: Int, dx: Int, dy: Int)] = [
        (0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2),
        (0, 1, 1, 2),
    ]

    /// `feed` for an interlaced PNG: pulls the rows of every pass (as
    /// ctrove_png_stream_read_rows gives them) and scatters their pixels into every
    /// resampler.
    private static func feedPasses(
        width: Int, height: Int, channels: Int, plans: [ResizePlan],
        readRow: (UnsafeMutablePointer<UInt8>) -> Bool
    ) -> [Bitmap] {
        let resamplers = plans.map { plan in
            RowResampler(
                sourceWidth: width, sourceHeight: height, channels: channels,
                region: plan.region, width: plan.width, height: plan.height, scattered: true)
        }
        let row = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, width * channels))
        defer { row.deallocate() }
        passes: for pass in adam7 {
            // libpng skips passes without pixels, as PNG_PASS_COLS and PNG_PASS_ROWS do.
            let columns = (width - pass.x + pass.dx - 1) / pass.dx
            let rows = (height - pass.y + pass.dy - 1) / pass.dy
            guard columns > 0, rows > 0 else { continue }
            for index in 0..<rows {
                guard readRow(row) else { break passes }
                for resampler in resamplers {
                    resampler.pushPass(
                        UnsafePointer(row), y: pass.y + index * pass.dy, first: pass.x,
                        step: pass.dx, count: columns)
                }
            }
        }
        return resamplers.map { $0.finish() }
    }

    /// Pulls rows in order from `readRow` and pushes each into every resampler that still
    /// needs it; stops pulling once all are done (the decoder checks the rest itself).
    private static func feed(
        width: Int, height: Int, channels: Int, regions: [SourceRegion], plans: [ResizePlan],
        readRow: (UnsafeMutablePointer<UInt8>) -> Bool
    ) -> [Bitmap] {
        let resamplers = zip(regions, plans).map { region, plan in
            RowResampler(
                sourceWidth: width, sourceHeight: height, channels: channels, region: region,
                width: plan.width, height: plan.height)
        }
        let row = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, width * channels))
        defer { row.deallocate() }
        for _ in 0..<height {
            if resamplers.allSatisfy(\.isComplete) || !readRow(row) { break }
            for resampler in resamplers where !resampler.isComplete {
                resampler.push(UnsafePointer(row))
            }
        }
        return resamplers.map { $0.finish() }
    }

    /// A region of the stored image expressed in a smaller decode of it; the whole image
    /// stays exactly the whole decode.
    static func scaled(
        _ region: SourceRegion, from stored: (Int, Int), to decoded: (Int, Int)
    ) -> SourceRegion {
        if region
            == SourceRegion(x: 0, y: 0, width: Double(stored.0), height: Double(stored.1))
        {
            return SourceRegion(
                x: 0, y: 0, width: Double(decoded.0), height: Double(decoded.1))
        }
        let sx = Double(decoded.0) / Double(stored.0)
        let sy = Double(decoded.1) / Double(stored.1)
        return SourceRegion(
            x: region.x * sx, y: region.y * sy, width: region.width * sx,
            height: region.height * sy)
    }
}
