import CTroveImaging

// MARK: - Calls into CTroveImaging

/// The one place that calls the C codecs and turns their status into `ImageCodecError`.
enum Native {
    static let messageCapacity = 256

    struct RawMetadata {
        var exif: [UInt8]?
        var xmp: [UInt8]?
        var exifText: [UInt8]?
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
            xmp: copy(metadata.xmp, metadata.xmp_length),
            exifText: copy(metadata.exif_text, metadata.exif_text_length),
            icc: copy(metadata.icc, metadata.icc_length))
    }

    static func readHeader(
        _ data: [UInt8], format: ImageFormat, metadata wanted: Bool = true
    ) throws(ImageCodecError) -> (ctrove_image_info, RawMetadata) {
        var info = ctrove_image_info()
        var metadata = ctrove_metadata()
        try call(.corrupt, format) { message in
            data.withUnsafeBufferPointer { bytes in
                withUnsafeMutablePointer(to: &metadata) { metadataPointer in
                    let target = wanted ? metadataPointer : nil
                    switch format {
                    case .jpeg:
                        return ctrove_jpeg_read_header(
                            bytes.baseAddress, bytes.count, &info, target, message,
                            messageCapacity)
                    case .png:
                        return ctrove_png_read_header(
                            bytes.baseAddress, bytes.count, &info, target, message,
                            messageCapacity)
                    }
                }
            }
        }
        return (info, take(&metadata))
    }

    /// Decodes straight into a Swift array sized from the header, so pixels are never
    /// copied.
    private static func decodeInto(
        _ format: ImageFormat, width: Int, height: Int, channels: Int,
        _ body: (UnsafeMutablePointer<UInt8>, Int, UnsafeMutablePointer<CChar>) -> Int32
    ) throws(ImageCodecError) -> Bitmap {
        let (area, overflow1) = width.multipliedReportingOverflow(by: height)
        let (count, overflow2) = area.multipliedReportingOverflow(by: channels)
        guard width > 0, height > 0, !overflow1, !overflow2, count < Int(Int32.max) * 4 else {
            throw ImageCodecError(
                .corrupt, format: format, message: "unusable dimensions \(width)x\(height)")
        }
        var failure: ImageCodecError?
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            do throws(ImageCodecError) {
                try call(.corrupt, format) { message in
                    // A non-empty buffer always has a base address.
                    body(buffer.baseAddress!, count, message)
                }
                initialized = count
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        return Bitmap(width: width, height: height, channels: channels, pixels: pixels)
    }

    /// Refuses headers over the pixel limit, so that no allocation can exhaust memory.
    static func checkLimit(
        _ info: ctrove_image_info, _ format: ImageFormat, _ maxPixels: Int
    ) throws(ImageCodecError) {
        let width = Int(info.width)
        let height = Int(info.height)
        if width <= 0 || height <= 0 || width * height > maxPixels {
            throw ImageCodecError(
                .tooManyPixels(width: width, height: height, limit: maxPixels), format: format,
                message: "refused before decoding")
        }
    }

    static func decodeJPEG(
        _ data: [UInt8], scaleEighths: Int, grey: Bool,
        maxPixels: Int = Thumbnailer.defaultMaxPixels
    ) throws(ImageCodecError) -> Bitmap {
        var (info, _) = try readHeader(data, format: .jpeg, metadata: false)
        try checkLimit(info, .jpeg, maxPixels)
        let width = (Int(info.width) * scaleEighths + 7) / 8
        let height = (Int(info.height) * scaleEighths + 7) / 8
        let channels = Int(ctrove_jpeg_output_channels(&info, grey ? 1 : 0))
        return try decodeInto(.jpeg, width: width, height: height, channels: channels) {
            buffer, size, message in
            data.withUnsafeBufferPointer { bytes in
                var pixels = ctrove_pixels()
                return ctrove_jpeg_decode(
                    bytes.baseAddress, bytes.count, Int32(scaleEighths), grey ? 1 : 0, buffer,
                    size, &pixels, message, messageCapacity)
            }
        }
    }

    static func decodePNG(
        _ data: [UInt8], maxPixels: Int
    ) throws(ImageCodecError) -> (bitmap: Bitmap, metadata: ImageMetadata) {
        var (info, _) = try readHeader(data, format: .png, metadata: false)
        try checkLimit(info, .png, maxPixels)
        let channels = Int(ctrove_png_output_channels(&info))
        var metadata = ctrove_metadata()
        let bitmap = try decodeInto(
            .png, width: Int(info.width), height: Int(info.height), channels: channels
        ) { buffer, size, message in
            data.withUnsafeBufferPointer { bytes in
                var pixels = ctrove_pixels()
                return ctrove_png_decode(
                    bytes.baseAddress, bytes.count, buffer, size, &pixels, &metadata, message,
                    messageCapacity)
            }
        }
        return (bitmap, ImageMetadata(take(&metadata)))
    }

    /// Reads every row and chunk of a PNG without keeping pixels (see ctrove_png_verify).
    static func verifyPNG(_ data: [UInt8]) throws(ImageCodecError) {
        try call(.corrupt, .png) { message in
            data.withUnsafeBufferPointer { bytes in
                ctrove_png_verify(bytes.baseAddress, bytes.count, message, messageCapacity)
            }
        }
    }

    /// Streams a PNG through `body`, which pulls rows with `readRow` (top to bottom, one
    /// at a time, into a buffer of `width * channels` bytes; an interlaced file's passes
    /// one after the other, see ctrove_png_stream_open). Rows the body does not pull are
    /// still read and checked afterwards.
    static func streamPNG<Result>(
        _ data: [UInt8], maxPixels: Int,
        _ body: (
            _ width: Int, _ height: Int, _ channels: Int,
            _ readRow: (UnsafeMutablePointer<UInt8>) -> Bool
        ) -> Result
    ) throws(ImageCodecError) -> (Result, ImageMetadata) {
        let (info, _) = try readHeader(data, format: .png, metadata: false)
        try checkLimit(info, .png, maxPixels)
        var result: Result?
        var metadata = ctrove_metadata()
        try call(.corrupt, .png) { message in
            data.withUnsafeBufferPointer { bytes in
                var layout = ctrove_pixels()
                guard
                    let stream = ctrove_png_stream_open(
                        bytes.baseAddress, bytes.count, &layout, message, messageCapacity)
                else { return -1 }
                defer { ctrove_png_stream_close(stream) }
                var failed = false
                result = body(Int(layout.width), Int(layout.height), Int(layout.channels)) {
                    row in
                    if failed { return false }
                    failed =
                        ctrove_png_stream_read_rows(
                            stream, row, 1, message, messageCapacity) != 0
                    return !failed
                }
                if failed { return -1 }
                return ctrove_png_stream_finish(stream, &metadata, message, messageCapacity)
            }
        }
        let raw = take(&metadata)
        guard let result else {
            throw ImageCodecError(.corrupt, format: .png, message: "no rows were decoded")
        }
        return (result, ImageMetadata(raw))
    }

    /// Streams a JPEG decode at `scaleEighths`/8 through `body`, as `streamPNG` does.
    static func streamJPEG<Result>(
        _ data: [UInt8], scaleEighths: Int, maxPixels: Int,
        _ body: (
            _ width: Int, _ height: Int, _ channels: Int,
            _ readRow: (UnsafeMutablePointer<UInt8>) -> Bool
        ) -> Result
    ) throws(ImageCodecError) -> Result {
        let (info, _) = try readHeader(data, format: .jpeg, metadata: false)
        try checkLimit(info, .jpeg, maxPixels)
        var result: Result?
        try call(.corrupt, .jpeg) { message in
            data.withUnsafeBufferPointer { bytes in
                var layout = ctrove_pixels()
                guard
                    let stream = ctrove_jpeg_stream_open(
                        bytes.baseAddress, bytes.count, Int32(scaleEighths), 0, &layout, message,
                        messageCapacity)
                else { return -1 }
                defer { ctrove_jpeg_stream_close(stream) }
                var failed = false
                result = body(Int(layout.width), Int(layout.height), Int(layout.channels)) {
                    row in
                    if failed { return false }
                    failed =
                        ctrove_jpeg_stream_read_rows(
                            stream, row, 1, message, messageCapacity) != 0
                    return !failed
                }
                if failed { return -1 }
                return ctrove_jpeg_stream_finish(stream, message, messageCapacity)
            }
        }
        guard let result else {
            throw ImageCodecError(.corrupt, format: .jpeg, message: "no rows were decoded")
        }
        return result
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
