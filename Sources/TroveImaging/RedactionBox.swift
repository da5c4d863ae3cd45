import Foundation

/// A region of a photo to hide in what is published (a face, a number plate), as
/// fractions of the upright image: `x` and `y` of its top left corner, `width` and
/// `height`, each between 0 and 1. Fractions hold for every rendition whatever its size.
public struct RedactionBox: Equatable, Hashable, Sendable {
    /// Left edge, 0...1 of the upright image's width.
    public var x: Double
    /// Top edge, 0...1 of the upright image's height.
    public var y: Double
    /// Width, a fraction of the image's width.
    public var width: Double
    /// Height, a fraction of the image's height.
    public var height: Double

    /// A box from its fractions, rounded to four decimals (a tenth of a per mille: finer
    /// than any pixel a moderator points at).
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = Self.rounded(x)
        self.y = Self.rounded(y)
        self.width = Self.rounded(width)
        self.height = Self.rounded(height)
    }

    private static func rounded(_ value: Double) -> Double {
        (value * 10_000).rounded() / 10_000
    }

    /// Parses `x,y,w,h` (fractions of the image); nil with what is wrong otherwise.
    public static func parse(_ text: some StringProtocol) -> Result<RedactionBox, BoxError> {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 4 else {
            return .failure(BoxError("'\(text)' is not x,y,w,h (four numbers)"))
        }
        var numbers: [Double] = []
        for part in parts {
            let trimmed = part.trimmingCharacters(in: .whitespaces)
            guard let number = Double(trimmed), number.isFinite else {
                return .failure(BoxError("'\(trimmed)' in '\(text)' is not a number"))
            }
            numbers.append(number)
        }
        let box = RedactionBox(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3])
        guard numbers.allSatisfy({ (0...1).contains($0) }) else {
            return .failure(
                BoxError(
                    "'\(text)' has a number outside 0...1: x,y,w,h are fractions of the image"))
        }
        guard box.width > 0, box.height > 0 else {
            return .failure(BoxError("'\(text)' is empty: its width and height must be above 0"))
        }
        guard box.x + box.width <= 1.0001, box.y + box.height <= 1.0001 else {
            return .failure(BoxError("'\(text)' reaches past the image's right or bottom edge"))
        }
        return .success(box)
    }

    /// What is wrong with a box's text.
    public struct BoxError: Error, CustomStringConvertible, Sendable {
        public var description: String
        /// What is wrong, said to the one who gave the box.
        public init(_ description: String) { self.description = description }
    }

    /// `x,y,w,h` with up to four decimals.
    public var text: String {
        [x, y, width, height].map(Self.format).joined(separator: ",")
    }

    private static func format(_ value: Double) -> String {
        var text = String(format: "%.4f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// Boxes as stored and hashed: each `x,y,w,h`, sorted, joined by `;`; nil for none.
    public static func canonical(_ boxes: [RedactionBox]) -> String? {
        guard !boxes.isEmpty else { return nil }
        return Set(boxes.map(\.text)).sorted().joined(separator: ";")
    }

    /// The boxes of `canonical` text (unreadable parts are left out).
    public static func boxes(_ canonical: String?) -> [RedactionBox] {
        guard let canonical else { return [] }
        return canonical.split(separator: ";").compactMap { try? parse($0).get() }
    }

    /// The part of the box inside `region` (pixels of a `width` by `height` image), as
    /// fractions of the region; nil when the box lies outside it.
    func within(_ region: SourceRegion, width: Int, height: Int) -> RedactionBox? {
        let left = max(x * Double(width), region.x)
        let top = max(y * Double(height), region.y)
        let right = min((x + self.width) * Double(width), region.x + region.width)
        let bottom = min((y + self.height) * Double(height), region.y + region.height)
        guard right > left, bottom > top else { return nil }
        var box = self
        box.x = (left - region.x) / region.width
        box.y = (top - region.y) / region.height
        box.width = (right - left) / region.width
        box.height = (bottom - top) / region.height
        return box
    }

    /// The box in pixels of a `width` by `height` image, at least one pixel, inside it.
    public func pixels(width: Int, height: Int) -> (x: Int, y: Int, width: Int, height: Int) {
        let left = min(width - 1, max(0, Int((x * Double(width)).rounded(.down))))
        let top = min(height - 1, max(0, Int((y * Double(height)).rounded(.down))))
        let right = min(width, max(left + 1, Int(((x + self.width) * Double(width)).rounded(.up))))
        let bottom = min(
            height, max(top + 1, Int(((y + self.height) * Double(height)).rounded(.up))))
        return (left, top, right - left, bottom - top)
    }
}

extension Bitmap {
    /// The bitmap with every box pixelated beyond recovery: each box is cut into blocks
    /// of a quarter of its shorter side (at least 4 pixels, so at most 4 blocks across
    /// that side), and every pixel of a block takes the block's mean. The detail inside
    /// is averaged away, not hidden: no pixel of the result keeps an original value of a
    /// pattern finer than a block.
    public func redacting(_ boxes: [RedactionBox]) -> Bitmap {
        guard !boxes.isEmpty else { return self }
        var result = self
        for box in boxes {
            let area = box.pixels(width: width, height: height)
            let block = max(4, (min(area.width, area.height) + 3) / 4)
            var top = area.y
            while top < area.y + area.height {
                let bottom = min(area.y + area.height, top + block)
                var left = area.x
                while left < area.x + area.width {
                    let right = min(area.x + area.width, left + block)
                    result.fill(x: left..<right, y: top..<bottom)
                    left = right
                }
                top = bottom
            }
        }
        return result
    }

    /// Sets every pixel of the rectangle to its mean.
    private mutating func fill(x: Range<Int>, y: Range<Int>) {
        var sums = [Int](repeating: 0, count: channels)
        for row in y {
            for column in x {
                let offset = (row * width + column) * channels
                for channel in 0..<channels { sums[channel] += Int(pixels[offset + channel]) }
            }
        }
        let count = x.count * y.count
        let mean = sums.map { UInt8(($0 + count / 2) / count) }
        for row in y {
            for column in x {
                let offset = (row * width + column) * channels
                for channel in 0..<channels { pixels[offset + channel] = mean[channel] }
            }
        }
    }
}
