/// Builds Firebase Storage download URLs for rendition paths.
public struct StorageURL: Sendable, Equatable {
    /// `storage.url-template` with `{path}`, or nil to use the bucket.
    public let template: String?
    /// `storage.bucket`.
    public let bucket: String?

    /// URLs from `storage.url-template` when set, else from `storage.bucket`.
    public init(bucket: String?, template: String?) {
        self.bucket = bucket
        self.template = template
        if let template, let range = template.range(of: "{path}") {
            prefix = Array(template[..<range.lowerBound].utf8)
            suffix = Array(template[range.upperBound...].utf8)
            rest = String(template[range.upperBound...])
        } else if let bucket {
            prefix = Array(
                "https://firebasestorage.googleapis.com/v0/b/\(Self.percentEncode(bucket))/o/".utf8)
            suffix = Array("?alt=media".utf8)
            rest = ""
        } else {
            prefix = []
            suffix = []
            rest = ""
        }
        func plain(_ bytes: [UInt8]) -> Bool {
            bytes.allSatisfy { $0 >= 0x20 && $0 != 0x22 && $0 != 0x5C }
        }
        isPlain = !rest.contains("{path}") && plain(prefix) && plain(suffix)
    }

    /// The URL text before and after the encoded path (after its first `{path}`).
    private let prefix: [UInt8]
    private let suffix: [UInt8]
    /// The template after the first `{path}`, where later ones are replaced too.
    private let rest: String
    /// Whether the URL is prefix + encoded path + suffix with nothing to escape in JSON.
    private let isPlain: Bool

    /// Appends the download URL of `path` as JSON string content (no quotes); false when
    /// no storage location is configured.
    func appendURL(for path: [UInt8], to output: inout [UInt8]) -> Bool {
        guard isConfigured else { return false }
        if !isPlain {
            // Unusual templates take the general road (escaping, several {path}s).
            guard let url = url(for: String(decoding: path, as: UTF8.self)) else { return false }
            var quoted: [UInt8] = []
            JSONText.appendString(url, to: &quoted)
            output.append(contentsOf: quoted.dropFirst().dropLast())
            return true
        }
        output.append(contentsOf: prefix)
        path.withUnsafeBufferPointer { Self.appendPercentEncoded(utf8: $0, to: &output) }
        output.append(contentsOf: suffix)
        return true
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
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count * 3 / 2)
        appendPercentEncoded(text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Per byte, whether it stays as it is: the unreserved characters of RFC 3986.
    private static let unreserved: [Bool] = (0..<256).map { byte in
        switch UInt8(byte) {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    private static let hex = Array("0123456789ABCDEF".utf8)

    static func appendPercentEncoded(_ text: String, to bytes: inout [UInt8]) {
        var text = text
        text.withUTF8 { appendPercentEncoded(utf8: $0, to: &bytes) }
    }

    private static func appendPercentEncoded(
        utf8: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]
    ) {
        unreserved.withUnsafeBufferPointer { unreserved in
            hex.withUnsafeBufferPointer { hex in
                // Runs of unreserved bytes are copied whole.
                var start = 0
                for (index, byte) in utf8.enumerated() where !unreserved[Int(byte)] {
                    bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                    bytes.append(UInt8(ascii: "%"))
                    bytes.append(hex[Int(byte >> 4)])
                    bytes.append(hex[Int(byte & 0xF)])
                    start = index + 1
                }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
            }
        }
    }
}
