import Foundation
import TroveBase
import TroveHTTP
import TroveStore

/// Why a pull or a follow cannot go on, in words that read well after `Error: `.
public struct PullError: Error, CustomStringConvertible, Sendable {
    public var description: String
    /// The HTTP status of the refusal, when the database answered one.
    public var status: Int?

    init(_ description: String, status: Int? = nil) {
        self.description = description
        self.status = status
    }

    /// Whether the database refused the request (credentials, rules, a wrong URL) rather
    /// than failing to answer it.
    var isRefusal: Bool { status.map { $0 == 400 || $0 == 401 || $0 == 403 || $0 == 404 } ?? false }
}

/// Reads a location through the Realtime Database REST API: pages of its children by key,
/// one child, a shallow listing of keys. An answer is held whole, but never more than
/// `maxResponseBytes` of it: a larger one is abandoned as it arrives and said to be too
/// large, with its first bytes.
///
/// Answers 429 and 5xx and failed connections are retried with growing waits, as the
/// client does for a publish. Not thread-safe: one reader per thread.
final class LiveReader {
    let location: LiveLocation
    let accessToken: AccessToken
    let client: HTTPClient
    let maxResponseBytes: Int

    /// The most an answer may take: far more than a page of posts, far less than memory.
    static let defaultMaxResponseBytes = 32 << 20

    init(
        location: LiveLocation, accessToken: AccessToken,
        maxResponseBytes: Int = defaultMaxResponseBytes
    ) {
        self.location = location
        self.accessToken = accessToken
        var configuration = HTTPConfiguration()
        configuration.maxConnections = 4
        client = HTTPClient(configuration: configuration)
        self.maxResponseBytes = maxResponseBytes
    }

    /// An answer: the JSON text, or the start of one too large to hold.
    enum Answer {
        case value([UInt8])
        case tooLarge(start: [UInt8])
    }

    /// A request's headers: JSON, and the access token when there is one.
    ///
    /// - Throws: `PullError` when no token can be had.
    private func requestHeaders() throws(PullError) -> [String] {
        var headers = ["Accept: application/json"]
        do {
            if let authorization = try accessToken.header() { headers.append(authorization) }
        } catch {
            throw PullError(error.description)
        }
        return headers
    }

    /// `GET` of `relative` under the location, with `items` in the query.
    ///
    /// - Throws: `PullError` when the database refuses or cannot be reached.
    func get(_ relative: [String], _ items: [URLQueryItem] = []) throws(PullError) -> Answer {
        let headers = try requestHeaders()
        let url = location.restURL(relative, items)
        let handler = CappedBody(limit: maxResponseBytes)
        var result = HTTPOutcome.failed(message: "not sent", attempts: 0)
        client.send(
            count: 1, request: { _ in HTTPRequest(method: "GET", url: url, headers: headers) },
            handler: { _ in handler }
        ) { _, outcome in
            result = outcome
            return true
        }
        if handler.overflowed { return .tooLarge(start: handler.bytes) }
        if case .response(let response, _) = result, response.succeeded {
            return .value(handler.bytes)
        }
        throw Self.error(result, body: handler.bytes, location: location)
    }

    /// `GET` of `relative` under the location, its answer to `handler` as it arrives.
    ///
    /// - Throws: `PullError` when the database refuses or cannot be reached.
    func stream(
        _ relative: [String], _ items: [URLQueryItem] = [], to handler: any HTTPResponseHandler
    ) throws(PullError) {
        let headers = try requestHeaders()
        let url = location.restURL(relative, items)
        var result = HTTPOutcome.failed(message: "not sent", attempts: 0)
        client.send(
            count: 1, request: { _ in HTTPRequest(method: "GET", url: url, headers: headers) },
            handler: { _ in handler }
        ) { _, outcome in
            result = outcome
            return true
        }
        if case .response(let response, _) = result, response.succeeded { return }
        throw Self.error(result, body: [], location: location)
    }

    /// The words for a failed read, with what to do about it.
    static func error(_ outcome: HTTPOutcome, body: [UInt8], location: LiveLocation) -> PullError {
        var outcome = outcome
        if case .response(let response, let attempts) = outcome {
            outcome = .response(
                HTTPResponse(status: response.status, body: body), attempts: attempts)
        }
        var message = "cannot read \(location.origin): \(describe(outcome))"
        switch outcome.status {
        case 401?, 403?:
            message +=
                "; the database refused the credentials or its rules do not let them read "
                + "there: log in as an account that may ('gcloud auth login'), or check the "
                + "rules"
        case 404?:
            message += "; check the database URL (an emulator's needs its ?ns=)"
        case 400?:
            message += "; the database refused the request as sent"
        case let status? where HTTPConfiguration.retryable(status: status):
            message += "; the database kept failing: try again later"
        case _?:
            break
        case nil:
            if outcome.isConnectionFailure {
                message += "; check the network connection to \(location.origin)"
            }
        }
        return PullError(message, status: outcome.status)
    }
}

/// Keeps a body up to a limit; past it, the transfer is abandoned and the start kept.
final class CappedBody: HTTPResponseHandler {
    let limit: Int
    private(set) var status = 0
    private(set) var bytes: [UInt8] = []
    private(set) var overflowed = false

    init(limit: Int) { self.limit = limit }

    func head(_ head: HTTPResponseHead) -> Bool {
        status = head.status
        bytes.removeAll(keepingCapacity: true)
        overflowed = false
        return true
    }

    func body(_ chunk: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count + chunk.count <= limit else {
            guard (200..<300).contains(status) else {
                // An error's message is in its start; the rest is dropped.
                return true
            }
            // Abandoned, its start kept: the key of a record too large to read.
            overflowed = true
            bytes = Array(bytes.prefix(4096))
            return false
        }
        bytes.append(contentsOf: chunk)
        return true
    }
}
