import Foundation
import TroveBase
import TroveImaging

/// The image checks of `validate`: present, readable, JPEG or PNG, big enough, not over
/// the pixel limit, and decodable: every file `images` would refuse is an error here.
///
/// The pixel data is decoded at the least cost (JPEG at 1/8 scale, PNG rows read and
/// dropped), which is the same check `images` makes, at about a third of its time.
public enum ImageCheck {
    /// Images smaller than this on their short side look blurred in the apps.
    public static let minimumSide = 256

    /// Findings for the image at `path` (absolute).
    public static func inspect(_ path: String, at location: Diagnostic.Location) -> [Diagnostic] {
        func finding(_ severity: Diagnostic.Severity, _ code: String, _ message: String)
            -> [Diagnostic]
        {
            [Diagnostic(severity, code, message, at: location)]
        }
        let bytes: [UInt8]
        do {
            bytes = try ImageFile.read(path)
        } catch {
            switch error.kind {
            case .missing:
                return finding(
                    .error, DiagnosticCode.imageMissing,
                    "image \(path) does not exist" + PathSuggestion.caseOnly(for: path))
            case .notAnImage:
                let named = error.signature.map { ": it is \($0.described); \($0.advice)" }
                return finding(
                    .error, DiagnosticCode.imageNotJPEGOrPNG,
                    "image \(path) is neither JPEG nor PNG" + (named ?? ""))
            case .empty:
                return finding(.error, DiagnosticCode.imageUnreadable, "image \(path): \(error)")
            case .unreadable, .notRegular, .tooLarge:
                return finding(
                    .error, DiagnosticCode.imageUnreadable,
                    "image \(path) cannot be read: \(error)")
            }
        }
        let header: ImageHeader
        do {
            header = try ImageHeader.read(from: bytes)
        } catch {
            if case .unrecognizedFormat = error.kind {
                let named = FileSignature(sniffing: bytes).map {
                    ": it is \($0.described); \($0.advice)"
                }
                return finding(
                    .error, DiagnosticCode.imageNotJPEGOrPNG,
                    "image \(path) is neither JPEG nor PNG" + (named ?? ""))
            }
            return finding(
                .error, DiagnosticCode.imageUnreadable, "image \(path) cannot be read: \(error)")
        }
        if header.pixelCount > Thumbnailer.defaultMaxPixels {
            return finding(
                .error, DiagnosticCode.imageTooLarge,
                "image \(path) is \(header.width)x\(header.height), over the "
                    + "\(Thumbnailer.defaultMaxPixels / 1_000_000) megapixel limit")
        }
        do {
            _ = try Thumbnailer.verify(bytes)
        } catch {
            return finding(
                .error, DiagnosticCode.imageUnreadable, "image \(path) cannot be read: \(error)")
        }
        if min(header.width, header.height) < minimumSide {
            return finding(
                .warning, DiagnosticCode.imageTooSmall,
                "image \(path) is \(header.width)x\(header.height), under \(minimumSide) px "
                    + "on its short side")
        }
        return []
    }
}
