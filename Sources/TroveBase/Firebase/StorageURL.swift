/// Builds Firebase Storage download URLs for rendition paths.
///
/// Without a template the URL is Firebase's own download URL,
/// `https://firebasestorage.googleapis.com/v0/b/BUCKET/o/ENCODED-PATH?alt=media`, with
/// `&token=UUID` when download tokens are on. `storage.url-template` replaces it with any
/// text holding the placeholders `{path}` (the object path as one percent-encoded segment,
/// `/` as `%2F`, as the Storage REST API needs it), `{rawpath}` (the path with its `/`
/// kept and each segment percent-encoded, for CDNs and hosting), `{bucket}` and `{token}`.
public struct StorageURL: Sendable {
    /// `storage.url-template`, or nil to use the bucket.
    public let template: String?
    /// `storage.bucket`, normalised.
    public let bucket: String?
    /// Whether the URLs carry a download token (`storage.tokens`, on by default).
    public let tokens: Bool

    /// One piece of the URL.
    enum Part: Equatable, Sendable {
        /// Literal text, as UTF-8 and as JSON string content.
        case text(plain: [UInt8], json: [UInt8])
        case path
        case rawPath
        case bucket
        case token
    }

    let parts: [Part]

    /// `parts` as `appendURL` walks them, a million times an export: the literal text and
    /// the encoded bucket as JSON bytes in one pool, so that building a URL copies no
    /// arrays and touches no reference counts.
    private enum Piece: Sendable {
        /// Bytes of `pool`.
        case literal(Int32, Int32)
        case path
        case rawPath
        case token
        /// `{bucket}` without a bucket: no URL.
        case missingBucket
    }

    private let pieces: [Piece]
    private let pool: [UInt8]

    /// URLs from `storage.url-template` when set, else from `storage.bucket`.
    public init(bucket: String?, template: String?, tokens: Bool = false) {
        let bucket = bucket.map { StorageBucket.normalize($0) ?? $0 }
        self.bucket = bucket
        self.template = template
        self.tokens = tokens
        let parts: [Part]
        if let template {
            parts = Self.parse(template).parts
        } else if bucket != nil {
            var defaultParts: [Part] = [
                Self.text("https://firebasestorage.googleapis.com/v0/b/"), .bucket,
                Self.text("/o/"), .path, Self.text("?alt=media"),
            ]
            if tokens { defaultParts += [Self.text("&token="), .token] }
            parts = defaultParts
        } else {
            parts = []
        }
        self.parts = parts
        var pieces: [Piece] = []
        var pool: [UInt8] = []
        func literal(_ bytes: [UInt8]) {
            let start = Int32(pool.count)
            pool += bytes
            if case .literal(let previous, _)? = pieces.last, pieces.count > 0 {
                pieces[pieces.count - 1] = .literal(previous, Int32(pool.count))
            } else {
                pieces.append(.literal(start, Int32(pool.count)))
            }
        }
        for part in parts {
            switch part {
            case .text(_, let json): literal(json)
            case .path: pieces.append(.path)
            case .rawPath: pieces.append(.rawPath)
            case .token: pieces.append(.token)
            case .bucket:
                if let bucket {
                    // Percent-encoded text is JSON string content as it is.
                    var encoded: [UInt8] = []
                    Self.appendPercentEncoded(bucket, to: &encoded)
                    literal(encoded)
                } else {
                    pieces.append(.missingBucket)
                }
            }
        }
        self.pieces = pieces
        self.pool = pool
    }

    /// The placeholders a template may hold.
    public static let placeholders = ["path", "rawpath", "bucket", "token"]

    /// Why `template` cannot be used as `storage.url-template`, or nil.
    public static func templateProblem(_ template: String) -> String? {
        // Destructured rather than read through the tuple: Swift 6.3's optimizer crashes
        // on a borrow of the tuple's array in release builds.
        let (parts, unknown) = parse(template)
        if let name = unknown.first {
            return "unknown placeholder {\(name)} (use "
                + placeholders.map { "{\($0)}" }.joined(separator: ", ") + ")"
        }
        var namesPath = false
        for part in parts {
            switch part {
            case .path, .rawPath: namesPath = true
            default: break
            }
        }
        return namesPath ? nil : "the template must contain {path} or {rawpath}"
    }

    /// Why URLs cannot be built with these settings, or nil.
    public var problem: String? {
        if let template {
            if let problem = Self.templateProblem(template) {
                return "storage.url-template: \(problem)"
            }
            if parts.contains(.bucket) && bucket == nil {
                return "storage.url-template uses {bucket} but storage.bucket is not set"
            }
            if parts.contains(.token) && !tokens {
                return "storage.url-template uses {token} but storage.tokens is off"
            }
        }
        return nil
    }

    /// Whether the URLs name a token.
    public var usesTokens: Bool { parts.contains(.token) }

    private static func text(_ text: String) -> Part {
        var quoted: [UInt8] = []
        JSONText.appendString(text, to: &quoted)
        return .text(plain: Array(text.utf8), json: Array(quoted.dropFirst().dropLast()))
    }

    private static func parse(_ template: String) -> (parts: [Part], unknown: [String]) {
        var parts: [Part] = []
        var unknown: [String] = []
        var literal = ""
        var rest = template[...]
        while let open = rest.firstIndex(of: "{") {
            guard let close = rest[open...].firstIndex(of: "}") else { break }
            let name = String(rest[rest.index(after: open)..<close])
            literal += rest[..<open]
            let part: Part?
            switch name {
            case "path": part = .path
            case "rawpath": part = .rawPath
            case "bucket": part = .bucket
            case "token": part = .token
            default:
                part = nil
                unknown.append(name)
            }
            if let part {
                if !literal.isEmpty { parts.append(text(literal)) }
                literal = ""
                parts.append(part)
            } else {
                literal += rest[open...close]
            }
            rest = rest[rest.index(after: close)...]
        }
        literal += rest
        if !literal.isEmpty { parts.append(text(literal)) }
        return (parts, unknown)
    }

    /// Whether a URL can be built at all.
    public var isConfigured: Bool { template != nil || bucket != nil }

    /// Appends the download URL of `path` as JSON string content (no quotes); false when
    /// no storage location is configured or the token the URL needs is missing.
    package func appendURL(for path: [UInt8], token: [UInt8]?, to output: inout some JSONOutput)
        -> Bool
    {
        guard isConfigured else { return false }
        return pieces.withUnsafeBufferPointer { pieces in
            pool.withUnsafeBufferPointer { pool in
                for piece in pieces {
                    switch piece {
                    case .literal(let start, let end):
                        output.write(UnsafeBufferPointer(rebasing: pool[Int(start)..<Int(end)]))
                    case .path:
                        path.withUnsafeBufferPointer {
                            Self.appendPercentEncoded(utf8: $0, keepingSlashes: false, to: &output)
                        }
                    case .rawPath:
                        path.withUnsafeBufferPointer {
                            Self.appendPercentEncoded(utf8: $0, keepingSlashes: true, to: &output)
                        }
                    case .token:
                        guard let token else { return false }
                        output.write(token)
                    case .missingBucket:
                        return false
                    }
                }
                return true
            }
        }
    }

    /// The download URL of the object at `path` (`treasures/hairy-harry/full-3fa2.jpg`)
    /// with `token`, or nil when neither setting is made or the needed token is missing.
    public func url(for path: String, token: String? = nil) -> String? {
        guard isConfigured else { return nil }
        var output: [UInt8] = []
        for part in parts {
            switch part {
            case .text(let plain, _): output.append(contentsOf: plain)
            case .path: Self.appendPercentEncoded(path, to: &output)
            case .rawPath:
                var path = path
                path.withUTF8 {
                    Self.appendPercentEncoded(utf8: $0, keepingSlashes: true, to: &output)
                }
            case .bucket:
                guard let bucket else { return nil }
                Self.appendPercentEncoded(bucket, to: &output)
            case .token:
                guard let token else { return nil }
                output.append(contentsOf: token.utf8)
            }
        }
        return String(decoding: output, as: UTF8.self)
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

    static func appendPercentEncoded(_ text: String, to bytes: inout some JSONOutput) {
        var text = text
        text.withUTF8 { appendPercentEncoded(utf8: $0, keepingSlashes: false, to: &bytes) }
    }

    private static func appendPercentEncoded(
        utf8: UnsafeBufferPointer<UInt8>, keepingSlashes: Bool, to bytes: inout some JSONOutput
    ) {
        unreserved.withUnsafeBufferPointer { unreserved in
            hex.withUnsafeBufferPointer { hex in
                // Runs of unreserved bytes are copied whole.
                var start = 0
                for (index, byte) in utf8.enumerated()
                where !unreserved[Int(byte)] && !(keepingSlashes && byte == UInt8(ascii: "/")) {
                    bytes.write(UnsafeBufferPointer(rebasing: utf8[start..<index]))
                    bytes.write(byte: UInt8(ascii: "%"))
                    bytes.write(byte: hex[Int(byte >> 4)])
                    bytes.write(byte: hex[Int(byte & 0xF)])
                    start = index + 1
                }
                bytes.write(UnsafeBufferPointer(rebasing: utf8[start...]))
            }
        }
    }
}
