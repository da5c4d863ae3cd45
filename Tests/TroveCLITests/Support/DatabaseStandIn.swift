import Foundation
import TroveHTTP

/// `Tests/Support/rtdb-standin.py`, a local stand-in for the Realtime Database REST API
/// (multi-path PATCH applied as the database applies it, queries and shallow reads, REST
/// streaming, faults on demand), on a free loopback port; stopped when released. No
/// emulator of the database can be installed here, so tests check what trove writes and
/// reads against this. Its docstring says what it answers and why.
///
///     let database = try DatabaseStandIn(keepAliveSeconds: 0.5)
///     // a target with `--database \(database.url)`, or a transport's update(…, databaseURL:)
///     let tree = try database.tree()          // GET /.json, parsed
///     try database.failNextWrites(status: 503, count: 2)
///     try database.put(path: "Locations/p1", json: #"{"lat": 1}"#)   // as the app writes
///     try database.waitForStreams(count: 1)   // a `--follow` has connected
///     try database.dropStreams()              // a network blip
///     try database.restart()                  // the same port, the same data
final class DatabaseStandIn {
    static let script = "\(packageRoot)/Tests/Support/rtdb-standin.py"
    static let python: String? = executableOnPath("python3")
    static var isAvailable: Bool { python != nil }

    /// Nil while stopped.
    private var service: LocalService?
    private let python: String
    /// Every option but the port, the same at each start.
    private let options: [String]
    /// The seed and the state file, removed with the stand-in.
    private let folder: URL
    /// The token it requires, which its own requests send.
    private var token: String?
    /// The token it was started with, which a start requires again.
    private let firstToken: String?
    /// The port it listens on, the same after a restart.
    let port: Int
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
    /// `maxRequestBytes` get 413; open streams get a keep-alive every `keepAliveSeconds`
    /// (30 unless given). `indexOn` declares the rules' indexes that queries ordered by a
    /// child need, as a path and its `.indexOn` children (`["Locations": ["date"]]`, `$`
    /// segments for any key, `.value` for `orderBy="$value"`).
    init(
        requireToken: String? = nil, seed: String? = nil, maxRequestBytes: Int? = nil,
        keepAliveSeconds: Double? = nil, indexOn: [String: [String]] = [:]
    ) throws {
        guard let python = Self.python else {
            throw ServiceError(message: "python3 is not installed")
        }
        self.python = python
        token = requireToken
        firstToken = requireToken
        folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "trove-rtdb-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var options = ["--state", folder.appendingPathComponent("state.json").path]
        if let requireToken { options += ["--require-token", requireToken] }
        if let maxRequestBytes { options += ["--max-request-bytes", String(maxRequestBytes)] }
        if let keepAliveSeconds { options += ["--keep-alive-seconds", String(keepAliveSeconds)] }
        for (path, children) in indexOn.sorted(by: { $0.key < $1.key }) {
            options += children.flatMap { ["--index", "\(path)=\($0)"] }
        }
        if let seed {
            let file = folder.appendingPathComponent("seed.json")
            try Data(seed.utf8).write(to: file)
            options += ["--data", file.path]
        }
        self.options = options
        let service: LocalService
        do {
            service = try Self.launch(python: python, options: options, port: nil)
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
        self.service = service
        port = service.port
        url = "http://127.0.0.1:\(port)"
    }

    deinit {
        service?.stop()
        try? FileManager.default.removeItem(at: folder)
    }

    private static func launch(python: String, options: [String], port: Int?) throws
        -> LocalService
    {
        try LocalService(name: "rtdb-standin.py", executable: python, port: port) { port in
            [script, "--port", String(port)] + options
        }
    }

    // MARK: - Stopping and starting

    /// Stops the stand-in (killed, as a crash or a lost server would leave it): open
    /// streams end without a closing chunk and requests find nothing listening until
    /// `start()`.
    func stop() {
        service?.stop()
        service = nil
    }

    /// Starts a stopped stand-in again on its port, with the data it held: its tree is
    /// kept in a state file after every write. The request log and faults start empty; a
    /// token changed by `sendAuthRevoked(requireToken:)` is back to the first.
    func start() throws {
        guard service == nil else { return }
        service = try Self.launch(python: python, options: options, port: port)
        token = firstToken
    }

    /// `stop()` then `start()`: what a `--follow` should ride out by reconnecting.
    func restart() throws {
        stop()
        try start()
    }

    // MARK: - Reading

    /// The whole database, as `GET /.json` returns it (nil when empty).
    func tree() throws -> Any? {
        let value = try JSONSerialization.jsonObject(
            with: try send("GET", "/.json"), options: .fragmentsAllowed)
        return value is NSNull ? nil : value
    }

    /// The whole database as the stand-in prints it: compact JSON, keys sorted.
    func treeText() throws -> String { String(decoding: try send("GET", "/.json"), as: UTF8.self) }

    /// Every request so far: `method`, `path`, `query` (each parameter's value as sent),
    /// `status`, `authorized`, and `stream` (true) on stream requests.
    func log() throws -> [[String: Any]] {
        (try JSONSerialization.jsonObject(with: try send("GET", "/.standin/log"))
            as? [[String: Any]]) ?? []
    }

    // MARK: - Writing as the app does

    /// Puts `json` at `path` (`Locations/p1`), as the app would: open streams it reaches
    /// get a `put`. Counts as a write for `failNextWrites`.
    func put(path: String, json: String) throws {
        try send("PUT", Self.resource(path), body: json)
    }

    /// A multi-path update at `path` (`json` an object of paths under it): open streams
    /// get a `patch`, or a `put` where a member replaces their location.
    func patch(path: String, json: String) throws {
        try send("PATCH", Self.resource(path), body: json)
    }

    /// Removes the value at `path`: open streams it reaches get a `put` of null.
    func delete(path: String) throws {
        try send("DELETE", Self.resource(path))
    }

    /// `/PATH.json` for a database path with or without its slashes.
    private static func resource(_ path: String) -> String {
        "/" + path.split(separator: "/").joined(separator: "/") + ".json"
    }

    // MARK: - Faults

    /// Makes the next `count` writes answer `status` with `{"error": error}`.
    func failNextWrites(status: Int, count: Int, error: String = "Service Unavailable") throws {
        try send(
            "POST", "/.standin/faults",
            body: try Self.json(
                ["status": status, "count": count, "error": error]))
    }

    // MARK: - Streams

    /// The locations of the open streams (`/Locations`), once at least `count` are open;
    /// throws if they are not within `timeout` seconds.
    @discardableResult
    func waitForStreams(count: Int = 1, timeout: Double = 15) throws -> [String] {
        let response = try request("GET", "/.standin/streams?count=\(count)&timeout=\(timeout)")
        let listing =
            (try JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]])
            ?? []
        let paths = listing.compactMap { $0["path"] as? String }
        guard response.status == 200 else {
            throw ServiceError(
                message: "\(paths.count) of \(count) streams open after \(timeout) s: \(paths)")
        }
        return paths
    }

    /// Sends `cancel` ("Permission denied", as when the rules stop allowing the read) to
    /// the open streams at or under `path`, which then end; returns how many there were.
    @discardableResult
    func sendCancel(path: String = "/") throws -> Int {
        try streamControl("cancel", ["path": path])
    }

    /// Sends `auth_revoked` to the open streams at or under `path`, which then end; with
    /// `requireToken`, later requests need that token instead (as when the old one
    /// expired). Returns how many streams there were.
    @discardableResult
    func sendAuthRevoked(path: String = "/", requireToken newToken: String? = nil) throws -> Int {
        var options: [String: Any] = ["path": path]
        if let newToken { options["require_token"] = newToken }
        let ended = try streamControl("auth_revoked", options)
        if let newToken { token = newToken }
        return ended
    }

    /// Resets the connections of the open streams at or under `path`, with no event and
    /// no closing chunk, as a network blip leaves them; returns how many there were.
    @discardableResult
    func dropStreams(path: String = "/") throws -> Int {
        try streamControl("drop", ["path": path])
    }

    /// Answers the next `count` stream requests with a 307 to the same URL (on `host`
    /// if given, `localhost` say), as the database sends a stream to another server.
    func redirectNextStreams(count: Int = 1, host: String? = nil) throws {
        var options: [String: Any] = ["count": count]
        if let host { options["host"] = host }
        try send("POST", "/.standin/streams/redirect", body: try Self.json(options))
    }

    /// Runs a stream control; it answers once the streams it ended have closed.
    private func streamControl(_ name: String, _ options: [String: Any]) throws -> Int {
        let data = try send("POST", "/.standin/streams/\(name)", body: try Self.json(options))
        let answer = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return answer?["streams"] as? Int ?? 0
    }

    // MARK: - Requests

    private static func json(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    /// The body of a request that succeeded (2xx).
    @discardableResult
    private func send(_ method: String, _ path: String, body: String? = nil) throws -> Data {
        let response = try request(method, path, body: body)
        guard response.succeeded else {
            throw ServiceError(
                message: "\(method) \(path): HTTP \(response.status) "
                    + String(decoding: response.body, as: UTF8.self))
        }
        return Data(response.body)
    }

    /// The stand-in's answer, whatever its status, after one attempt: a fault set for
    /// trove is not spent quietly on a retry of the test's own write.
    private func request(_ method: String, _ path: String, body: String? = nil) throws
        -> HTTPResponse
    {
        var headers = token.map { ["Authorization: Bearer \($0)"] } ?? []
        if body != nil { headers.append("Content-Type: application/json") }
        var configuration = HTTPConfiguration()
        configuration.maxAttempts = 1
        let outcome = HTTPClient(configuration: configuration).send(
            HTTPRequest(
                method: method, url: url + path, headers: headers,
                body: body.map { [.bytes(Array($0.utf8))] } ?? []))
        guard case .response(let response, _) = outcome else {
            throw ServiceError(message: "\(method) \(path): \(outcome)")
        }
        return response
    }
}
