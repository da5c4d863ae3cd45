/// One HTTP request: a method, a URL, header lines and a body sent from memory and files.
public struct HTTPRequest: Sendable, Equatable {
    /// `GET`, `POST`, `PATCH`, `PUT` or `DELETE`.
    public var method: String
    /// An `http` or `https` URL, already percent-encoded.
    public var url: String
    /// Header lines as sent (`Content-Type: application/json`).
    public var headers: [String]
    /// The body, read in order when the request is sent; no parts sends none.
    public var body: [HTTPBodyPart]

    public init(method: String, url: String, headers: [String] = [], body: [HTTPBodyPart] = []) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// A piece of a request body.
public enum HTTPBodyPart: Sendable, Equatable {
    /// Bytes held in memory (a JSON document, a multipart boundary).
    case bytes([UInt8])
    /// A local file, read while it is sent, so a body never has to fit in memory.
    case file(String)
}

/// What the server answered.
public struct HTTPResponse: Sendable, Equatable {
    /// The HTTP status code.
    public var status: Int
    /// The start of the response body (at most `HTTPConfiguration.maxResponseBytes`).
    public var body: [UInt8]

    public init(status: Int, body: [UInt8]) {
        self.status = status
        self.body = body
    }

    /// Whether the status is 2xx.
    public var succeeded: Bool { (200..<300).contains(status) }
}

/// How one request ended, after any retries.
public enum HTTPOutcome: Sendable, Equatable {
    /// The server answered (any status, including one that was retried until the
    /// attempts ran out).
    case response(HTTPResponse, attempts: Int)
    /// No answer: the connection failed, timed out, or a body file could not be read;
    /// `message` says which, in libcurl's words or the file system's.
    case failed(message: String, attempts: Int)
}

/// Limits and timeouts of an `HTTPClient`.
public struct HTTPConfiguration: Sendable {
    /// Transfers in flight at once, each on its own connection (or its own stream of an
    /// HTTP/2 connection); connections are kept alive between transfers.
    public var maxConnections = 24
    /// Seconds to wait for a connection to open.
    public var connectTimeout: Double = 30
    /// A transfer that moves no bytes for this many seconds is abandoned (and retried):
    /// a stall limit rather than a total one, so large files are not cut off.
    public var stallTimeout: Double = 60
    /// Attempts per request, the first included, for answers that may succeed later
    /// (408, 429, 5xx) and for failed connections.
    public var maxAttempts = 6
    /// The wait before the first retry; each further retry waits twice as long (with
    /// some jitter), up to `maxRetryDelay`. A server's `Retry-After` is honoured up to
    /// the same limit.
    public var retryDelay: Double = 0.5
    public var maxRetryDelay: Double = 16
    /// Response bytes kept per request; the rest is read and dropped.
    public var maxResponseBytes = 256 * 1024
    /// The `User-Agent` header.
    public var userAgent = "trove"

    public init() {}

    /// The wait before attempt `attempt + 1`, after `attempt` attempts failed.
    func retryDelay(afterAttempt attempt: Int, retryAfter: Double?) -> Double {
        let exponential = retryDelay * Double(1 << min(max(attempt - 1, 0), 20))
        let jittered = min(exponential, maxRetryDelay) * Double.random(in: 0.5...1.0)
        guard let retryAfter, retryAfter > jittered else { return jittered }
        return min(retryAfter, maxRetryDelay)
    }

    /// Whether an answer with this status may succeed if sent again.
    public static func retryable(status: Int) -> Bool {
        status == 408 || status == 429 || (500..<600).contains(status)
    }
}
