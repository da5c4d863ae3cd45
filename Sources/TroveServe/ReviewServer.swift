import Foundation
import TroveBase
import TroveHTTP
import TroveImaging
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
        /// How `--follow` is going, for the page; nil when the server follows nothing.
        public var follow: (@Sendable () -> PostFollower.Status)?

        /// Empty.
        public init() {}
    }

    let workspace: Workspace
    let configuration: Configuration
    /// One connection, used by one request at a time.
    private let lock = NSLock()
    private var photos = PhotoCache()
    private let photoLock = NSLock()

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
        var response = route(request)
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

    private func locked<T>(_ body: () throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    private func route(_ request: ServerRequest) -> ServerResponse {
        guard let host = request.headers["host"]?.lowercased(),
            configuration.allowedHosts.contains(host)
        else {
            return .text(421, "wrong Host: this server answers only to its own address\n")
        }
        do {
            switch (request.method, request.path) {
            case ("GET", "/signin"): return try signIn(request)
            case ("GET", "/"), ("GET", "/app.js"), ("GET", "/app.css"):
                guard try session(request) != nil else {
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
            guard let (moderator, sessionID) = try session(request) else {
                return Self.error(401, "signed-out", "sign in with your link first")
            }
            if request.method == "POST" {
                guard ModeratorAccess.checkCSRF(request.headers["x-csrf-token"], session: sessionID)
                else {
                    return Self.error(403, "csrf", "this request lacks the page's CSRF token")
                }
                if let origin = request.headers["origin"],
                    !configuration.allowedHosts.contains(
                        origin.lowercased().replacingOccurrences(of: "http://", with: ""))
                {
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
            case "/api/post": return try postDetails(request.query["id"] ?? "", moderator)
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

    static let signedOutPage = """
        <!doctype html><html lang="en"><head><meta charset="utf-8"><title>trove review</title>
        </head><body><h1>Not signed in</h1><p>Open the sign-in link that
        <code>trove review moderators add NAME</code> printed for you.</p></body></html>
        """

    // MARK: - Sessions

    private func session(_ request: ServerRequest) throws -> (String, String)? {
        guard let id = request.cookies["trove_session"] else { return nil }
        let moderator = try locked {
            try ModeratorAccess(workspace: workspace).moderator(session: id)
        }
        return moderator.map { ($0, id) }
    }

    private func signIn(_ request: ServerRequest) throws -> ServerResponse {
        let token = request.query["token"] ?? ""
        guard
            let (_, session) = try locked({
                try ModeratorAccess(workspace: workspace).signIn(token: token)
            })
        else {
            return .text(
                403, "this sign-in link is not valid for this workspace (ask for a new one)\n")
        }
        return ServerResponse(
            status: 303,
            headers: [
                ("Location", "/"),
                ("Set-Cookie", "trove_session=\(session); Path=/; HttpOnly; SameSite=Strict"),
            ])
    }

    private func me(_ moderator: String, _ session: String) throws -> ServerResponse {
        let (minutes, area, seq) = try locked {
            (
                try claimMinutes(), try workspace.setting(Setting.reviewArea.key),
                try PostStore(workspace).latestDecision()
            )
        }
        let reasons = RejectionReason.allCases.map(\.rawValue)
        return Self.json(
            200,
            JSONObject([
                "moderator": moderator, "csrf": ModeratorAccess.csrfToken(session: session),
                "reasons": reasons, "claimMinutes": minutes, "area": area,
                "tiles": configuration.tiles != nil, "seq": Int(seq),
                "signals": SignalName.allCases.map(\.rawValue), "follow": followJSON(),
            ]).compactJSONText)
    }

    private func claimMinutes() throws -> Double {
        try workspace.setting(Setting.reviewClaimMinutes.key).flatMap(Double.init) ?? 5
    }

    // MARK: - Reading

    /// One page of the queue: posts matching the filters in review order, after a cursor.
    private func queue(_ request: ServerRequest, _ moderator: String) throws -> ServerResponse {
        let query = request.query
        var filter = PostStore.QueueFilter()
        switch query["status"] ?? "open" {
        case "open": filter.statuses = .open
        case "all": filter.statuses = .all
        case let word:
            guard let status = PostStatus(rawValue: word) else {
                return Self.error(400, "status", "unknown status")
            }
            filter.statuses = .only(status)
        }
        if let user = query["user"], !user.isEmpty { filter.user = user }
        if let signal = query["signal"], !signal.isEmpty {
            guard let name = SignalName(rawValue: signal) else {
                return Self.error(400, "signal", "unknown signal")
            }
            filter.signal = name
        }
        if let area = query["area"], !area.isEmpty {
            let text: String? =
                area == "review"
                ? try locked { try workspace.setting(Setting.reviewArea.key) } : area
            guard let bounds = text.flatMap(GeoBounds.init(parsing:)) else {
                return Self.error(400, "area", "an area is minLat,minLon,maxLat,maxLon")
            }
            filter.area = bounds
        }
        if let text = query["q"]?.trimmingCharacters(in: .whitespaces), !text.isEmpty {
            filter.text = text
        }
        var after: (date: String, id: String)?
        if let cursor = query["after"], let cut = cursor.firstIndex(of: "\u{1F}") {
            // After (date, id) in review order, where a missing date comes first.
            after = (String(cursor[..<cut]), String(cursor[cursor.index(after: cut)...]))
        }
        let limit = min(500, max(1, Int(query["limit"] ?? "") ?? 100))
        let (rows, total, claims) = try locked {
            try workspace.read {
                let store = PostStore(workspace)
                let rows = try store.queue(filter, after: after, limit: limit)
                let total = try store.count(filter)
                let claims = try PostClaims(workspace: workspace).live()
                return (rows, total, claims)
            }
        }
        let held = Dictionary(claims.map { ($0.postID, $0) }, uniquingKeysWith: { a, _ in a })
        let items = rows.map { summary, version in
            var object = Self.summaryJSON(summary, version: version)
            if let claim = held[summary.id] {
                object.add("claimedBy", claim.moderator)
            }
            return object.compactJSONText
        }
        let next =
            rows.count == limit ? rows.last.map { ($0.0.date ?? "") + "\u{1F}" + $0.0.id } : nil
        return Self.json(
            200,
            "{\"total\":\(total),\"next\":\(next.jsonText),\"posts\":["
                + items.joined(separator: ",") + "]}")
    }

    static func summaryJSON(_ summary: PostSummary, version: String) -> JSONObject {
        JSONObject([
            "id": summary.id, "user": summary.user, "lat": summary.latitude,
            "lon": summary.longitude, "date": summary.date, "description": summary.description,
            "status": summary.status, "signals": summary.signals, "version": version,
        ])
    }

    private func postDetails(_ id: String, _ moderator: String) throws -> ServerResponse {
        let found = try locked {
            () throws -> (Post, [Decision], [MapPoint], [String: Bool], Claim?)? in
            let query = PostQuery(workspace: workspace)
            guard let post = try query.post(id) else { return nil }
            let history = try AuditTrail(workspace: workspace).entries(for: id)
            let neighbours = try query.neighbours(of: post)
            // Other posts named by signals (duplicates, look-alikes, neighbours).
            var related: [String: Bool] = [:]
            for signal in post.signals
            where [.duplicatePhoto, .similarPhoto, .nearbyPost].contains(signal.name) {
                for word in signal.detail.split(whereSeparator: { " ,():".contains($0) }) {
                    let word = String(word)
                    if related[word] == nil, word != id,
                        let photo = try PostStore(workspace).hasPhoto(word)
                    {
                        related[word] = photo
                    }
                }
            }
            let claim = try PostClaims(workspace: workspace).live().first { $0.postID == id }
            return (post, history, neighbours, related, claim)
        }
        guard let (post, history, neighbours, related, claim) = found else {
            return Self.error(404, "post", "no such post")
        }
        var object = Self.summaryJSON(post.summary, version: post.version)
        object.add("exifLat", post.exifLatitude)
        object.add("exifLon", post.exifLongitude)
        object.add("exifTime", post.exifTime)
        object.add("photo", post.photo != nil)
        object.add("note", post.statusNote)
        object.add(
            "signalDetails",
            post.signals.map {
                JSONObject(["name": $0.name.rawValue, "detail": $0.detail])
            })
        object.add(
            "related",
            related.keys.sorted().map { JSONObject(["id": $0, "photo": related[$0] ?? false]) })
        object.add("neighbours", neighbours.map { $0.label })
        object.add(
            "history",
            history.map {
                JSONObject([
                    "at": $0.at, "moderator": $0.moderator, "from": $0.from.rawValue,
                    "to": $0.to.rawValue, "reason": $0.reason, "note": $0.note,
                ])
            })
        object.add("claimedBy", claim?.moderator)
        return Self.json(200, object.compactJSONText)
    }

    private func userPanel(_ user: String) throws -> ServerResponse {
        let (posts, decisions) = try locked {
            try workspace.read {
                let store = PostStore(workspace)
                let posts = try store.posts(ofUser: user).map {
                    Self.summaryJSON($0.summary, version: $0.version)
                }
                let decisions = try store.decisions(onPostsOf: user).map {
                    JSONObject([
                        "id": $0.postID, "at": $0.at, "moderator": $0.moderator,
                        "to": $0.to.rawValue, "reason": $0.reason, "note": $0.note,
                    ])
                }
                return (posts, decisions)
            }
        }
        return Self.json(
            200, JSONObject(["user": user, "posts": posts, "decisions": decisions]).compactJSONText)
    }

    private func changes(_ since: Int64) throws -> ServerResponse {
        let (decisions, claims, seq) = try locked {
            try workspace.read {
                let store = PostStore(workspace)
                let decisions = try store.decisions(after: since).map { change in
                    (
                        change.seq,
                        JSONObject([
                            "id": change.decision.postID, "moderator": change.decision.moderator,
                            "to": change.decision.to.rawValue, "at": change.decision.at,
                            "status": change.status, "version": change.version,
                        ])
                    )
                }
                let claims = try PostClaims(workspace: workspace).live().map {
                    JSONObject(["id": $0.postID, "moderator": $0.moderator])
                }
                let latest = try store.latestDecision()
                let seq = decisions.last?.0 ?? min(max(since, 0), latest)
                return (decisions.map { $0.1 }, claims, seq)
            }
        }
        return Self.json(
            200,
            JSONObject([
                "seq": Int(seq), "decisions": decisions, "claims": claims, "follow": followJSON(),
            ]).compactJSONText)
    }

    /// `--follow`'s state: the location, `following` (since when), `connecting`,
    /// `reconnecting` or `stopped` (with why), and what it brought in; null without it.
    private func followJSON() -> JSONObject? {
        guard let status = configuration.follow?() else { return nil }
        return JSONObject([
            "url": status.url, "state": status.state.rawValue, "since": status.since,
            "lastEvent": status.lastEvent, "lastSync": status.lastSync,
            "message": status.message, "stored": status.stored, "withdrawn": status.withdrawn,
            "refused": status.refused,
        ])
    }

    /// Rendition sizes the page asks for (the longer side).
    static let photoSizes = [160, 480, 960, 1600]

    private func photo(_ request: ServerRequest) throws -> ServerResponse {
        let id = request.query["id"] ?? ""
        guard let size = Int(request.query["size"] ?? ""), Self.photoSizes.contains(size) else {
            return Self.error(400, "size", "size is one of 160, 480, 960, 1600")
        }
        let found = try locked { try PostQuery(workspace: workspace).post(id) }
        guard let post = found, let path = post.photo else {
            return Self.error(404, "photo", "no photo for this post")
        }
        let key = "\(id)\u{1F}\(post.photoHash ?? "")\u{1F}\(size)"
        photoLock.lock()
        let cached = photos.get(key)
        photoLock.unlock()
        if let cached {
            return ServerResponse(
                status: 200, type: cached.type, body: cached.bytes,
                headers: [("Cache-Control", "private, max-age=300")])
        }
        let bytes = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber
        guard (bytes?.intValue ?? .max) <= 64 << 20,
            let data = FileManager.default.contents(atPath: path).map(Array.init)
        else {
            return Self.error(404, "photo", "the photo cannot be read")
        }
        // Re-encoded from pixels: no EXIF or other metadata leaves with it.
        guard
            let image = try? Thumbnailer.render(
                source: data, box: (size, size), mode: .fit, quality: 80)
        else { return Self.error(404, "photo", "the photo cannot be decoded") }
        let rendition = PhotoCache.Entry(
            type: image.format == .png ? "image/png" : "image/jpeg", bytes: image.bytes)
        photoLock.lock()
        photos.put(key, rendition)
        photoLock.unlock()
        return ServerResponse(
            status: 200, type: rendition.type, body: rendition.bytes,
            headers: [("Cache-Control", "private, max-age=300")])
    }

    private func map(_ id: String) throws -> ServerResponse {
        let found = try locked { () throws -> (Post, [MapPoint], GeoBounds?)? in
            let query = PostQuery(workspace: workspace)
            guard let post = try query.post(id) else { return nil }
            let area = try workspace.setting(Setting.reviewArea.key).flatMap(
                GeoBounds.init(parsing:))
            return (post, try query.neighbours(of: post), area)
        }
        guard let (post, neighbours, area) = found, let lat = post.latitude,
            let lon = post.longitude
        else { return Self.error(404, "post", "no position for this post") }
        var points = [MapPoint(.claimed, latitude: lat, longitude: lon)]
        if let exifLat = post.exifLatitude, let exifLon = post.exifLongitude {
            points.append(MapPoint(.photo, latitude: exifLat, longitude: exifLon))
        }
        points += neighbours
        let drawn = PlaceMap(points: points, tiles: configuration.tiles)
        var svg = drawn.svg()
        if let area, let outline = Self.outline(area, on: drawn),
            let marker = ["<line class=\"gap\"", "<circle", "<rect class=\"photo-position\""]
                .compactMap({ svg.range(of: $0)?.lowerBound }).min()
        {
            // Under the points, over the basemap.
            svg.insert(contentsOf: outline, at: marker)
        }
        svg = svg.replacingOccurrences(
            of: "<svg class=\"map\"",
            with: "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"map\"")
        return ServerResponse(status: 200, type: "image/svg+xml", body: Array(svg.utf8))
    }

    /// The review area's outline on a post's map (in the map's own projection), or nil
    /// when the area crosses the antimeridian.
    static func outline(_ area: GeoBounds, on map: PlaceMap) -> String? {
        guard let centre = map.points.first, area.minLongitude <= area.maxLongitude else {
            return nil
        }
        let zoom = map.zoom()
        let (cx, cy) = PlaceMap.project(centre.latitude, centre.longitude, zoom: zoom)
        let left = cx - PlaceMap.width / 2
        let top = cy - PlaceMap.height / 2
        let (x1, y1) = PlaceMap.project(area.maxLatitude, area.minLongitude, zoom: zoom)
        let (x2, y2) = PlaceMap.project(area.minLatitude, area.maxLongitude, zoom: zoom)
        func clamp(_ value: Double) -> Double { min(2000, max(-2000, value)) }
        let x = clamp(x1 - left)
        let y = clamp(y1 - top)
        let width = clamp(x2 - left) - x
        let height = clamp(y2 - top) - y
        return String(
            format: "<rect class=\"review-area\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                + "height=\"%.1f\" fill=\"none\" stroke=\"#2e7d32\" stroke-width=\"2\" "
                + "stroke-dasharray=\"6 3\"><title>the review area</title></rect>",
            x, y, width, height)
    }

    // MARK: - Writing

    private func post(_ path: String, _ body: JSONValue, moderator: String, session: String)
        throws -> ServerResponse
    {
        let id = body["id"]?.stringValue ?? ""
        switch path {
        case "/api/claim":
            let held = try locked {
                try PostClaims(workspace: workspace).claim(
                    id, for: moderator, minutes: try claimMinutes())
            }
            if let held {
                return Self.json(
                    409,
                    JSONObject([
                        "error": "taken", "by": held.moderator,
                        "message": "\(held.moderator) has this post open",
                    ]).compactJSONText)
            }
            return Self.json(200, "{\"claimed\":true}")
        case "/api/release":
            try locked { try PostClaims(workspace: workspace).release(id, by: moderator) }
            return Self.json(200, "{\"released\":true}")
        case "/api/decide": return try decide(id, body, moderator)
        case "/api/undo": return try undo(id, moderator)
        case "/api/reject-user": return try rejectUser(body, moderator)
        case "/api/signout":
            try locked { try ModeratorAccess(workspace: workspace).signOut(session: session) }
            return ServerResponse(
                status: 200,
                headers: [
                    ("Content-Type", "application/json"),
                    ("Set-Cookie", "trove_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0"),
                ], body: Array("{}".utf8))
        default: return Self.error(404, "route", "no such route")
        }
    }

    private func action(_ body: JSONValue) -> ReviewAction? {
        switch body["action"]?.stringValue {
        case "approve": return .approve
        case "flag": return .flag
        case "reject":
            return body["reason"]?.stringValue.flatMap(RejectionReason.init(rawValue:)).map {
                .reject($0)
            }
        default: return nil
        }
    }

    static func note(_ body: JSONValue) -> String? {
        guard let text = body["note"]?.stringValue?.trimmingCharacters(in: .whitespacesAndNewlines),
            !text.isEmpty
        else { return nil }
        return String(text.prefix(1000))
    }

    private func decide(_ id: String, _ body: JSONValue, _ moderator: String) throws
        -> ServerResponse
    {
        guard let action = action(body) else {
            return Self.error(400, "action", "action is approve, reject (with a reason) or flag")
        }
        guard let version = body["version"]?.stringValue, PostVersion.isVersion(version[...]),
            let seen = body["seen"]?.stringValue.flatMap(PostStatus.init(rawValue:))
        else { return Self.error(400, "version", "a decision names the version and status seen") }
        let outcome = try locked { () throws -> DecisionOutcome? in
            if let held = try PostClaims(workspace: workspace).live().first(where: {
                $0.postID == id
            }), held.moderator != moderator {
                return nil
            }
            let outcome = try Moderation(workspace: workspace).decide(
                post: id, version: version, action: action, moderator: moderator,
                expected: seen, note: Self.note(body),
                confirmed: body["confirmed"]?.boolValue ?? false)
            if case .recorded = outcome {
                try PostClaims(workspace: workspace).release(id, by: moderator)
            }
            return outcome
        }
        guard let outcome else {
            return Self.error(409, "taken", "another moderator has this post open")
        }
        return Self.answer(outcome)
    }

    static func answer(_ outcome: DecisionOutcome) -> ServerResponse {
        switch outcome {
        case .recorded(let decision):
            return json(
                200,
                JSONObject([
                    "ok": true, "id": decision.postID, "status": decision.to.rawValue,
                    "version": decision.version,
                ]).compactJSONText)
        case .unknown: return error(404, "post", "no such post")
        case .stale:
            return error(
                409, "stale", "changed since you saw it: reload the post to see what changed")
        case .superseded(_, _, let last), .alreadyDecided(_, _, let last):
            return error(
                409, "decided", "already \(last.to.rawValue) by \(last.moderator): reload")
        case .conflict(_, _, let current, let last):
            return error(
                409, "decided",
                "it is \(current.rawValue) now" + (last.map { " (by \($0.moderator))" } ?? "")
                    + ": reload")
        case .needsConfirmation(_, let detail):
            return error(409, "confirm", "the photo could not be read (\(detail)): approve anyway?")
        case .withdrawn: return error(409, "withdrawn", "its user withdrew this post")
        case .unchanged, .alreadyApplied:
            return error(409, "unchanged", "nothing to do")
        }
    }

    /// Reverts the moderator's own latest decision on `id`, unless someone decided it since.
    private func undo(_ id: String, _ moderator: String) throws -> ServerResponse {
        let outcome = try locked { () throws -> DecisionOutcome? in
            let moderation = Moderation(workspace: workspace)
            guard let last = try moderation.lastDecision(id), last.moderator == moderator else {
                return nil
            }
            return try moderation.decide(
                post: id, version: last.version, action: .revert(to: last.from),
                moderator: moderator, expected: last.to, note: "undone")
        }
        guard let outcome else {
            return Self.error(
                409, "not-yours", "someone else decided this post since: nothing undone")
        }
        return Self.answer(outcome)
    }

    /// Rejects the pending posts of one user the page listed (id and version each), in
    /// one transaction; a post changed since is left pending.
    private func rejectUser(_ body: JSONValue, _ moderator: String) throws -> ServerResponse {
        guard let reason = body["reason"]?.stringValue.flatMap(RejectionReason.init(rawValue:)),
            case .array(let items)? = body["posts"]
        else { return Self.error(400, "reject", "a reason and the posts shown are needed") }
        let requests = items.prefix(1000).compactMap { item -> DecisionRequest? in
            guard let id = item["id"]?.stringValue, let version = item["version"]?.stringValue
            else { return nil }
            return DecisionRequest(
                id: id, expected: .pending, action: .reject(reason), note: Self.note(body),
                version: version)
        }
        let user = body["user"]?.stringValue
        let outcomes = try locked { () throws -> [DecisionOutcome] in
            // Only that user's posts, whatever the list says.
            let store = PostStore(workspace)
            let mine = try requests.filter { try store.isPost($0.id, of: user) }
            return try Moderation(workspace: workspace).decide(
                mine, moderator: moderator, force: false)
        }
        var rejected = 0
        var refused: [JSONObject] = []
        for outcome in outcomes {
            if case .recorded = outcome {
                rejected += 1
                continue
            }
            let answer = Self.answer(outcome)
            refused.append(JSONObject(["message": String(decoding: answer.body, as: UTF8.self)]))
        }
        return Self.json(
            200, JSONObject(["rejected": rejected, "refused": refused.count]).compactJSONText)
    }
}

/// Renditions made for the page, the most recent few hundred kept.
struct PhotoCache {
    struct Entry {
        var type: String
        var bytes: [UInt8]
    }

    private var entries: [String: Entry] = [:]
    private var order: [String] = []
    let capacity = 400

    func get(_ key: String) -> Entry? { entries[key] }

    mutating func put(_ key: String, _ entry: Entry) {
        if entries[key] == nil { order.append(key) }
        entries[key] = entry
        if order.count > capacity {
            entries[order.removeFirst()] = nil
        }
    }
}
