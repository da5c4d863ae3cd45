/// Why an image could not be read, checked or written.
///
/// The description reads well after `Error: ` and carries the decoder's own message.
public struct ImageCodecError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of problem it was.
    public enum Kind: Sendable, Equatable {
        /// The input has no bytes.
        case empty
        /// The bytes are neither JPEG nor PNG.
        case unrecognizedFormat
        /// The header announces more pixels than allowed; nothing was decoded.
        case tooManyPixels(width: Int, height: Int, limit: Int)
        /// The decoder rejected the data (corrupt, truncated, unsupported).
        case corrupt
        /// The encoder failed.
        case encodingFailed
        /// The caller asked for something impossible, such as an empty box.
        case invalidRequest
    }

    /// What kind of problem it was.
    public var kind: Kind
    /// The format involved, when known.
    public var format: ImageFormat?
    /// The library's own message, or ours when the problem was found before the library.
    public var message: String

    /// Creates an error.
    public init(_ kind: Kind, format: ImageFormat? = nil, message: String) {
        self.kind = kind
        self.format = format
        self.message = message
    }

    /// A sentence such as `corrupt JPEG: Premature end of JPEG file`.
    public var description: String {
        let name = format.map { $0 == .jpeg ? "JPEG" : "PNG" } ?? "image"
        switch kind {
        case .empty:
            return "empty image file (0 bytes)"
        case .unrecognizedFormat:
            return "not a JPEG or PNG image: \(message)"
        case .tooManyPixels(let width, let height, let limit):
            return
                "\(name) is \(width)x\(height) (\(width * height) pixels), over the limit of "
                + "\(limit) pixels"
        case .corrupt:
            return "corrupt \(name): \(message)"
        case .encodingFailed:
            return "cannot encode \(name): \(message)"
        case .invalidRequest:
            return "invalid image request: \(message)"
        }
    }
}
