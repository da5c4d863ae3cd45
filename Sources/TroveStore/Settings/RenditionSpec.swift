import Foundation

/// One rendition the apps download: a name, a box and how the picture fills it.
public struct RenditionSpec: Equatable, Sendable {
    public var name: String
    public var width: Int
    public var height: Int
    public var mode: Mode

    /// How the picture fills the box; never enlarged either way.
    public enum Mode: String, Sendable, Equatable {
        /// Entirely inside the box, aspect kept.
        case fit
        /// Fills the box, aspect kept, centre cropped.
        case cover
    }

    public init(name: String, width: Int, height: Int, mode: Mode = .fit) {
        self.name = name
        self.width = width
        self.height = height
        self.mode = mode
    }

    /// Treasure artwork: the AR view, callouts and map pins.
    public static let treasureDefaults = [
        RenditionSpec(name: "full", width: 1024, height: 1024),
        RenditionSpec(name: "thumb", width: 256, height: 256),
        RenditionSpec(name: "pin", width: 100, height: 100, mode: .cover),
    ]

    /// Post photos: the detail view and the list.
    public static let postDefaults = [
        RenditionSpec(name: "full", width: 1600, height: 1600),
        RenditionSpec(name: "thumb", width: 256, height: 256),
    ]

    /// `thumb=256x256` or `pin=100x100:cover`.
    public var text: String {
        "\(name)=\(width)x\(height)" + (mode == .cover ? ":cover" : "")
    }

    /// Parses `NAME=WxH[:fit|cover]`; nil with a reason when malformed.
    public static func parse(_ text: String) -> Result<RenditionSpec, RenditionSpecError> {
        let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, !parts[0].isEmpty,
            parts[0].utf8.allSatisfy({ isNameByte($0) })
        else {
            return .failure(
                RenditionSpecError(text: text, reason: "expected NAME=WxH[:fit|cover]"))
        }
        let sizeAndMode = parts[1].split(separator: ":", maxSplits: 1).map(String.init)
        let size = sizeAndMode[0].lowercased().split(separator: "x").map { Int($0) }
        guard size.count == 2, let width = size[0], let height = size[1],
            (1...16384).contains(width), (1...16384).contains(height)
        else {
            return .failure(
                RenditionSpecError(text: text, reason: "the size must be WxH, each 1 to 16384"))
        }
        var mode = Mode.fit
        if sizeAndMode.count == 2 {
            guard let parsed = Mode(rawValue: sizeAndMode[1].lowercased()) else {
                return .failure(RenditionSpecError(text: text, reason: "the mode is fit or cover"))
            }
            mode = parsed
        }
        return .success(RenditionSpec(name: parts[0], width: width, height: height, mode: mode))
    }

    /// Parses a comma-separated list, as stored in `renditions.treasures`.
    public static func parseList(_ text: String) -> Result<[RenditionSpec], RenditionSpecError> {
        var specs: [RenditionSpec] = []
        for item in text.split(separator: ",") {
            switch parse(item.trimmingCharacters(in: .whitespaces)) {
            case .success(let spec):
                if specs.contains(where: { $0.name == spec.name }) {
                    return .failure(
                        RenditionSpecError(
                            text: String(item), reason: "\(spec.name) is named twice"))
                }
                specs.append(spec)
            case .failure(let error): return .failure(error)
            }
        }
        if specs.isEmpty {
            return .failure(RenditionSpecError(text: text, reason: "no renditions given"))
        }
        return .success(specs)
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte)
            || (0x61...0x7A).contains(byte) || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: "_")
    }
}

/// A rendition setting that cannot be read.
public struct RenditionSpecError: Error, Equatable, CustomStringConvertible {
    public var text: String
    public var reason: String

    public var description: String { "invalid rendition '\(text)': \(reason)" }
}
