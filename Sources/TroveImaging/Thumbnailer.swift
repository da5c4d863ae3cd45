/// An encoded rendition.
public struct RenderedImage: Sendable, Equatable {
    /// The encoded file.
    public var bytes: [UInt8]
    /// Its format (the same as the source's).
    public var format: ImageFormat
    /// Width in pixels, upright.
    public var width: Int
    /// Height in pixels, upright.
    public var height: Int
}

/// A small upright bitmap for analysis, with what the file said about itself.
public struct AnalysisImage: Sendable, Equatable {
    /// The decoded pixels, upright, at least `minimumSide` on the shorter side when the
    /// source is that large.
    public var bitmap: Bitmap
    /// The source's header (stored dimensions).
    public var header: ImageHeader
    /// The source's metadata.
    public var metadata: ImageMetadata
}

/// One requested rendition: a box and how to place the picture in it.
public struct RenditionRequest: Sendable, Equatable {
    /// Box width in pixels.
    public var width: Int
    /// Box height in pixels.
    public var height: Int
    /// `fit` within the box or `cover` it.
    public var mode: ResizeMode

    /// Creates a request.
    public init(width: Int, height: Int, mode: ResizeMode) {
        self.width = width
        self.height = height
        self.mode = mode
    }
}

/// Renders thumbnails and other renditions: sniff, check, shrink on load, resample, encode.
public enum Thumbnailer {
    /// Default refusal threshold: 100 megapixels.
    public static let defaultMaxPixels = 100_000_000

    /// Renders `source` into a box, upright, in the source's format, keeping only the ICC
    /// profile.
    ///
    /// The header is checked against `maxPixels` before any pixel is decoded. JPEGs are
    /// decoded at the smallest DCT scale that still covers the output, then resampled with
    /// Lanczos3; PNG alpha is kept.
    /// - Parameters:
    ///   - quality: JPEG quality 1...100 (ignored for PNG).
    /// - Throws: `ImageCodecError` for empty, unknown, oversized, corrupt or truncated
    ///   input.
    public static func render(
        source: [UInt8], box: (width: Int, height: Int), mode: ResizeMode, quality: Int = 80,
        maxPixels: Int = defaultMaxPixels
    ) throws(ImageCodecError) -> RenderedImage {
        let (bitmap, metadata, format) = try renderBitmap(
            source: source, box: box, mode: mode, maxPixels: maxPixels)
        let profile = metadata.iccProfile.flatMap { profileFits($0, channels: bitmap.channels) }
        let bytes: [UInt8]
        switch format {
        case .jpeg:
            bytes = try JPEG.encode(bitmap, quality: quality, iccProfile: profile)
        case .png:
            bytes = try PNG.encode(bitmap, iccProfile: profile)
        }
        return RenderedImage(
            bytes: bytes, format: format, width: bitmap.width, height: bitmap.height)
    }

    /// Renders several renditions of one source from a single decode.
    ///
    /// JPEGs are decoded once at the smallest DCT scale that covers the largest rendition;
    /// each rendition is then resampled from that decode. Results come in request order.
    /// - Throws: `ImageCodecError` as for `render(source:box:mode:quality:maxPixels:)`.
    public static func render(
        source: [UInt8], renditions: [RenditionRequest], quality: Int = 80,
        maxPixels: Int = defaultMaxPixels
    ) throws(ImageCodecError) -> [RenderedImage] {
        guard !renditions.isEmpty else { return [] }
        for request in renditions where request.width <= 0 || request.height <= 0 {
            throw ImageCodecError(
                .invalidRequest, message: "box \(request.width)x\(request.height) is empty")
        }
        let (header, headerMetadata) = try ImageHeader.readWithMetadata(from: source)
        try check(header, maxPixels: maxPixels)
        var metadata = headerMetadata
        let decoded: Bitmap
        switch header.format {
        case .jpeg:
            let scale =
                plans(for: renditions, width: header.width, height: header.height, metadata)
                .map { jpegScale(width: header.width, height: header.height, plan: $0) }
                .max() ?? 8
            decoded = try JPEG.decode(source, scaleEighths: scale, maxPixels: maxPixels)
        case .png:
            // A late eXIf may change the orientation, so plans are made after the decode.
            (decoded, metadata) = try PNG.decodeWithMetadata(source, maxPixels: maxPixels)
        }
        let profile = metadata.iccProfile.flatMap { profileFits($0, channels: decoded.channels) }
        var results: [RenderedImage] = []
        for plan in plans(for: renditions, width: header.width, height: header.height, metadata) {
            let bitmap = resample(
                decoded, storedWidth: header.width, storedHeight: header.height, plan: plan
            ).applying(metadata.orientation)
            let bytes: [UInt8]
            switch header.format {
            case .jpeg: bytes = try JPEG.encode(bitmap, quality: quality, iccProfile: profile)
            case .png: bytes = try PNG.encode(bitmap, iccProfile: profile)
            }
            results.append(
                RenderedImage(
                    bytes: bytes, format: header.format, width: bitmap.width,
                    height: bitmap.height))
        }
        return results
    }

    /// Plans in stored orientation for upright boxes.
    private static func plans(
        for renditions: [RenditionRequest], width: Int, height: Int, _ metadata: ImageMetadata
    ) -> [ResizePlan] {
        let swaps = metadata.orientation.swapsDimensions
        return renditions.map { request in
            let plan = ResizePlan(
                sourceWidth: swaps ? height : width, sourceHeight: swaps ? width : height,
                boxWidth: request.width, boxHeight: request.height, mode: request.mode)
            return swaps ? plan.transposed : plan
        }
    }

    /// The profile when its colour space (ICC header bytes 16–19) matches the output's
    /// pixels; a CMYK file's profile would misdescribe the RGB it was converted to.
    static func profileFits(_ profile: [UInt8], channels: Int) -> [UInt8]? {
        guard profile.count >= 132 else { return nil }
        let space = String(decoding: profile[16..<20], as: UTF8.self)
        switch channels {
        case 1: return space == "GRAY" ? profile : nil
        default: return space == "RGB " ? profile : nil
        }
    }

    /// Everything `render` does except encoding.
    static func renderBitmap(
        source: [UInt8], box: (width: Int, height: Int), mode: ResizeMode, maxPixels: Int
    ) throws(ImageCodecError) -> (Bitmap, ImageMetadata, ImageFormat) {
        guard box.width > 0, box.height > 0 else {
            throw ImageCodecError(
                .invalidRequest, message: "box \(box.width)x\(box.height) is empty")
        }
        let (header, initialMetadata) = try ImageHeader.readWithMetadata(from: source)
        try check(header, maxPixels: maxPixels)
        var metadata = initialMetadata
        let orientation = metadata.orientation
        // Plan in upright space, then express it in stored space.
        var plan = ResizePlan(
            sourceWidth: orientation.swapsDimensions ? header.height : header.width,
            sourceHeight: orientation.swapsDimensions ? header.width : header.height,
            boxWidth: box.width, boxHeight: box.height, mode: mode)
        if orientation.swapsDimensions { plan = plan.transposed }
        let decoded: Bitmap
        switch header.format {
        case .jpeg:
            let scale = jpegScale(width: header.width, height: header.height, plan: plan)
            let bitmap: Bitmap
            do {
                bitmap = try streamJPEG(
                    source, header: header, scale: scale, plan: plan, dcOnly: true,
                    maxPixels: maxPixels)
            } catch  where scale == 1 {
                // The verdict on a damaged file comes from the original stream.
                bitmap = try streamJPEG(
                    source, header: header, scale: scale, plan: plan, dcOnly: false,
                    maxPixels: maxPixels)
            }
            return (bitmap.applying(orientation), metadata, .jpeg)
        case .png where !header.progressive:
            // Rows go straight from libpng into the resampler: no full-size bitmap.
            let (bitmap, late) = try streamPNG(source, plan: plan, maxPixels: maxPixels)
            if late.orientation != orientation {
                // An eXIf after the pixels changed the orientation: plan again.
                let full = try PNG.decodeWithMetadata(source, maxPixels: maxPixels)
                return try renderDecoded(
                    full.bitmap, metadata: full.metadata, box: box, mode: mode, format: .png)
            }
            return (bitmap.applying(orientation), late, .png)
        case .png:
            let result = try PNG.decodeWithMetadata(source, maxPixels: maxPixels)
            decoded = result.bitmap
            // An eXIf or iCCP may follow the pixels; the full decode saw them.
            metadata = result.metadata
            if metadata.orientation != orientation {
                return try renderDecoded(
                    decoded, metadata: metadata, box: box, mode: mode, format: .png)
            }
        }
        let bitmap = resample(
            decoded, storedWidth: header.width, storedHeight: header.height, plan: plan
        )
        .applying(orientation)
        return (bitmap, metadata, header.format)
    }

    private static func renderDecoded(
        _ decoded: Bitmap, metadata: ImageMetadata, box: (width: Int, height: Int),
        mode: ResizeMode, format: ImageFormat
    ) throws(ImageCodecError) -> (Bitmap, ImageMetadata, ImageFormat) {
        let orientation = metadata.orientation
        var plan = ResizePlan(
            sourceWidth: orientation.swapsDimensions ? decoded.height : decoded.width,
            sourceHeight: orientation.swapsDimensions ? decoded.width : decoded.height,
            boxWidth: box.width, boxHeight: box.height, mode: mode)
        if orientation.swapsDimensions { plan = plan.transposed }
        let bitmap = resample(
            decoded, storedWidth: decoded.width, storedHeight: decoded.height, plan: plan
        ).applying(orientation)
        return (bitmap, metadata, format)
    }

    /// Resamples a JPEG row by row as libjpeg decodes it at `scale`/8.
    private static func streamJPEG(
        _ source: [UInt8], header: ImageHeader, scale: Int, plan: ResizePlan, dcOnly: Bool,
        maxPixels: Int
    ) throws(ImageCodecError) -> Bitmap {
        try Native.streamJPEG(
            source, scaleEighths: scale, dcOnly: dcOnly, maxPixels: maxPixels
        ) { width, height, channels, readRow in
            let region = scaled(
                plan.region, from: (header.width, header.height), to: (width, height))
            return resampleRows(
                width: width, height: height, channels: channels, region: region, plan: plan,
                readRow: readRow)
        }
    }

    /// Pulls rows in order from `readRow` into the resampler; rows outside a crop are
    /// read past, and after a failure (which the caller reports) the rest is zero.
    private static func resampleRows(
        width: Int, height: Int, channels: Int, region: SourceRegion, plan: ResizePlan,
        readRow: (UnsafeMutablePointer<UInt8>) -> Bool
    ) -> Bitmap {
        let row = UnsafeMutablePointer<UInt8>.allocate(capacity: width * channels)
        defer { row.deallocate() }
        var nextRow = 0
        return Resampler.resample(
            sourceWidth: width, sourceHeight: height, channels: channels, region: region,
            width: plan.width, height: plan.height
        ) { wanted in
            while nextRow <= wanted {
                if !readRow(row) {
                    row.initialize(repeating: 0, count: width * channels)
                    nextRow = height
                    break
                }
                nextRow += 1
            }
            return UnsafePointer(row)
        }
    }

    /// A region of the stored image expressed in a smaller decode of it.
    private static func scaled(
        _ region: SourceRegion, from stored: (Int, Int), to decoded: (Int, Int)
    ) -> SourceRegion {
        let sx = Double(decoded.0) / Double(stored.0)
        let sy = Double(decoded.1) / Double(stored.1)
        return SourceRegion(
            x: region.x * sx, y: region.y * sy, width: region.width * sx,
            height: region.height * sy)
    }

    /// Resamples a non-interlaced PNG row by row as libpng decodes it.
    private static func streamPNG(
        _ source: [UInt8], plan: ResizePlan, maxPixels: Int
    ) throws(ImageCodecError) -> (Bitmap, ImageMetadata) {
        try Native.streamPNG(source, maxPixels: maxPixels) { width, height, channels, readRow in
            resampleRows(
                width: width, height: height, channels: channels, region: plan.region,
                plan: plan, readRow: readRow)
        }
    }

    /// Resamples a decode of a `storedWidth`×`storedHeight` image, which may be smaller
    /// than stored after DCT scaling, to the plan.
    private static func resample(
        _ decoded: Bitmap, storedWidth: Int, storedHeight: Int, plan: ResizePlan
    ) -> Bitmap {
        let region = scaled(
            plan.region, from: (storedWidth, storedHeight), to: (decoded.width, decoded.height))
        return Resampler.resample(decoded, region: region, width: plan.width, height: plan.height)
    }

    private static func check(_ header: ImageHeader, maxPixels: Int) throws(ImageCodecError) {
        let (pixels, overflow) = header.width.multipliedReportingOverflow(by: header.height)
        if overflow || pixels > maxPixels || header.width <= 0 || header.height <= 0 {
            throw ImageCodecError(
                .tooManyPixels(width: header.width, height: header.height, limit: maxPixels),
                format: header.format, message: "refused before decoding")
        }
    }

    /// The smallest DCT scale, in eighths, whose decode still covers the plan's output.
    ///
    /// libjpeg rounds scaled dimensions up, as reproduced here.
    public static func jpegScale(width: Int, height: Int, plan: ResizePlan) -> Int {
        for eighths in 1...7 {
            let scaledWidth = (width * eighths + 7) / 8
            let scaledHeight = (height * eighths + 7) / 8
            let coveredWidth = Double(scaledWidth) * plan.region.width / Double(width)
            let coveredHeight = Double(scaledHeight) * plan.region.height / Double(height)
            if coveredWidth + 1e-9 >= Double(plan.width)
                && coveredHeight + 1e-9 >= Double(plan.height)
            {
                return eighths
            }
        }
        return 8
    }

    // MARK: - Analysis

    /// Decodes a small upright bitmap for analysis, shrinking on load.
    ///
    /// JPEGs are decoded at the smallest DCT scale whose shorter side is still at least
    /// `minimumSide`; larger PNGs are resampled down to that. Colour images come back as
    /// RGB or RGBA, greyscale ones as grey.
    /// - Throws: `ImageCodecError` as for `render`.
    public static func decodeForAnalysis(
        _ data: [UInt8], minimumSide: Int, maxPixels: Int = defaultMaxPixels
    ) throws(ImageCodecError) -> AnalysisImage {
        precondition(minimumSide > 0, "minimumSide must be positive")
        let (header, initialMetadata) = try ImageHeader.readWithMetadata(from: data)
        try check(header, maxPixels: maxPixels)
        var metadata = initialMetadata
        var bitmap: Bitmap
        switch header.format {
        case .jpeg:
            let shorter = min(header.width, header.height)
            var scale = 8
            for eighths in 1...8 where (shorter * eighths + 7) / 8 >= minimumSide {
                scale = eighths
                break
            }
            bitmap = try JPEG.decode(data, scaleEighths: scale, maxPixels: maxPixels)
        case .png:
            let shorter = min(header.width, header.height)
            if shorter > minimumSide * 2 && !header.progressive {
                // Large non-interlaced files are shrunk while they stream in.
                let factor = Double(minimumSide) / Double(shorter)
                let plan = ResizePlan(
                    width: max(1, Int((Double(header.width) * factor).rounded())),
                    height: max(1, Int((Double(header.height) * factor).rounded())),
                    region: SourceRegion(
                        x: 0, y: 0, width: Double(header.width), height: Double(header.height)))
                (bitmap, metadata) = try streamPNG(data, plan: plan, maxPixels: maxPixels)
            } else {
                let result = try PNG.decodeWithMetadata(data, maxPixels: maxPixels)
                bitmap = result.bitmap
                metadata = result.metadata
                if shorter > minimumSide * 2 {
                    let factor = Double(minimumSide) / Double(shorter)
                    bitmap = Resampler.resize(
                        bitmap, width: max(1, Int((Double(bitmap.width) * factor).rounded())),
                        height: max(1, Int((Double(bitmap.height) * factor).rounded())))
                }
            }
        }
        return AnalysisImage(
            bitmap: bitmap.applying(metadata.orientation), header: header, metadata: metadata)
    }
}
