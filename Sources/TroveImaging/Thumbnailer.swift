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
        let bytes: [UInt8]
        switch format {
        case .jpeg:
            bytes = try JPEG.encode(bitmap, quality: quality, iccProfile: metadata.iccProfile)
        case .png:
            bytes = try PNG.encode(bitmap, iccProfile: metadata.iccProfile)
        }
        return RenderedImage(
            bytes: bytes, format: format, width: bitmap.width, height: bitmap.height)
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
            decoded = try JPEG.decode(source, scaleEighths: scale)
        case .png:
            let result = try PNG.decodeWithMetadata(source)
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

    /// Resamples a decode of a `storedWidth`×`storedHeight` image, which may be smaller
    /// than stored after DCT scaling, to the plan.
    private static func resample(
        _ decoded: Bitmap, storedWidth: Int, storedHeight: Int, plan: ResizePlan
    ) -> Bitmap {
        let sx = Double(decoded.width) / Double(storedWidth)
        let sy = Double(decoded.height) / Double(storedHeight)
        let region = SourceRegion(
            x: plan.region.x * sx, y: plan.region.y * sy, width: plan.region.width * sx,
            height: plan.region.height * sy)
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
            bitmap = try JPEG.decode(data, scaleEighths: scale)
        case .png:
            let result = try PNG.decodeWithMetadata(data)
            bitmap = result.bitmap
            metadata = result.metadata
            let shorter = min(bitmap.width, bitmap.height)
            if shorter > minimumSide * 2 {
                let factor = Double(minimumSide) / Double(shorter)
                bitmap = Resampler.resize(
                    bitmap, width: max(1, Int((Double(bitmap.width) * factor).rounded())),
                    height: max(1, Int((Double(bitmap.height) * factor).rounded())))
            }
        }
        return AnalysisImage(
            bitmap: bitmap.applying(metadata.orientation), header: header, metadata: metadata)
    }
}
