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

/// What a file's first bytes say it is, for files trove does not read: each named, with
/// what to do instead. The one place that knows other formats' signatures, for images
/// and treasure files alike.
public struct FileSignature: Sendable, Equatable {
    /// How messages name the format: `TIFF`, `an Excel workbook (.xlsx)`.
    public var name: String
    /// Whether it is an image format.
    public var isImage: Bool
    /// What to do with such a file.
    public var advice: String

    /// The format of `bytes` (the first 512 or so of a file), or nil when none is known
    /// here (JPEG and PNG, text, gzip, which the readers handle, are not named here).
    public init?(sniffing bytes: some Collection<UInt8>) {
        let b = Array(bytes.prefix(512))
        func at(_ offset: Int, _ signature: [UInt8]) -> Bool {
            b.count >= offset + signature.count
                && b[offset..<offset + signature.count].elementsEqual(signature)
        }
        func contains(_ text: String) -> Bool {
            let needle = Array(text.utf8)
            guard b.count >= needle.count else { return false }
            return (0...(b.count - needle.count)).contains { at($0, needle) }
        }
        let convert = "convert it to PNG or JPEG"
        if at(0, [0x49, 0x49, 0x2A, 0x00]) || at(0, [0x4D, 0x4D, 0x00, 0x2A])
            || at(0, [0x49, 0x49, 0x2B, 0x00]) || at(0, [0x4D, 0x4D, 0x00, 0x2B])
        {
            self.init(name: "TIFF", isImage: true, advice: convert)
        } else if at(0, Array("GIF87a".utf8)) || at(0, Array("GIF89a".utf8)) {
            self.init(name: "GIF", isImage: true, advice: convert)
        } else if at(0, Array("RIFF".utf8)) && at(8, Array("WEBP".utf8)) {
            self.init(name: "WebP", isImage: true, advice: convert)
        } else if at(4, Array("ftyp".utf8)) {
            let brand = b.count >= 12 ? String(decoding: b[8..<12], as: UTF8.self) : ""
            let name =
                ["avif", "avis"].contains(brand)
                ? "AVIF"
                : ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"]
                    .contains(brand) ? "HEIC" : "an ISO media file (\(brand))"
            self.init(name: name, isImage: name != "an ISO media file (\(brand))", advice: convert)
        } else if at(0, [0x42, 0x4D]) && b.count >= 14 {
            self.init(name: "BMP", isImage: true, advice: convert)
        } else if at(0, [0x50, 0x4B, 0x03, 0x04]) || at(0, [0x50, 0x4B, 0x05, 0x06]) {
            if contains("xl/") || contains("[Content_Types].xml") && contains("workbook") {
                self.init(
                    name: "an Excel workbook (.xlsx)", isImage: false,
                    advice: "save it as CSV UTF-8 from Excel (File > Save As), or export CSV")
            } else if contains("application/vnd.oasis.opendocument.spreadsheet") {
                self.init(
                    name: "an OpenDocument spreadsheet (.ods)", isImage: false,
                    advice: "save it as CSV (File > Save As > Text CSV)")
            } else {
                self.init(
                    name: "a zip archive", isImage: false,
                    advice: "unzip it and import the CSV or GeoJSON file inside")
            }
        } else if at(0, [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1]) {
            self.init(
                name: "an Excel 97-2003 workbook (.xls)", isImage: false,
                advice: "save it as CSV UTF-8 from Excel (File > Save As)")
        } else if at(0, Array("%PDF".utf8)) {
            self.init(name: "a PDF document", isImage: false, advice: "export its data as CSV")
        } else if at(0, [0x42, 0x5A, 0x68]) || at(0, [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00])
            || at(0, [0x28, 0xB5, 0x2F, 0xFD]) || at(0, [0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C])
        {
            self.init(
                name: "a compressed file (bzip2, xz, zstd or 7z)", isImage: false,
                advice: "decompress it first, or recompress it with gzip, which trove reads")
        } else if at(0, Array("SQLite format 3".utf8)) {
            self.init(
                name: "an SQLite database", isImage: false,
                advice: "export its table as CSV (sqlite3 -csv -header)")
        } else {
            return nil
        }
    }

    init(name: String, isImage: Bool, advice: String) {
        self.name = name
        self.isImage = isImage
        self.advice = advice
    }

    /// `a TIFF image`, `an Excel workbook (.xlsx)`.
    public var described: String {
        guard isImage else { return name }
        return
            (["A", "E", "I", "O", "U"].contains(name.prefix(1))
            ? "an " : "a ") + name + " image"
    }
}
