/// The file formats TroveImaging reads and writes.
public enum ImageFormat: String, Sendable, Equatable, CaseIterable {
    case jpeg
    case png

    /// The usual file extension, without a dot.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        }
    }

    /// Recognises a format from the first bytes of a file, ignoring any file name.
    ///
    /// JPEG starts with the SOI marker followed by another marker (`FF D8 FF`); PNG with
    /// its eight-byte signature.
    public init?(sniffing bytes: [UInt8]) {
        if bytes.count >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF {
            self = .jpeg
        } else if bytes.count >= 8
            && bytes[0..<8].elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        {
            self = .png
        } else {
            return nil
        }
    }
}
