import FuzzSupport

@testable import TroveImaging

// The metadata readers of TroveImaging: EXIF (TIFF structure, with or without the
// `Exif\0\0` prefix), ImageMagick's raw profile text, XMP orientation, the ICC colour-space
// check, and the combined reading with its precedence. The first byte picks the reader.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMetadata(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = fuzzBytes(data, size)
    guard let mode = bytes.first else { return 0 }
    let body = Array(bytes.dropFirst())
    switch mode % 4 {
    case 0:
        _ = ImageMetadata(exif: body)
    case 1:
        _ = XMPOrientation.read(body)
    case 2:
        if let decoded = ImageMetadata.rawProfile(body) { _ = ImageMetadata(exif: decoded) }
    default:
        _ = Thumbnailer.profileFits(body, channels: 3)
        _ = Thumbnailer.profileFits(body, channels: 1)
    }
    // All three blocks at once, cut from the input at points it chooses.
    let first = body.count > 0 ? Int(body[0]) * body.count / 256 : 0
    let second = body.count > 1 ? first + Int(body[1]) * (body.count - first) / 256 : first
    _ = ImageMetadata(
        exif: Array(body[..<first]), xmp: Array(body[first..<second]),
        exifText: Array(body[second...]), iccProfile: body)
    return 0
}

@main enum FuzzMetadata {
    static func main() { runFuzzer(fuzzMetadata) }
}
