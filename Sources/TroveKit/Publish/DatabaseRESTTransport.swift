import Foundation
import TroveHTTP

/// Applies multi-path updates through the Realtime Database REST API
/// (https://firebase.google.com/docs/reference/rest/database): one `PATCH …/.json` per
/// update, authorised with a Google OAuth access token, retried while the database
/// answers 429 or 5xx or cannot be reached. A multi-path `PATCH` is applied whole or not
/// at all, so resending one that may have been applied is harmless. Reads are `GET`s of
/// one location, or of a page of its children (`orderBy="$key"`, `startAt`,
/// `limitToFirst`), with `format=export` for the priorities GeoFire writes.
public struct DatabaseRESTTransport: DatabaseTransport {
    public let accessToken: AccessToken
    public let configuration: HTTPConfiguration

    public init(accessToken: AccessToken, configuration: HTTPConfiguration = HTTPConfiguration()) {
        self.accessToken = accessToken
        self.configuration = configuration
    }

    /// The largest answer a read takes: a page is asked for a few megabytes, but one child
    /// can hold more.
    static let maxReadBytes = 256 * 1024 * 1024

    public func read(_ read: DatabaseRead, databaseURL: String) throws -> [UInt8] {
        let database = try DatabaseURL(databaseURL)
        var headers: [String] = []
        if let authorization = try accessToken.header() { headers.append(authorization) }
        var configuration = self.configuration
        configuration.maxResponseBytes = max(configuration.maxResponseBytes, Self.maxReadBytes)
        let url = database.restURL(path: read.path, read.queryItems)
        let outcome = HTTPClient(configuration: configuration).send(
            HTTPRequest(method: "GET", url: url, headers: headers))
        if case .response(let response, _) = outcome, response.succeeded { return response.body }
        let location = read.path.isEmpty ? "/" : "/" + read.path
        var message =
            "cannot read \(location) of the database \(database.root): \(describe(outcome))"
        switch outcome.status {
        case 401?, 403?:
            message +=
                "; the account gcloud is logged in as may not read it: log in as one that may "
                + "('gcloud auth login'), or use firebase-tools (set FIREBASE)"
        case 404?:
            message += "; check the target's database URL"
        case let status? where HTTPConfiguration.retryable(status: status):
            message += "; the database kept failing: try again later"
        case _?:
            break
        case nil:
            message += "; check the network connection to \(database.root)"
        }
        throw TransportError(message)
    }

    public func update(_ body: [UInt8], databaseURL: String) throws {
        let database = try DatabaseURL(databaseURL)
        var headers = ["Content-Type: application/json; charset=UTF-8"]
        if let authorization = try accessToken.header() { headers.append(authorization) }
        // `print=silent`: the answer is 204 without the update echoed back.
        let url = database.restURL([URLQueryItem(name: "print", value: "silent")])
        let client = HTTPClient(configuration: configuration)
        let outcome = client.send(
            HTTPRequest(method: "PATCH", url: url, headers: headers, body: [.bytes(body)]))
        if case .response(let response, _) = outcome, response.succeeded { return }

        var message = "cannot update the database \(database.root): \(describe(outcome))"
        switch outcome.status {
        case 401?, 403?:
            message +=
                "; the account gcloud is logged in as may not write to it: log in as one that may "
                + "('gcloud auth login'), or use firebase-tools (set FIREBASE)"
        case 400?:
            message += "; the database refused the update as sent"
        case 404?:
            message += "; check the target's database URL"
        case let status? where HTTPConfiguration.retryable(status: status):
            message += "; the database kept failing: publish again later to carry on"
        case _?:
            break
        case nil:
            message += "; check the network connection to \(database.root)"
        }
        throw TransportError(message)
    }
}
