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
        let request = RenditionRequest(width: box.width, height: box.height, mode: mode)
        return try render(
            source: source, renditions: [request], quality: quality, maxPixels: maxPixels)[0]
    }

    /// Renders several renditions of one source from a single decode.
    ///
    /// JPEGs are decoded once at the smallest DCT scale that covers the largest rendition;
    /// the rows of that decode feed every rendition's resampler as they come, so no
    /// full-size bitmap is held. Results come in request order. The `redaction` boxes
    /// (fractions of the upright image) are pixelated in every rendition before it is
    /// encoded (`Bitmap.redacting`); the source is only read.
    /// - Throws: `ImageCodecError` as for `render(source:box:mode:quality:maxPixels:)`.
    public static func render(
        source: [UInt8], renditions: [RenditionRequest], quality: Int = 80,
        maxPixels: Int = defaultMaxPixels, redaction: [RedactionBox] = []
    ) throws(ImageCodecError) -> [RenderedImage] {
        guard !renditions.isEmpty else { return [] }
        for request in renditions where request.width <= 0 || request.height <= 0 {
            throw ImageCodecError(
                .invalidRequest, message: "box \(request.width)x\(request.height) is empty")
        }
        let decoded = try ImagePipeline.decode(source, maxPixels: maxPixels) {
            header, orientation in
            let plans = plans(
                for: renditions, width: header.width, height: header.height, orientation)
            let scale =
                plans.map { jpegScale(width: header.width, height: header.height, plan: $0) }
                .max() ?? 8
            return (plans, scale)
        }
        var results: [RenderedImage] = []
        let swaps = decoded.metadata.orientation.swapsDimensions
        let upright = (
            width: swaps ? decoded.header.height : decoded.header.width,
            height: swaps ? decoded.header.width : decoded.header.height
        )
        for (request, output) in zip(renditions, decoded.bitmaps) {
            // The boxes in what the rendition shows: a cover rendition is a crop.
            let region = ResizePlan(
                sourceWidth: upright.width, sourceHeight: upright.height,
                boxWidth: request.width, boxHeight: request.height, mode: request.mode
            ).region
            let bitmap = output.redacting(
                redaction.compactMap {
                    $0.within(region, width: upright.width, height: upright.height)
                })
            let profile = decoded.metadata.iccProfile.flatMap {
                profileFits($0, channels: bitmap.channels)
            }
            let bytes: [UInt8]
            switch decoded.header.format {
            case .jpeg: bytes = try JPEG.encode(bitmap, quality: quality, iccProfile: profile)
            case .png: bytes = try PNG.encode(bitmap, iccProfile: profile)
            }
            results.append(
                RenderedImage(
                    bytes: bytes, format: decoded.header.format, width: bitmap.width,
                    height: bitmap.height))
        }
        return results
    }

    /// Everything `render` does for one box except encoding.
    static func renderBitmap(
        source: [UInt8], box: (width: Int, height: Int), mode: ResizeMode, maxPixels: Int
    ) throws(ImageCodecError) -> (Bitmap, ImageMetadata, ImageFormat) {
        guard box.width > 0, box.height > 0 else {
            throw ImageCodecError(
                .invalidRequest, message: "box \(box.width)x\(box.height) is empty")
        }
        let request = RenditionRequest(width: box.width, height: box.height, mode: mode)
        let decoded = try ImagePipeline.decode(source, maxPixels: maxPixels) {
            header, orientation in
            let plans = plans(
                for: [request], width: header.width, height: header.height, orientation)
            return (plans, jpegScale(width: header.width, height: header.height, plan: plans[0]))
        }
        return (decoded.bitmaps[0], decoded.metadata, decoded.header.format)
    }

    /// Checks that `render` would accept the file, at the least cost: header, pixel limit,
    /// and every byte of the pixel data decoded (JPEG at 1/8, PNG rows discarded as read),
    /// so that `validate` and `images` never disagree about a file.
    /// - Throws: `ImageCodecError` as `render` would.
    public static func verify(
        _ data: [UInt8], maxPixels: Int = defaultMaxPixels
    ) throws(ImageCodecError) -> ImageHeader {
        let header = try ImageHeader.read(from: data)
        try check(header, maxPixels: maxPixels)
        switch header.format {
        case .jpeg:
            _ = try Native.streamJPEG(data, scaleEighths: 1, maxPixels: maxPixels) {
                _, _, _, _ in 0
            }
        case .png:
            try Native.verifyPNG(data)
        }
        return header
    }

    /// Plans in stored orientation for upright boxes.
    private static func plans(
        for renditions: [RenditionRequest], width: Int, height: Int,
        _ orientation: ImageOrientation
    ) -> [ResizePlan] {
        let swaps = orientation.swapsDimensions
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

    static func check(_ header: ImageHeader, maxPixels: Int) throws(ImageCodecError) {
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
        let decoded = try ImagePipeline.decode(data, maxPixels: maxPixels) { header, _ in
            let whole = SourceRegion(
                x: 0, y: 0, width: Double(header.width), height: Double(header.height))
            let shorter = min(header.width, header.height)
            switch header.format {
            case .jpeg:
                var scale = 8
                for eighths in 1...8 where (shorter * eighths + 7) / 8 >= minimumSide {
                    scale = eighths
                    break
                }
                // The DCT-scaled decode itself, not resampled.
                let plan = ResizePlan(
                    width: (header.width * scale + 7) / 8,
                    height: (header.height * scale + 7) / 8, region: whole)
                return ([plan], scale)
            case .png:
                guard shorter > minimumSide * 2 else {
                    return (
                        [ResizePlan(width: header.width, height: header.height, region: whole)], 8
                    )
                }
                let factor = Double(minimumSide) / Double(shorter)
                let plan = ResizePlan(
                    width: max(1, Int((Double(header.width) * factor).rounded())),
                    height: max(1, Int((Double(header.height) * factor).rounded())),
                    region: whole)
                return ([plan], 8)
            }
        }
        return AnalysisImage(
            bitmap: decoded.bitmaps[0], header: decoded.header, metadata: decoded.metadata)
    }
}
