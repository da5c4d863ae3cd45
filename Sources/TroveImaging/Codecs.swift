import CTroveImaging

// MARK: - Header

/// What an image header says, read without decoding any pixel.
public struct ImageHeader: Sendable, Equatable {
    /// The file format.
    public var format: ImageFormat
    /// Width in pixels, as stored (before EXIF orientation).
    public var width: Int
    /// Height in pixels, as stored (before EXIF orientation).
    public var height: Int
    /// Whether the image has an alpha channel or PNG transparency.
    public var hasAlpha: Bool
    /// A progressive JPEG or an interlaced PNG.
    public var progressive: Bool

    /// Creates a header.
    public init(format: ImageFormat, width: Int, height: Int, hasAlpha: Bool, progressive: Bool) {
        self.format = format
        self.width = width
        self.height = height
        self.hasAlpha = hasAlpha
        self.progressive = progressive
    }

    /// The number of pixels the header announces.
    public var pixelCount: Int { width * height }

    /// Sniffs the format and reads the header.
    /// - Throws: `ImageCodecError` when the data is empty, not JPEG or PNG, or the header is
    ///   damaged.
    public static func read(from data: [UInt8]) throws(ImageCodecError) -> ImageHeader {
        try readWithMetadata(from: data).header
    }

    /// Reads the header and the metadata stored before the pixels.
    static func readWithMetadata(
        from data: [UInt8]
    ) throws(ImageCodecError) -> (header: ImageHeader, metadata: ImageMetadata) {
        let format = try ImageFormat.require(data)
        let (info, raw) = try Native.readHeader(data, format: format)
        let header = ImageHeader(
            format: format, width: Int(info.width), height: Int(info.height),
            hasAlpha: info.has_alpha != 0, progressive: info.progressive != 0)
        return (header, ImageMetadata(raw))
    }
}

extension ImageFormat {
    /// Sniffs the format or explains why there is none.
    static func require(_ data: [UInt8]) throws(ImageCodecError) -> ImageFormat {
        if data.isEmpty { throw ImageCodecError(.empty, message: "no bytes") }
        guard let format = ImageFormat(sniffing: data) else {
            if let other = FileSignature(sniffing: data) {
                throw ImageCodecError(
                    .unrecognizedFormat, message: "it is \(other.described); \(other.advice)")
            }
            let start = data.prefix(4).map { String($0, radix: 16, uppercase: true) }
            throw ImageCodecError(
                .unrecognizedFormat,
                message: "starts with bytes \(start.joined(separator: " "))")
        }
        return format
    }
}

// MARK: - JPEG

/// JPEG reading and writing through libjpeg-turbo.
public enum JPEG {
    /// Decodes at `scaleEighths`/8 of the stored size (DCT scaling, 1...8).
    ///
    /// Greyscale files give one channel; YCbCr, RGB, CMYK and YCCK give RGB (or grey when
    /// `grey` is set and the file is YCbCr). Files whose header announces more than
    /// `maxPixels` are refused before any allocation.
    /// - Throws: `ImageCodecError` with libjpeg's message when the data is damaged.
    public static func decode(
        _ data: [UInt8], scaleEighths: Int = 8, grey: Bool = false,
        maxPixels: Int = Thumbnailer.defaultMaxPixels
    ) throws(ImageCodecError) -> Bitmap {
        precondition((1...8).contains(scaleEighths), "scale is 1...8 eighths")
        _ = try ImageFormat.require(data)
        return try Native.decodeJPEG(
            data, scaleEighths: scaleEighths, grey: grey, maxPixels: maxPixels)
    }

    /// Encodes a 1- or 3-channel bitmap: baseline, 4:2:0, optimised Huffman tables, the
    /// default JFIF header and optionally an ICC profile, nothing else.
    /// - Throws: `ImageCodecError` when the bitmap has alpha or libjpeg fails.
    public static func encode(
        _ bitmap: Bitmap, quality: Int, iccProfile: [UInt8]? = nil
    ) throws(ImageCodecError) -> [UInt8] {
        guard bitmap.channels != 4 else {
            throw ImageCodecError(
                .invalidRequest, format: .jpeg, message: "JPEG cannot store an alpha channel")
        }
        return try Native.encode(bitmap, format: .jpeg, parameter: quality, icc: iccProfile)
    }
}

// MARK: - PNG

/// PNG reading and writing through libpng.
public enum PNG {
    /// Decodes any PNG to 8 bits per channel: grey stays grey, transparency becomes RGBA,
    /// palettes and 16-bit samples are converted, interlacing is undone.
    /// Files whose header announces more than `maxPixels` are refused before any
    /// allocation.
    /// - Throws: `ImageCodecError` with libpng's message (bad CRC, truncation, ...).
    public static func decode(
        _ data: [UInt8], maxPixels: Int = Thumbnailer.defaultMaxPixels
    ) throws(ImageCodecError) -> Bitmap {
        try decodeWithMetadata(data, maxPixels: maxPixels).bitmap
    }

    /// Decodes and returns the metadata chunks too (including an eXIf after the pixels).
    static func decodeWithMetadata(
        _ data: [UInt8], maxPixels: Int = Thumbnailer.defaultMaxPixels
    ) throws(ImageCodecError) -> (bitmap: Bitmap, metadata: ImageMetadata) {
        _ = try ImageFormat.require(data)
        return try Native.decodePNG(data, maxPixels: maxPixels)
    }

    /// Encodes with a fast zlib level (default 2) and optionally an iCCP chunk, no text.
    /// - Throws: `ImageCodecError` when libpng fails.
    public static func encode(
        _ bitmap: Bitmap, compressionLevel: Int = 2, iccProfile: [UInt8]? = nil
    ) throws(ImageCodecError) -> [UInt8] {
        try Native.encode(bitmap, format: .png, parameter: compressionLevel, icc: iccProfile)
    }
}
