import Foundation
import TroveBase
import TroveHTTP

/// Sends objects to a bucket through the Cloud Storage JSON API
/// (https://cloud.google.com/storage/docs/json_api), many at once over kept-alive
/// connections.
///
/// Uploads are multipart uploads, the metadata and the file's bytes in one request, the
/// file streamed from disk; tokens are set with a metadata `PATCH` (an object that is not
/// there is reported missing); deletes are `DELETE`s, an object already gone counting as
/// deleted; listings are `objects.list` pages of a thousand, with each object's metadata.
public struct StorageJSONTransport: StorageTransport {
    /// The API's root, `https://storage.googleapis.com` or an emulator's, without a
    /// trailing slash.
    public let endpoint: String
    public let accessToken: AccessToken
    public let configuration: HTTPConfiguration

    /// The public service.
    public static let defaultEndpoint = "https://storage.googleapis.com"

    /// A transport to `endpoint` (a trailing `/` or `/storage/v1/` is dropped, so the
    /// value gcloud takes in `CLOUDSDK_API_ENDPOINT_OVERRIDES_STORAGE` serves here too).
    ///
    /// - Throws: `TransportError` when `endpoint` is not an `http` or `https` URL.
    public init(
        endpoint: String = defaultEndpoint, accessToken: AccessToken,
        configuration: HTTPConfiguration = HTTPConfiguration()
    ) throws {
        var root = endpoint.trimmingCharacters(in: .whitespaces)
        while root.hasSuffix("/") { root.removeLast() }
        if root.hasSuffix("/storage/v1") { root.removeLast("/storage/v1".count) }
        guard let url = URLComponents(string: root), ["http", "https"].contains(url.scheme),
            url.host?.isEmpty == false, url.query == nil
        else {
            throw TransportError(
                "the Storage endpoint \(printable(endpoint)) is not an http:// or https:// URL "
                    + "(check CLOUDSDK_API_ENDPOINT_OVERRIDES_STORAGE)")
        }
        self.endpoint = root
        self.accessToken = accessToken
        self.configuration = configuration
    }

    // MARK: - StorageTransport

    public func upload(_ objects: [StorageUpload], bucket: String, done: (String) -> Void) throws {
        guard !objects.isEmpty else { return }
        let bucket = StorageBucket.normalize(bucket) ?? bucket
        let headers = try authorization()
        // One boundary for the run: 128 random bits cannot be expected in an image.
        let boundary = "trove-" + UUID().uuidString.replacingOccurrences(of: "-", with: "")
        let url = "\(endpoint)/upload/storage/v1/b/\(encoded(bucket))/o?uploadType=multipart"
        try send(
            objects.count, verb: "upload", preposition: "to", bucket: bucket,
            name: { objects[$0].name },
            request: { index in
                let object = objects[index]
                var metadata = JSONObject()
                metadata.add("name", object.name)
                metadata.add("contentType", object.contentType)
                metadata.add("cacheControl", object.cacheControl)
                if let token = object.token {
                    metadata.add("metadata", json: Self.tokenMetadata(token))
                }
                let head =
                    "--\(boundary)\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n"
                    + metadata.compactJSONText
                    + "\r\n--\(boundary)\r\nContent-Type: \(object.contentType)\r\n\r\n"
                return HTTPRequest(
                    method: "POST", url: url,
                    headers: headers + ["Content-Type: multipart/related; boundary=\(boundary)"],
                    body: [
                        .bytes(Array(head.utf8)), .file(object.file),
                        .bytes(Array("\r\n--\(boundary)--\r\n".utf8)),
                    ])
            },
            accept: { $0.succeeded }, done: done)
    }

    public func setTokens(
        _ tokens: [(name: String, token: String?)], bucket: String, done: (String) -> Void,
        missing: (String) -> Void
    ) throws {
        guard !tokens.isEmpty else { return }
        let bucket = StorageBucket.normalize(bucket) ?? bucket
        let headers = try authorization() + ["Content-Type: application/json; charset=UTF-8"]
        var gone: Set<String> = []
        try send(
            tokens.count, verb: "set the token of", preposition: "in", bucket: bucket,
            name: { tokens[$0].name },
            request: { index in
                var metadata = JSONObject()
                metadata.add("metadata", json: Self.tokenMetadata(tokens[index].token))
                let body = metadata.compactJSONText
                return HTTPRequest(
                    method: "PATCH", url: objectURL(tokens[index].name, bucket: bucket),
                    headers: headers, body: [.bytes(Array(body.utf8))])
            },
            accept: { response in
                response.succeeded || Self.objectIsGone(response)
            },
            done: { name in
                // An object deleted behind trove's back is the caller's to upload again.
                if gone.contains(name) { missing(name) } else { done(name) }
            },
            outcome: { index, response in
                if !response.succeeded { gone.insert(tokens[index].name) }
            })
    }

    /// Whether a 404 says the object is missing, not the bucket.
    private static func objectIsGone(_ response: HTTPResponse) -> Bool {
        response.status == 404
            && !serverMessage(response.body).lowercased().contains("bucket does not exist")
    }

    public func list(prefix: String, bucket: String, page: ([StoredObject]) throws -> Void)
        throws
    {
        let bucket = StorageBucket.normalize(bucket) ?? bucket
        let headers = try authorization()
        // A page of a thousand objects with their metadata is several hundred kilobytes.
        var configuration = self.configuration
        configuration.maxResponseBytes = max(configuration.maxResponseBytes, 64 * 1024 * 1024)
        let client = HTTPClient(configuration: configuration)
        var pageToken: String?
        repeat {
            var query = [
                "prefix=" + encoded(prefix), "maxResults=1000",
                "fields=" + encoded("nextPageToken,items(name,metadata)"),
            ]
            if let pageToken { query.append("pageToken=" + encoded(pageToken)) }
            let url =
                "\(endpoint)/storage/v1/b/\(encoded(bucket))/o?" + query.joined(separator: "&")
            let outcome = client.send(HTTPRequest(method: "GET", url: url, headers: headers))
            guard case .response(let response, _) = outcome, response.succeeded else {
                var message = "cannot list gs://\(bucket)/\(prefix): " + describe(outcome)
                if let hint = hint(for: outcome, verb: "list", bucket: bucket) {
                    message += "; " + hint
                }
                throw TransportError(message)
            }
            var parser = JSONParser(response.body)
            guard let listing = try? parser.parseValue(), case .object = listing else {
                throw TransportError(
                    "cannot list gs://\(bucket)/\(prefix): the answer is not a JSON object")
            }
            var objects: [StoredObject] = []
            if case .array(let items)? = listing["items"] {
                for item in items {
                    guard let name = item["name"]?.stringValue else { continue }
                    objects.append(
                        StoredObject(
                            name: name,
                            tokens: item["metadata"]?[StoragePlan.tokenMetadataKey]?.stringValue))
                }
            }
            try page(objects)
            pageToken = listing["nextPageToken"]?.stringValue
            if pageToken?.isEmpty == true { pageToken = nil }
        } while pageToken != nil
    }

    public func delete(_ names: [String], bucket: String, done: (String) -> Void) throws {
        guard !names.isEmpty else { return }
        let bucket = StorageBucket.normalize(bucket) ?? bucket
        let headers = try authorization()
        try send(
            names.count, verb: "delete", preposition: "from", bucket: bucket, name: { names[$0] },
            request: { index in
                HTTPRequest(
                    method: "DELETE", url: objectURL(names[index], bucket: bucket),
                    headers: headers)
            },
            accept: { response in
                // Gone already counts as deleted, but a missing bucket is a wrong target,
                // not a finished delete.
                response.succeeded
                    || (response.status == 404
                        && !serverMessage(response.body).lowercased().contains(
                            "bucket does not exist"))
            }, done: done)
    }

    // MARK: - Requests

    /// `{"firebaseStorageDownloadTokens": token}`, null to remove it.
    private static func tokenMetadata(_ token: String?) -> String {
        var metadata = JSONObject()
        metadata.add("firebaseStorageDownloadTokens", token)
        return metadata.compactJSONText
    }

    private func authorization() throws(TransportError) -> [String] {
        try accessToken.header().map { [$0] } ?? []
    }

    private func encoded(_ text: String) -> String { StorageURL.percentEncode(text) }

    private func objectURL(_ name: String, bucket: String) -> String {
        "\(endpoint)/storage/v1/b/\(encoded(bucket))/o/\(encoded(name))"
    }

    /// Sends the requests, reports each accepted one through `done`, and after the first
    /// refused one starts no more: the ones in flight finish (and are reported), then the
    /// first refusal is thrown, with how many others failed.
    private func send(
        _ count: Int, verb: String, preposition: String, bucket: String, name: (Int) -> String,
        request: (Int) -> HTTPRequest, accept: (HTTPResponse) -> Bool, done: (String) -> Void,
        outcome accepted: (Int, HTTPResponse) -> Void = { _, _ in }
    ) throws {
        let client = HTTPClient(configuration: configuration)
        var first: (name: String, outcome: HTTPOutcome)?
        var failures = 0
        client.send(count: count, request: request) { index, outcome in
            if case .response(let response, _) = outcome, accept(response) {
                accepted(index, response)
                done(name(index))
                return true
            }
            if first == nil { first = (name(index), outcome) }
            failures += 1
            return false
        }
        guard let first else { return }
        var message =
            "cannot \(verb) \(printable(first.name)) \(preposition) gs://\(bucket): "
            + describe(first.outcome)
        if failures > 1 { message += " (and \(failures - 1) more)" }
        if let hint = hint(for: first.outcome, verb: verb, bucket: bucket) {
            message += "; " + hint
        }
        throw TransportError(message)
    }

    /// What to do about a refusal.
    private func hint(for outcome: HTTPOutcome, verb: String, bucket: String) -> String? {
        switch outcome.status {
        case 401?:
            return "the access token was refused; log in again with 'gcloud auth login'"
        case 403?:
            return "the account gcloud is logged in as may not change gs://\(bucket); grant it "
                + "a Storage role on the bucket or log in as another ('gcloud auth login')"
        case 404?:
            // An object missing where a token is set is reported, not refused: a 404 that
            // gets here names the bucket.
            return "check that the bucket gs://\(bucket) exists"
        case let status? where HTTPConfiguration.retryable(status: status):
            return "Cloud Storage kept failing; publish again later to carry on"
        case _?:
            return nil
        case nil:
            return outcome.isConnectionFailure
                ? "check the network connection to \(endpoint) "
                    + "(or CLOUDSDK_API_ENDPOINT_OVERRIDES_STORAGE)"
                : nil
        }
    }
}
