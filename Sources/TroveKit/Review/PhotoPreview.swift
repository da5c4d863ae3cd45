import Foundation
import TroveImaging

/// A photo drawn in a terminal with upper-half blocks (`▀`): each character cell shows two
/// pixels, the top one as the foreground colour and the bottom one as the background,
/// in 24-bit or 256-colour ANSI colour.
public enum PhotoPreview {
    /// Which colours the terminal has.
    public enum Palette: Sendable {
        /// `ESC[38;2;r;g;bm`, where `COLORTERM` says the terminal has 24-bit colour.
        case trueColor
        /// The xterm 256-colour palette's 6×6×6 cube and grey ramp.
        case ansi256
    }

    /// The preview lines of the image file at `path`, at most `columns` wide and `rows`
    /// tall; nil when the file cannot be read or decoded.
    public static func lines(
        path: String, columns: Int, rows: Int, palette: Palette = .trueColor
    ) -> [String]? {
        guard columns > 0, rows > 0, let data = try? ImageFile.read(path),
            let image = try? Thumbnailer.decodeForAnalysis(
                data, minimumSide: max(columns, rows * 2))
        else { return nil }
        return lines(bitmap: image.bitmap, columns: columns, rows: rows, palette: palette)
    }

    /// The preview lines of a bitmap (aspect kept; terminal cells are about twice as tall
    /// as wide, which the half blocks make square).
    public static func lines(
        bitmap: Bitmap, columns: Int, rows: Int, palette: Palette = .trueColor
    ) -> [String] {
        guard bitmap.width > 0, bitmap.height > 0 else { return [] }
        let scale = min(
            Double(columns) / Double(bitmap.width), Double(rows * 2) / Double(bitmap.height))
        let width = max(1, Int((Double(bitmap.width) * scale).rounded()))
        let height = max(2, Int((Double(bitmap.height) * scale).rounded()) & ~1)
        let small = Resampler.resize(bitmap, width: width, height: height)
        func pixel(_ x: Int, _ y: Int) -> (UInt8, UInt8, UInt8) {
            let index = (y * small.width + x) * small.channels
            if small.channels < 3 {
                let grey = small.pixels[index]
                return (grey, grey, grey)
            }
            return (small.pixels[index], small.pixels[index + 1], small.pixels[index + 2])
        }
        var lines: [String] = []
        for y in stride(from: 0, to: small.height - 1, by: 2) {
            var line = ""
            for x in 0..<small.width {
                let top = pixel(x, y)
                let bottom = pixel(x, y + 1)
                switch palette {
                case .trueColor:
                    line += "\u{1B}[38;2;\(top.0);\(top.1);\(top.2)m"
                    line += "\u{1B}[48;2;\(bottom.0);\(bottom.1);\(bottom.2)m▀"
                case .ansi256:
                    line += "\u{1B}[38;5;\(index256(top))m\u{1B}[48;5;\(index256(bottom))m▀"
                }
            }
            lines.append(line + "\u{1B}[0m")
        }
        return lines
    }
}

extension PhotoPreview {
    /// The nearest of the 256-colour palette's cube (16–231) or grey ramp (232–255).
    static func index256(_ colour: (UInt8, UInt8, UInt8)) -> Int {
        let (r, g, b) = (Int(colour.0), Int(colour.1), Int(colour.2))
        if abs(r - g) < 10 && abs(g - b) < 10 {
            let grey = (r + g + b) / 3
            if grey < 8 { return 16 }
            if grey > 246 { return 231 }
            return 232 + (grey - 8) * 24 / 239
        }
        func level(_ value: Int) -> Int { value < 48 ? 0 : value < 115 ? 1 : (value - 35) / 40 }
        return 16 + 36 * level(r) + 6 * level(g) + level(b)
    }

    /// The preview without colour (for `NO_COLOR`): one character per cell from a
    /// brightness ramp.
    public static func greyLines(path: String, columns: Int, rows: Int) -> [String]? {
        guard columns > 0, rows > 0, let data = try? ImageFile.read(path),
            let image = try? Thumbnailer.decodeForAnalysis(data, minimumSide: columns)
        else { return nil }
        let bitmap = image.bitmap
        guard bitmap.width > 0, bitmap.height > 0 else { return nil }
        let scale = min(
            Double(columns) / Double(bitmap.width), Double(rows * 2) / Double(bitmap.height))
        let width = max(1, Int((Double(bitmap.width) * scale).rounded()))
        let height = max(1, Int((Double(bitmap.height) * scale / 2).rounded()))
        let small = Resampler.resize(bitmap, width: width, height: height)
        let ramp = Array(" .:-=+*#%@")
        var lines: [String] = []
        for y in 0..<small.height {
            var line = ""
            for x in 0..<small.width {
                let index = (y * small.width + x) * small.channels
                var luma = Double(small.pixels[index])
                if small.channels >= 3 {
                    luma =
                        0.299 * Double(small.pixels[index]) + 0.587
                        * Double(small.pixels[index + 1]) + 0.114 * Double(small.pixels[index + 2])
                }
                line.append(ramp[min(ramp.count - 1, Int(luma / 256 * Double(ramp.count)))])
            }
            lines.append(line)
        }
        return lines
    }
}
