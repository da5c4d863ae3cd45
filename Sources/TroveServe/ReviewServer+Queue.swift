import TroveBase
import TroveHTTP
import TroveKit
import TroveStore

// What the page reads: the queue, a post, a user's posts and what changed since.

extension ReviewServer {
    /// One page of the queue: posts matching the filters in review order, after a cursor.
    func queue(_ request: ServerRequest, _ moderator: String) throws -> ServerResponse {
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
            let bounds =
                area == "review"
                ? try locked { try workspace.settings().reviewArea } : GeoBounds(parsing: area)
            guard let bounds else {
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

    /// A post as the card shows it. `earlier` is the version to show it beside, then and
    /// now, when the post changed since: the version the page saw (`seen`), else the one
    /// the latest decision on it was made on, until a moderator decides on this one.
    func postDetails(_ id: String, _ moderator: String, seen: String? = nil) throws
        -> ServerResponse
    {
        let found = try locked {
            () throws -> (Post, [Decision], [MapPoint], [String: Bool], Claim?, JSONObject?)? in
            let query = PostQuery(workspace: workspace)
            guard let post = try query.post(id) else { return nil }
            let history = try AuditTrail(workspace: workspace).entries(for: id)
            let earlier = try Self.earlier(
                post, history: history, versions: query.versions(id), seen: seen)
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
            return (post, history, neighbours, related, claim, earlier)
        }
        guard let (post, history, neighbours, related, claim, earlier) = found else {
            return Self.error(404, "post", "no such post")
        }
        var object = Self.summaryJSON(post.summary, version: post.version)
        object.add("exifLat", post.exifLatitude)
        object.add("exifLon", post.exifLongitude)
        object.add("exifTime", post.exifTime)
        // Every position links to OpenStreetMap, as in the sheet and `review show`.
        if let lat = post.latitude, let lon = post.longitude {
            object.add("positionLink", ReviewMap.openStreetMapURL(latitude: lat, longitude: lon))
        }
        if let lat = post.exifLatitude, let lon = post.exifLongitude {
            object.add(
                "photoPositionLink", ReviewMap.openStreetMapURL(latitude: lat, longitude: lon))
        }
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
        object.add("history", history.map(Self.entryJSON))
        object.add("claimedBy", claim?.moderator)
        object.add("earlier", earlier)
        return Self.json(200, object.compactJSONText)
    }

    /// The earlier version of `post` to show beside it (see `postDetails`), nil when there
    /// is none: `why` says which, `seen` or `decided`.
    static func earlier(
        _ post: Post, history: [Decision], versions: [PostVersionRecord], seen: String?
    ) -> JSONObject? {
        var why = "seen"
        var wanted = seen.flatMap { $0 == post.version ? nil : $0 }
        if wanted == nil {
            // The latest moderator's decision (or undo): made on another version, this
            // one is still to be decided.
            let decided = history.last {
                $0.moderator != nil && [.decision, .undo].contains($0.kind)
            }
            guard let version = decided?.version, version != post.version else { return nil }
            wanted = version
            why = "decided"
        }
        guard let then = versions.first(where: { $0.version == wanted }) else { return nil }
        return JSONObject([
            "version": then.version, "why": why, "seenAt": then.seenAt, "user": then.user,
            "lat": then.latitude, "lon": then.longitude, "date": then.date,
            "description": then.description,
            "photoChanged": then.photoReference != post.photoReference
                || then.photoHash != post.photoHash,
        ])
    }

    func userPanel(_ user: String) throws -> ServerResponse {
        let (posts, decisions) = try locked {
            try workspace.read {
                let store = PostStore(workspace)
                let posts = try store.posts(ofUser: user).map {
                    Self.summaryJSON($0.summary, version: $0.version)
                }
                let decisions = try store.decisions(onPostsOf: user).map(Self.entryJSON)
                return (posts, decisions)
            }
        }
        return Self.json(
            200, JSONObject(["user": user, "posts": posts, "decisions": decisions]).compactJSONText)
    }

    /// What changed since decision `since`: the decisions, the running claims, and
    /// `imports`, the latest post version recorded (the page reads its queue again when
    /// it moves: new posts reach open pages).
    func changes(_ since: Int64) throws -> ServerResponse {
        let (decisions, claims, seq, imports) = try locked {
            try workspace.read {
                let store = PostStore(workspace)
                let decisions = try store.decisions(after: since).map { change in
                    (
                        change.seq,
                        Self.entryJSON(change.decision).merging(
                            JSONObject(["status": change.status, "version": change.version]))
                    )
                }
                let claims = try PostClaims(workspace: workspace).live().map {
                    JSONObject(["id": $0.postID, "moderator": $0.moderator])
                }
                let latest = try store.latestDecision()
                let seq = decisions.last?.0 ?? min(max(since, 0), latest)
                return (decisions.map { $0.1 }, claims, seq, try store.latestVersion())
            }
        }
        return Self.json(
            200,
            JSONObject([
                "seq": Int(seq), "decisions": decisions, "claims": claims,
                "imports": Int(imports), "follow": followJSON(),
            ]).compactJSONText)
    }

    /// `--follow`'s state: the location, `following` (since when), `connecting`,
    /// `reconnecting` or `stopped` (with why), and what it brought in; null without it.
    func followJSON() -> JSONObject? {
        guard let status = configuration.follow?() else { return nil }
        return JSONObject([
            "url": status.url, "state": status.state.rawValue, "since": status.since,
            "lastEvent": status.lastEvent, "lastSync": status.lastSync,
            "message": status.message, "stored": status.stored, "withdrawn": status.withdrawn,
            "refused": status.refused,
        ])
    }

    /// An entry of the trail as the page shows it: `moderator` is null for what users
    /// and imports did, `who` says it in words (`user u1`, `import`), `kind` what it is.
    static func entryJSON(_ entry: Decision) -> JSONObject {
        JSONObject([
            "id": entry.postID, "at": entry.at, "kind": entry.kind.rawValue,
            "moderator": entry.moderator, "who": entry.who, "from": entry.from.rawValue,
            "to": entry.to.rawValue, "reason": entry.reason, "note": entry.note,
            "seq": entry.seq,
        ])
    }

    /// Rendition sizes the page asks for (the longer side).
    static let photoSizes = [160, 480, 960, 1600]
}
