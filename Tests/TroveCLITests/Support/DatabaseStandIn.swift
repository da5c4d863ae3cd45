import Foundation
import TroveBase
import TroveHTTP

/// `Tests/Support/rtdb-standin.py`, a local stand-in for the Realtime Database REST API
/// (multi-path PATCH applied as the database applies it, `GET /.json`, faults on demand),
/// on a free loopback port; stopped when released. No emulator of the database can be
/// installed here, so tests check what a publish writes against this.
///
///     let database = try DatabaseStandIn()
///     // a target with `--database \(database.url)`, or a transport's update(…, databaseURL:)
///     let tree = try database.tree()          // GET /.json, parsed
///     try database.failNextWrites(status: 503, count: 2)
final class DatabaseStandIn {
    static let script = "\(packageRoot)/Tests/Support/rtdb-standin.py"
    static let python: String? = executableOnPath("python3")
    static var isAvailable: Bool { python != nil }

    private let service: LocalService
    /// The token it requires, which its own reads send.
    private let token: String?
    /// The database URL, `http://127.0.0.1:PORT`.
    let url: String

    /// What points trove's database transport here: the REST API even where firebase-tools
    /// is installed (`FIREBASE` set empty), and no credentials
    /// (`CLOUDSDK_AUTH_DISABLE_CREDENTIALS=True`) unless this stand-in requires a token, in
    /// which case add a `GCLOUD` that prints it. The database URL is `url`.
    var environment: [String: String] {
        token == nil
            ? ["FIREBASE": "", "CLOUDSDK_AUTH_DISABLE_CREDENTIALS": "True"] : ["FIREBASE": ""]
    }

    /// A stand-in with an empty database (or `seed`, JSON text); with `requireToken`,
    /// requests without `Authorization: Bearer TOKEN` get 401; writes larger than
    /// `maxRequestBytes` get 413.
    init(requireToken: String? = nil, seed: String? = nil, maxRequestBytes: Int? = nil) throws {
        guard let python = Self.python else {
            throw ServiceError(message: "python3 is not installed")
        }
        token = requireToken
        var options: [String] = []
        if let requireToken { options += ["--require-token", requireToken] }
        if let maxRequestBytes { options += ["--max-request-bytes", String(maxRequestBytes)] }
        if let seed {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent(
                "trove-rtdb-seed-\(UUID().uuidString).json")
            try Data(seed.utf8).write(to: file)
            options += ["--data", file.path]
        }
        service = try LocalService(name: "rtdb-standin.py", executable: python) { port in
            [Self.script, "--port", String(port)] + options
        }
        url = "http://127.0.0.1:\(service.port)"
    }

    /// The whole database, as `GET /.json` returns it (nil when empty).
    func tree() throws -> Any? {
        let value = try JSONSerialization.jsonObject(
            with: try get("/.json"), options: .fragmentsAllowed)
        return value is NSNull ? nil : value
    }

    /// The whole database as the stand-in prints it: compact JSON, keys sorted.
    func treeText() throws -> String { String(decoding: try get("/.json"), as: UTF8.self) }

    /// Makes the next `count` writes answer `status` with `{"error": error}`.
    func failNextWrites(status: Int, count: Int, error: String = "Service Unavailable") throws {
        let body = try JSONSerialization.data(
            withJSONObject: ["status": status, "count": count, "error": error])
        let outcome = HTTPClient().send(
            HTTPRequest(
                method: "POST", url: url + "/.standin/faults", body: [.bytes(Array(body))]))
        guard case .response(let response, _) = outcome, response.succeeded else {
            throw ServiceError(message: "cannot set faults: \(outcome)")
        }
    }

    /// Every request so far: `method`, `path`, `status`, `authorized`.
    func log() throws -> [[String: Any]] {
        (try JSONSerialization.jsonObject(with: try get("/.standin/log")) as? [[String: Any]]) ?? []
    }

    private func get(_ path: String) throws -> Data {
        let headers = token.map { ["Authorization: Bearer \($0)"] } ?? []
        let outcome = HTTPClient().send(
            HTTPRequest(method: "GET", url: url + path, headers: headers))
        guard case .response(let response, _) = outcome, response.status == 200 else {
            throw ServiceError(message: "GET \(path): \(outcome)")
        }
        return Data(response.body)
    }
}
