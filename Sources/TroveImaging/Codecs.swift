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
        return (header, ImageMetadata(exif: raw.exif, iccProfile: raw.icc))
    }
}

extension ImageFormat {
    /// Sniffs the format or explains why there is none.
    static func require(_ data: [UInt8]) throws(ImageCodecError) -> ImageFormat {
        if data.isEmpty { throw ImageCodecError(.empty, message: "no bytes") }
        guard let format = ImageFormat(sniffing: data) else {
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
    /// `grey` is set and the file is YCbCr).
    /// - Throws: `ImageCodecError` with libjpeg's message when the data is damaged.
    public static func decode(
        _ data: [UInt8], scaleEighths: Int = 8, grey: Bool = false
    ) throws(ImageCodecError) -> Bitmap {
        precondition((1...8).contains(scaleEighths), "scale is 1...8 eighths")
        return try Native.decodeJPEG(data, scaleEighths: scaleEighths, grey: grey, dcOnly: true)
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
    /// - Throws: `ImageCodecError` with libpng's message (bad CRC, truncation, ...).
    public static func decode(_ data: [UInt8]) throws(ImageCodecError) -> Bitmap {
        try decodeWithMetadata(data).bitmap
    }

    /// Decodes and returns the metadata chunks too (including an eXIf after the pixels).
    static func decodeWithMetadata(
        _ data: [UInt8]
    ) throws(ImageCodecError) -> (bitmap: Bitmap, metadata: ImageMetadata) {
        try Native.decodePNG(data)
    }

    /// Encodes with a fast zlib level (default 2) and optionally an iCCP chunk, no text.
    /// - Throws: `ImageCodecError` when libpng fails.
    public static func encode(
        _ bitmap: Bitmap, compressionLevel: Int = 2, iccProfile: [UInt8]? = nil
    ) throws(ImageCodecError) -> [UInt8] {
        try Native.encode(bitmap, format: .png, parameter: compressionLevel, icc: iccProfile)
    }
}

// MARK: - Calls into CTroveImaging

/// The one place that calls the C codecs and turns their status into `ImageCodecError`.
enum Native {
    static let messageCapacity = 256

    struct RawMetadata {
        var exif: [UInt8]?
        var icc: [UInt8]?
    }

    /// Runs `body` with a message buffer; a non-zero status becomes an error.
    private static func call(
        _ kind: ImageCodecError.Kind, _ format: ImageFormat,
        _ body: (UnsafeMutablePointer<CChar>) -> Int32
    ) throws(ImageCodecError) {
        var message = [CChar](repeating: 0, count: messageCapacity)
        let status = message.withUnsafeMutableBufferPointer { buffer in
            // The buffer is never empty, so baseAddress exists.
            body(buffer.baseAddress!)
        }
        if status != 0 {
            let text = String(
                decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) },
                as: UTF8.self)
            throw ImageCodecError(
                kind, format: format, message: text.isEmpty ? "unknown error" : text)
        }
    }

    private static func copy(_ pointer: UnsafeMutablePointer<UInt8>?, _ count: Int) -> [UInt8]? {
        guard let pointer, count > 0 else { return nil }
        return Array(UnsafeBufferPointer(start: pointer, count: count))
    }

    private static func take(_ metadata: inout ctrove_metadata) -> RawMetadata {
        defer { ctrove_metadata_free(&metadata) }
        return RawMetadata(
            exif: copy(metadata.exif, metadata.exif_length),
            icc: copy(metadata.icc, metadata.icc_length))
    }

    private static func take(
        _ pixels: inout ctrove_pixels, _ format: ImageFormat
    ) throws(ImageCodecError) -> Bitmap {
        defer { ctrove_free(pixels.data) }
        let width = Int(pixels.width)
        let height = Int(pixels.height)
        let channels = Int(pixels.channels)
        guard let data = pixels.data, width > 0, height > 0, [1, 3, 4].contains(channels) else {
            throw ImageCodecError(.corrupt, format: format, message: "decoder returned no pixels")
        }
        let bytes = Array(UnsafeBufferPointer(start: data, count: width * height * channels))
        return Bitmap(width: width, height: height, channels: channels, pixels: bytes)
    }

    static func readHeader(
        _ data: [UInt8], format: ImageFormat
    ) throws(ImageCodecError) -> (ctrove_image_info, RawMetadata) {
        var info = ctrove_image_info()
        var metadata = ctrove_metadata()
        try call(.corrupt, format) { message in
            data.withUnsafeBufferPointer { bytes in
                switch format {
                case .jpeg:
                    ctrove_jpeg_read_header(
                        bytes.baseAddress, bytes.count, &info, &metadata, message,
                        messageCapacity)
                case .png:
                    ctrove_png_read_header(
                        bytes.baseAddress, bytes.count, &info, &metadata, message,
                        messageCapacity)
                }
            }
        }
        return (info, take(&metadata))
    }

    static func decodeJPEG(
        _ data: [UInt8], scaleEighths: Int, grey: Bool, dcOnly: Bool
    ) throws(ImageCodecError) -> Bitmap {
        var pixels = ctrove_pixels()
        try call(.corrupt, .jpeg) { message in
            data.withUnsafeBufferPointer { bytes in
                let decode = dcOnly ? ctrove_jpeg_decode : ctrove_jpeg_decode_full
                return decode(
                    bytes.baseAddress, bytes.count, Int32(scaleEighths), grey ? 1 : 0, &pixels,
                    message, messageCapacity)
            }
        }
        return try take(&pixels, .jpeg)
    }

    static func decodePNG(
        _ data: [UInt8]
    ) throws(ImageCodecError) -> (bitmap: Bitmap, metadata: ImageMetadata) {
        var pixels = ctrove_pixels()
        var metadata = ctrove_metadata()
        try call(.corrupt, .png) { message in
            data.withUnsafeBufferPointer { bytes in
                ctrove_png_decode(
                    bytes.baseAddress, bytes.count, &pixels, &metadata, message, messageCapacity)
            }
        }
        let raw = take(&metadata)
        return (try take(&pixels, .png), ImageMetadata(exif: raw.exif, iccProfile: raw.icc))
    }

    static func encode(
        _ bitmap: Bitmap, format: ImageFormat, parameter: Int, icc: [UInt8]?
    ) throws(ImageCodecError) -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>? = nil
        var length = 0
        let profile = icc ?? []
        try call(.encodingFailed, format) { message in
            bitmap.pixels.withUnsafeBufferPointer { pixels in
                profile.withUnsafeBufferPointer { profileBytes in
                    let iccPointer = profile.isEmpty ? nil : profileBytes.baseAddress
                    switch format {
                    case .jpeg:
                        return ctrove_jpeg_encode(
                            pixels.baseAddress, Int32(bitmap.width), Int32(bitmap.height),
                            Int32(bitmap.channels), Int32(parameter), iccPointer, profile.count,
                            &output, &length, message, messageCapacity)
                    case .png:
                        return ctrove_png_encode(
                            pixels.baseAddress, Int32(bitmap.width), Int32(bitmap.height),
                            Int32(bitmap.channels), Int32(parameter), iccPointer, profile.count,
                            &output, &length, message, messageCapacity)
                    }
                }
            }
        }
        defer { ctrove_free(output) }
        return copy(output, length) ?? []
    }
}
