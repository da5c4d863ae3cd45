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
