import Foundation
import TroveBase
import TroveHTTP
import TroveKit
import TroveStore

/// `trove review serve`: the review queue served to several moderators' browsers at once.
///
/// Every decision goes through `Moderation.decide` with the version the page showed, so a
/// post changed since is refused and stays in the queue. Routes (all JSON unless said):
///
/// - `GET /signin?token=T`: a moderator's link; sets the session cookie, 303 to `/`.
/// - `GET /`, `/app.js`, `/app.css`: the page (401 without a session).
/// - `GET /api/me`, `/api/queue`, `/api/post?id=`, `/api/user?user=`, `/api/changes?since=`,
///   `/api/photo?id=&size=` (a rendition, made on demand and cached, no metadata),
///   `/api/map.svg?id=`.
/// - `POST /api/claim`, `/api/release`, `/api/decide`, `/api/undo`, `/api/reject-user`,
///   `/api/signout`: JSON bodies, the `X-CSRF-Token` header of the session.
///
/// Statuses: 400 malformed, 401 no session, 403 wrong CSRF token or sign-in token,
/// 404 no such route or post, 409 refused decision (stale, taken, decided), 413 body too
/// large, 415 not JSON, 421 wrong Host; libmicrohttpd answers 431 and 414 to headers and
/// request lines over the connection's 64 KiB.
public final class ReviewServer: @unchecked Sendable {
    /// What the server is told at start.
    public struct Configuration: Sendable {
        /// Host names and `host:port` forms the `Host` header may carry.
        public var allowedHosts: Set<String> = []
        /// A basemap the moderators' maps load tiles from.
        public var tiles: TileSource?
        /// The page, its script and style.
        public var page = "", script = "", style = ""
        /// Whether a proxy on this machine is in front: its `X-Forwarded-Proto` is trusted
        /// from loopback peers only.
        public var behindProxy = false
        /// Whether the server itself speaks TLS.
        public var tls = false
        /// Minutes a session lasts without a request.
        public var sessionIdleMinutes = ModeratorAccess.defaultSessionIdleMinutes
        /// How `--follow` is going, for the page; nil when the server follows nothing.
        public var follow: (@Sendable () -> PostFollower.Status)?

        /// Empty.
        public init() {}
    }

    let workspace: Workspace
    let configuration: Configuration
    /// One connection, used by one request at a time.
    let lock = NSLock()
    var photos = PhotoCache()
    let photoLock = NSLock()

    /// Serves `workspace`.
    public init(workspace: Workspace, configuration: Configuration) {
        self.workspace = workspace
        self.configuration = configuration
    }

    /// The Content-Security-Policy of every response.
    public var contentSecurityPolicy: String {
        let images = "'self'" + (configuration.tiles.map { " " + $0.origin } ?? "")
        return
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src \(images); "
            + "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    }

    /// Answers one request.
    public func respond(_ request: ServerRequest) -> ServerResponse {
        var client: String?
        var response = route(request, signedIn: &client)
        // A signed-in browser's connections count as its session's, not among the
        // unknown ones a flood of idle connections fills.
        response.client = client
        response.headers += [
            ("Content-Security-Policy", contentSecurityPolicy),
            ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer"),
            ("X-Frame-Options", "DENY"), ("Cross-Origin-Resource-Policy", "same-origin"),
        ]
        if !response.headers.contains(where: { $0.0 == "Cache-Control" }) {
            response.headers.append(("Cache-Control", "no-store"))
        }
        return response
    }

    static func json(_ status: Int, _ text: String) -> ServerResponse {
        ServerResponse(
            status: status, type: "application/json; charset=utf-8", body: Array(text.utf8))
    }

    static func error(_ status: Int, _ code: String, _ message: String) -> ServerResponse {
        json(status, JSONObject(["error": code, "message": message]).compactJSONText)
    }

    func locked<T>(_ body: () throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    func route(_ request: ServerRequest, signedIn client: inout String?) -> ServerResponse {
        guard let host = request.headers["host"]?.lowercased(),
            configuration.allowedHosts.contains(host)
        else {
            return .text(421, "wrong Host: this server answers only to its own address\n")
        }
        do {
            if request.method == "GET" && request.path == "/signin" { return try signIn(request) }
            let signedIn = try session(request)
            client = signedIn.map { "session " + $0.1 }
            switch (request.method, request.path) {
            case ("GET", "/"), ("GET", "/app.js"), ("GET", "/app.css"):
                guard signedIn != nil else {
                    return ServerResponse(
                        status: 401, type: "text/html; charset=utf-8",
                        body: Array(Self.signedOutPage.utf8))
                }
                switch request.path {
                case "/app.js":
                    return ServerResponse(
                        status: 200, type: "text/javascript; charset=utf-8",
                        body: Array(configuration.script.utf8))
                case "/app.css":
                    return ServerResponse(
                        status: 200, type: "text/css; charset=utf-8",
                        body: Array(configuration.style.utf8))
                default:
                    return ServerResponse(
                        status: 200, type: "text/html; charset=utf-8",
                        body: Array(configuration.page.utf8))
                }
            default: break
            }
            guard request.path.hasPrefix("/api/") else {
                return .text(404, "not found\n")
            }
            guard let (moderator, sessionID) = signedIn else {
                return Self.error(401, "signed-out", "sign in with your link first")
            }
            if request.method == "POST" {
                guard ModeratorAccess.checkCSRF(request.headers["x-csrf-token"], session: sessionID)
                else {
                    return Self.error(403, "csrf", "this request lacks the page's CSRF token")
                }
                if let origin = request.headers["origin"], !sameOrigin(origin, request) {
                    return Self.error(403, "origin", "a request from another site")
                }
                guard request.headers["content-type"]?.hasPrefix("application/json") == true
                else { return Self.error(415, "type", "send JSON") }
                var parser = JSONParser(request.body)
                guard let body = try? parser.parseValue(), case .object = body else {
                    return Self.error(400, "json", "the body is not a JSON object")
                }
                return try post(request.path, body, moderator: moderator, session: sessionID)
            }
            guard request.method == "GET" || request.method == "HEAD" else {
                return Self.error(405, "method", "GET or POST only")
            }
            switch request.path {
            case "/api/me": return try me(moderator, sessionID)
            case "/api/queue": return try queue(request, moderator)
            case "/api/post":
                return try postDetails(
                    request.query["id"] ?? "", moderator, seen: request.query["seen"])
            case "/api/user": return try userPanel(request.query["user"] ?? "")
            case "/api/changes": return try changes(Int64(request.query["since"] ?? "") ?? 0)
            case "/api/photo": return try photo(request)
            case "/api/map.svg": return try map(request.query["id"] ?? "")
            default: return Self.error(404, "route", "no such route")
            }
        } catch {
            return Self.error(500, "internal", "\(error)")
        }
    }

    /// Whether the browser reached the server over HTTPS: the server's own TLS, or a
    /// proxy on this machine (a loopback peer, with `--behind-proxy`) that says so in
    /// `X-Forwarded-Proto` (the last value, the one the nearest proxy added). The header
    /// from any other peer is ignored.
    func isSecure(_ request: ServerRequest) -> Bool {
        if configuration.tls { return true }
        guard configuration.behindProxy, HTTPServer.isLoopback(request.peer),
            let proto = request.headers["x-forwarded-proto"]
        else { return false }
        let last = proto.split(separator: ",").last.map(String.init) ?? ""
        return last.trimmingCharacters(in: .whitespaces).lowercased() == "https"
    }

    /// Whether `origin` is this server as the browser reached it (its scheme too).
    func sameOrigin(_ origin: String, _ request: ServerRequest) -> Bool {
        let scheme = isSecure(request) ? "https://" : "http://"
        let lowered = origin.lowercased()
        guard lowered.hasPrefix(scheme) else { return false }
        return configuration.allowedHosts.contains(String(lowered.dropFirst(scheme.count)))
    }

    static let signedOutPage = """
        <!doctype html><html lang="en"><head><meta charset="utf-8"><title>trove review</title>
        <meta name="viewport" content="width=device-width, initial-scale=1">
        </head><body><h1>Not signed in</h1><p>Sign in with a link from your lead:
        <code>trove review moderators link NAME</code> prints a new one. A link signs in
        once and expires; a session ends after a while without use.</p></body></html>
        """
}
