/// Builds Firebase Storage download URLs for rendition paths.
public struct StorageURL: Sendable, Equatable {
    /// `storage.url-template` with `{path}`, or nil to use the bucket.
    public let template: String?
    /// `storage.bucket`.
    public let bucket: String?

    public init(bucket: String?, template: String?) {
        self.bucket = bucket
        self.template = template
    }

    /// Whether a URL can be built at all.
    public var isConfigured: Bool { template != nil || bucket != nil }

    /// The download URL of the object at `path` (`treasures/hairy-harry/full-3fa2.jpg`),
    /// or nil when neither setting is made.
    ///
    /// The whole object path is one percent-encoded segment, as Firebase's own download
    /// URLs have it (`/` becomes `%2F`).
    public func url(for path: String) -> String? {
        let encoded = Self.percentEncode(path)
        if let template {
            return template.replacingOccurrences(of: "{path}", with: encoded)
        }
        guard let bucket else { return nil }
        return "https://firebasestorage.googleapis.com/v0/b/\(Self.percentEncode(bucket))/o/"
            + encoded + "?alt=media"
    }

    /// Percent-encodes every byte of the UTF-8 text except the unreserved characters
    /// `A-Z a-z 0-9 - . _ ~` (RFC 3986), with upper-case hex digits.
    public static func percentEncode(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count * 3 / 2)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"), UInt8(ascii: "~"):
                bytes.append(byte)
            default:
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0xF)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
