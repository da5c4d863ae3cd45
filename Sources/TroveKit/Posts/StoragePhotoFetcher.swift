import Foundation
import TroveBase
import TroveHTTP
import TroveStore

/// A Cloud Storage object a post's photo reference names.
struct StorageObjectName: Hashable, Sendable {
    var bucket: String
    var name: String

    /// How the workspace keeps the reference: `gs://BUCKET/NAME`, without the download
    /// token a Firebase URL carries (a token is a key to the photo, not part of it).
    var reference: String { "gs://\(bucket)/\(name)" }

    /// The object a reference names: a Firebase download URL
    /// (`https://firebasestorage.googleapis.com/v0/b/BUCKET/o/PATH?alt=media&token=…`, or an
    /// emulator's of the same form), a `gs://BUCKET/PATH` URL, or a Cloud Storage URL
    /// (`https://storage.googleapis.com/BUCKET/PATH`); nil for anything else.
    init?(reference: String) {
        let text = reference.trimmingCharacters(in: .whitespaces)
        if text.lowercased().hasPrefix("gs://") {
            let rest = text.dropFirst(5)
            guard let slash = rest.firstIndex(of: "/") else { return nil }
            bucket = String(rest[..<slash])
            name = String(rest[rest.index(after: slash)...])
        } else {
            guard let url = URLComponents(string: text),
                let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
                let host = url.host?.lowercased()
            else { return nil }
            // Segments still encoded: an object's name is one segment, slashes as %2F.
            let segments = url.percentEncodedPath.split(
                separator: "/", omittingEmptySubsequences: false
            )
            .dropFirst().map(String.init)
            func decoded(_ text: String) -> String? { text.removingPercentEncoding }
            if segments.count == 5, segments[0] == "v0", segments[1] == "b", segments[3] == "o",
                let bucket = decoded(segments[2]), let name = decoded(segments[4])
            {
                // Firebase's download URL, on its host or an emulator's.
                self.bucket = bucket
                self.name = name
            } else if host == "storage.googleapis.com" || host == "storage.cloud.google.com",
                segments.count >= 2, let bucket = decoded(segments[0])
            {
                if segments.count == 7, segments[0] == "download", segments[1] == "storage",
                    segments[3] == "b", segments[5] == "o", let bucket = decoded(segments[4]),
                    let name = decoded(segments[6])
                {
                    self.bucket = bucket
                    self.name = name
                } else {
                    guard let name = decoded(segments.dropFirst().joined(separator: "/")) else {
                        return nil
                    }
                    self.bucket = bucket
                    self.name = name
                }
            } else {
                return nil
            }
        }
        guard !bucket.isEmpty, !name.isEmpty, !name.contains("\0") else { return nil }
    }

    init(bucket: String, name: String) {
        self.bucket = bucket
        self.name = name
    }
}

/// Reads post photos from Cloud Storage through its JSON API
/// (https://cloud.google.com/storage/docs/json_api), with the endpoint and credentials a
/// publish uses (`CLOUDSDK_API_ENDPOINT_OVERRIDES_STORAGE`, the gcloud token): an object's
/// metadata first, then its bytes only when the workspace does not hold that generation
/// and MD5 already, streamed into the photo folder. Many objects at once over kept-alive
/// connections; not thread-safe.
final class StoragePhotoFetcher {
    let endpoint: String
    let accessToken: AccessToken
    let folder: PhotoFolder
    let client: HTTPClient

    /// The largest photo downloaded: a 100-megapixel PNG fits.
    static let maxPhotoBytes = 256 << 20

    /// - Throws: `TransportError` when the endpoint is not an http(s) URL.
    init(cloud: CloudEnvironment, folder: PhotoFolder) throws {
        let override = cloud.storageEndpoint ?? ""
        // The publish transport's rules for the endpoint, and its token.
        let transport = try StorageJSONTransport(
            endpoint: override.isEmpty ? StorageJSONTransport.defaultEndpoint : override,
            accessToken: .gcloud(cloud))
        endpoint = transport.endpoint
        accessToken = transport.accessToken
        self.folder = folder
        var configuration = HTTPConfiguration()
        configuration.maxConnections = 16
        client = HTTPClient(configuration: configuration)
    }

    /// How fetching one object ended.
    enum Fetched {
        /// The workspace holds the object's current bytes (`downloaded` when this call
        /// fetched them).
        case current(PhotoObject, downloaded: Bool)
        /// The object cannot be read: why, in words that follow "cannot download".
        case failed(String)
        /// The object is larger than `maxPhotoBytes`: not downloaded.
        case tooLarge(Int)
    }

    private func authorization() throws(PullError) -> [String] {
        do {
            return try accessToken.header().map { [$0] } ?? []
        } catch {
            throw PullError(error.description)
        }
    }

    private func objectURL(_ object: StorageObjectName) -> String {
        "\(endpoint)/storage/v1/b/\(StorageURL.percentEncode(object.bucket))/o/"
            + StorageURL.percentEncode(object.name)
    }

    /// The generation, MD5 and size of each object, by index in `objects`, and why those
    /// without could not be fetched.
    private func metadata(of objects: [StorageObjectName], headers: [String]) -> (
        [Int: (generation: String?, md5: String?, size: Int?)], [StorageObjectName: Fetched]
    ) {
        var results: [StorageObjectName: Fetched] = [:]
        var metadata: [Int: (generation: String?, md5: String?, size: Int?)] = [:]
        client.send(
            count: objects.count,
            request: {
                HTTPRequest(method: "GET", url: self.objectURL(objects[$0]), headers: headers)
            }
        ) { index, outcome in
            let object = objects[index]
            guard case .response(let response, _) = outcome, response.succeeded else {
                results[object] = .failed(Self.reason(outcome, object))
                return true
            }
            var parser = JSONParser(response.body)
            guard let value = try? parser.parseValue() else {
                results[object] = .failed("Cloud Storage answered its metadata with no JSON")
                return true
            }
            metadata[index] = (
                value["generation"]?.stringValue ?? Self.number(value["generation"]),
                value["md5Hash"]?.stringValue,
                (value["size"]?.stringValue ?? Self.number(value["size"])).flatMap { Int($0) }
            )
            return true
        }
        return (metadata, results)
    }

    /// Why a download failed: too large, a problem writing it, or the answer.
    private static func failure(
        of receiver: Download, _ outcome: HTTPOutcome, _ object: StorageObjectName
    ) -> Fetched {
        if receiver.tooLarge {
            return .tooLarge(receiver.bytes)
        } else if let problem = receiver.problem {
            return .failed(problem)
        } else {
            var answer = outcome
            if case .response(let response, let attempts) = outcome {
                answer = .response(
                    HTTPResponse(status: response.status, body: receiver.errorBody),
                    attempts: attempts)
            }
            return .failed(Self.reason(answer, object))
        }
    }

    /// Checks each object's metadata against what the workspace recorded (`known`) and
    /// downloads the ones it does not hold as they are now.
    ///
    /// - Throws: `PullError` when no token can be had.
    func fetch(_ objects: [StorageObjectName], known: [StorageObjectName: PhotoObject])
        throws(PullError) -> [StorageObjectName: Fetched]
    {
        guard !objects.isEmpty else { return [:] }
        let headers = try authorization()
        // 1. Metadata: generation, MD5 and size.
        var (metadata, results) = self.metadata(of: objects, headers: headers)
        // 2. Bytes, for what the folder does not hold as it is now.
        var downloads: [(object: StorageObjectName, generation: String?, md5: String?)] = []
        for (index, object) in objects.enumerated() {
            guard let facts = metadata[index] else { continue }
            if let size = facts.size, size > Self.maxPhotoBytes {
                results[object] = .tooLarge(size)
                continue
            }
            if var record = known[object], record.generation == facts.generation,
                record.md5 == facts.md5, folder.holds(record.file, bytes: record.bytes)
            {
                record.stale = false
                results[object] = .current(record, downloaded: false)
                continue
            }
            downloads.append((object, facts.generation, facts.md5))
        }
        guard !downloads.isEmpty else { return results }
        let receivers = downloads.map { _ in Download(folder: folder, limit: Self.maxPhotoBytes) }
        client.send(
            count: downloads.count,
            request: { index in
                var url = self.objectURL(downloads[index].object) + "?alt=media"
                if let generation = downloads[index].generation {
                    url += "&generation=" + StorageURL.percentEncode(generation)
                }
                return HTTPRequest(method: "GET", url: url, headers: headers)
            },
            handler: { receivers[$0] }
        ) { index, outcome in
            let (object, generation, md5) = downloads[index]
            let receiver = receivers[index]
            guard case .response(let response, _) = outcome, response.succeeded,
                let file = receiver.finish()
            else {
                receiver.discard()
                results[object] = Self.failure(of: receiver, outcome, object)
                return true
            }
            // The fingerprint posts keep (photo_hash), from the file as written.
            let bytes = FileManager.default.contents(atPath: folder.path(of: file)).map(Array.init)
            results[object] = .current(
                PhotoObject(
                    bucket: object.bucket, name: object.name, generation: generation, md5: md5,
                    fingerprint: ContentHash.hex(bytes ?? []), file: file, bytes: receiver.bytes),
                downloaded: true)
            return true
        }
        return results
    }

    /// A JSON number's text (an emulator may print a generation as a number).
    private static func number(_ value: JSONValue?) -> String? {
        if case .number(let text)? = value { return text }
        return nil
    }

    /// Why an object could not be read, naming it.
    static func reason(_ outcome: HTTPOutcome, _ object: StorageObjectName) -> String {
        var text = "\(object.reference): \(describe(outcome))"
        switch outcome.status {
        case 404?: text += " (not in the bucket)"
        case 401?, 403?:
            text += " (the account gcloud is logged in as may not read the bucket)"
        default: break
        }
        return text
    }

    // MARK: - Listing

    /// Lists the objects of `bucket` under `prefix`, in name order, one page of 1,000 at a
    /// time, calling `each` with each object's name, generation and MD5.
    ///
    /// - Throws: `PullError` when the listing is refused or fails.
    func list(
        bucket: String, prefix: String,
        each: (_ name: String, _ generation: String?, _ md5: String?) -> Void
    ) throws(PullError) {
        let headers = try authorization()
        var pageToken: String?
        repeat {
            var url =
                "\(endpoint)/storage/v1/b/\(StorageURL.percentEncode(bucket))/o?maxResults=1000"
                + "&fields=items(name,generation,md5Hash),nextPageToken"
                + "&prefix=" + StorageURL.percentEncode(prefix)
            if let pageToken { url += "&pageToken=" + StorageURL.percentEncode(pageToken) }
            let body = CappedBody(limit: 64 << 20)
            var result = HTTPOutcome.failed(message: "not sent", attempts: 0)
            client.send(
                count: 1, request: { _ in HTTPRequest(method: "GET", url: url, headers: headers) },
                handler: { _ in body }
            ) { _, outcome in
                result = outcome
                return true
            }
            guard case .response(let response, let attempts) = result, response.succeeded,
                !body.overflowed
            else {
                if case .response(let response, let attempts) = result {
                    result = .response(
                        HTTPResponse(status: response.status, body: body.bytes), attempts: attempts)
                }
                throw PullError(
                    "cannot list gs://\(bucket)/\(prefix): \(describe(result))",
                    status: result.status)
            }
            _ = attempts
            var parser = JSONParser(body.bytes)
            guard let value = try? parser.parseValue() else {
                throw PullError("cannot list gs://\(bucket)/\(prefix): the answer is not JSON")
            }
            if case .array(let items)? = value["items"] {
                for item in items {
                    guard let name = item["name"]?.stringValue else { continue }
                    each(
                        name, item["generation"]?.stringValue ?? Self.number(item["generation"]),
                        item["md5Hash"]?.stringValue)
                }
            }
            pageToken = value["nextPageToken"]?.stringValue
        } while pageToken?.isEmpty == false
    }
}

/// One object's bytes written into the photo folder as they arrive, hashed on the way;
/// an attempt that is sent again starts the file over.
private final class Download: HTTPResponseHandler {
    let folder: PhotoFolder
    let limit: Int
    private var temporary = ""
    private var descriptor: Int32 = -1
    private var hash = SHA256()
    private var start: [UInt8] = []
    private var status = 0
    private(set) var bytes = 0
    private(set) var errorBody: [UInt8] = []
    private(set) var tooLarge = false
    /// A local failure (the disk), in words.
    private(set) var problem: String?

    init(folder: PhotoFolder, limit: Int) {
        self.folder = folder
        self.limit = limit
    }

    deinit { discard() }

    func head(_ head: HTTPResponseHead) -> Bool {
        status = head.status
        bytes = 0
        hash = SHA256()
        start = []
        errorBody = []
        guard (200..<300).contains(status) else { return true }
        // Opened for the answer that carries the bytes; a retried one starts it over.
        if descriptor >= 0 {
            _ = ftruncate(descriptor, 0)
            _ = lseek(descriptor, 0, SEEK_SET)
            return true
        }
        do {
            (temporary, descriptor) = try folder.temporaryFile()
            return true
        } catch {
            problem = error.description
            return false
        }
    }

    func body(_ chunk: UnsafeRawBufferPointer) -> Bool {
        guard (200..<300).contains(status) else {
            if errorBody.count < 4096 { errorBody.append(contentsOf: chunk.prefix(4096)) }
            return true
        }
        guard bytes + chunk.count <= limit else {
            bytes += chunk.count
            tooLarge = true
            return false
        }
        if start.count < 16 { start.append(contentsOf: chunk.prefix(16 - start.count)) }
        hash.update(chunk)
        var offset = 0
        while offset < chunk.count {
            let written = write(descriptor, chunk.baseAddress! + offset, chunk.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                problem = "cannot write in \(folder.path): \(String(cString: strerror(errno)))"
                return false
            }
            offset += written
        }
        bytes += chunk.count
        return true
    }

    /// Names the downloaded file by its content; its name in the folder, or nil when the
    /// download did not complete.
    func finish() -> String? {
        guard descriptor >= 0, problem == nil, !tooLarge else { return nil }
        close(descriptor)
        descriptor = -1
        let digest = hash.finish().map { String(format: "%02x", $0) }.joined()
        let name = PhotoFolder.fileName(sha256: digest, start: start)
        guard rename(temporary, folder.path(of: name)) == 0 else {
            problem = "cannot write in \(folder.path): \(String(cString: strerror(errno)))"
            unlink(temporary)
            return nil
        }
        return name
    }

    /// Removes what was written (a failed or abandoned download).
    func discard() {
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
            unlink(temporary)
        }
    }
}
