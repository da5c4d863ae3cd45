import TroveBase
import TroveHTTP
import TroveImaging
import TroveKit
import TroveStore

// What the page writes: claims, decisions, undo and a user's posts rejected at once.

extension ReviewServer {
    func post(_ path: String, _ body: JSONValue, moderator: String, session: String)
        throws -> ServerResponse
    {
        let id = body["id"]?.stringValue ?? ""
        switch path {
        case "/api/claim":
            // `renew`: the page keeps the post on view claimed; a claim a lead released
            // is not renewed.
            let renewal = try locked { () throws -> ClaimRenewal in
                let claims = PostClaims(workspace: workspace)
                let minutes = try claimMinutes()
                if body["renew"]?.boolValue == true {
                    return try claims.renew(id, for: moderator, minutes: minutes)
                }
                return try claims.claim(id, for: moderator, minutes: minutes).map {
                    .heldBy($0)
                } ?? .renewed
            }
            switch renewal {
            case .renewed: return Self.json(200, "{\"claimed\":true}")
            case .heldBy(let held):
                return Self.json(
                    409,
                    JSONObject([
                        "error": "taken", "by": held.moderator,
                        "message": "\(held.moderator) has this post open",
                    ]).compactJSONText)
            case .lost:
                return Self.json(
                    409,
                    JSONObject([
                        "error": "lost",
                        "message": "someone else had this post open since your claim ended",
                    ]).compactJSONText)
            case .released(let lead):
                return Self.json(
                    409,
                    JSONObject([
                        "error": "released", "by": lead,
                        "message": "\(lead) released your claim on this post",
                    ]).compactJSONText)
            }
        case "/api/release":
            try locked { try PostClaims(workspace: workspace).release(id, by: moderator) }
            return Self.json(200, "{\"released\":true}")
        case "/api/decide": return try decide(id, body, moderator)
        case "/api/undo": return try undo(id, body, moderator)
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

    func action(_ body: JSONValue) -> ReviewAction? {
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

    /// The boxes of an approval "with redaction": `redact`, a list of at most 20
    /// `x,y,w,h` fractions of the upright photo (none when absent).
    static func redaction(_ body: JSONValue, _ action: ReviewAction)
        -> Result<[RedactionBox], RedactionBox.BoxError>
    {
        guard let value = body["redact"], value != .null else { return .success([]) }
        guard case .array(let items) = value, items.count <= 20 else {
            return .failure(.init("redact is a list of at most 20 boxes, each \"x,y,w,h\""))
        }
        guard case .approve = action else {
            return .failure(.init("only an approval takes boxes to redact"))
        }
        var boxes: [RedactionBox] = []
        for item in items {
            guard let text = item.stringValue else {
                return .failure(.init("a box is a string \"x,y,w,h\", not \(item.kind)"))
            }
            switch RedactionBox.parse(text) {
            case .success(let box): boxes.append(box)
            case .failure(let error): return .failure(error)
            }
        }
        return .success(boxes)
    }

    func decide(_ id: String, _ body: JSONValue, _ moderator: String) throws
        -> ServerResponse
    {
        guard let action = action(body) else {
            return Self.error(400, "action", "action is approve, reject (with a reason) or flag")
        }
        guard let version = body["version"]?.stringValue, PostVersion.isVersion(version[...]),
            let seen = body["seen"]?.stringValue.flatMap(PostStatus.init(rawValue:))
        else { return Self.error(400, "version", "a decision names the version and status seen") }
        let redaction: [RedactionBox]
        switch Self.redaction(body, action) {
        case .success(let boxes): redaction = boxes
        case .failure(let error): return Self.error(400, "redact", error.description)
        }
        let outcome = try locked { () throws -> DecisionOutcome? in
            if let held = try PostClaims(workspace: workspace).live().first(where: {
                $0.postID == id
            }), held.moderator != moderator {
                return nil
            }
            let outcome = try Moderation(workspace: workspace).decide(
                post: id, version: version, action: action, moderator: moderator,
                expected: seen, note: Self.note(body),
                confirmed: body["confirmed"]?.boolValue ?? false, redaction: redaction)
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
        case .alreadyDecided(_, let status, let last):
            // Who and what, so that a page sending a decision again (its first answer lost
            // on the way) sees that its own decision is the one on record.
            return json(
                409,
                JSONObject([
                    "error": "decided", "status": status.rawValue, "by": last.who,
                    "message": "already \(last.to.rawValue) by \(last.who): reload",
                ]).compactJSONText)
        case .superseded(_, _, let last):
            return error(
                409, "decided", "already \(last.to.rawValue) by \(last.who): reload")
        case .conflict(_, _, let current, let last):
            return error(
                409, "decided",
                "it is \(current.rawValue) now" + (last.map { " (by \($0.who))" } ?? "")
                    + ": reload")
        case .needsConfirmation(_, let detail):
            return error(409, "confirm", "the photo could not be read (\(detail)): approve anyway?")
        case .withdrawn: return error(409, "withdrawn", "its user withdrew this post")
        case .unchanged, .alreadyApplied:
            return error(409, "unchanged", "nothing to do")
        }
    }

    /// Undoes the moderator's own latest decision on `id` (the whole action, for a bulk
    /// one), while nobody decided the post since. The page names the version its decision
    /// was made on and the status it left (`seen`): a post no longer there is refused, so
    /// an undo sent again after a lost answer does not undo the undo.
    func undo(_ id: String, _ body: JSONValue, _ moderator: String) throws -> ServerResponse {
        let version = body["version"]?.stringValue
        if let version, !PostVersion.isVersion(version[...]) {
            return Self.error(400, "version", "not a version")
        }
        var expected: PostStatus?
        if let seen = body["seen"]?.stringValue {
            guard let status = PostStatus(rawValue: seen) else {
                return Self.error(400, "seen", "not a status")
            }
            expected = status
        }
        let outcome = try locked {
            try Moderation(workspace: workspace).undo(
                post: id, moderator: moderator, version: version, expected: expected)
        }
        switch outcome {
        case .undone(let entries, let kept):
            let status = entries.first { $0.postID == id }?.to.rawValue
            return Self.json(
                200,
                JSONObject([
                    "ok": true, "id": id, "status": status,
                    "undone": entries.map {
                        JSONObject(["id": $0.postID, "status": $0.to.rawValue])
                    },
                    "kept": kept.count,
                ]).compactJSONText)
        case .unknown: return Self.error(404, "post", "no such post")
        case .nothing: return Self.error(409, "nothing", "no decision of yours on it to undo")
        case .alreadyUndone(_, let last):
            // Who and where, so that a page sending its undo again (the first answer lost)
            // sees that its own undo is the one on record.
            return Self.json(
                409,
                JSONObject([
                    "error": "undone", "by": last.who, "status": last.to.rawValue,
                    "message": "already undone by \(last.who): it is \(last.to.rawValue)",
                ]).compactJSONText)
        case .overtaken(_, let last):
            return Self.error(
                409, "not-yours",
                "\(last.who) \(last.kind == .decision ? "decided" : "changed") this post since: "
                    + "nothing undone")
        case .changed(_, let last):
            return Self.error(
                409, "changed",
                "it is no longer as your decision left it (\(last.to.rawValue), version "
                    + "\(last.version ?? "?")): nothing undone")
        }
    }

    /// Rejects the pending posts of one user the page listed (id and version each), in
    /// one transaction and as one action (one undo takes it all back); a post changed
    /// since is left pending, and so is one a colleague holds (counted in `claimed`).
    func rejectUser(_ body: JSONValue, _ moderator: String) throws -> ServerResponse {
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
        let (outcomes, claimed) = try locked { () throws -> ([DecisionOutcome], [Claim]) in
            // Only that user's posts, whatever the list says, and none a colleague holds.
            let store = PostStore(workspace)
            let mine = try requests.filter { try store.isPost($0.id, of: user) }
            let held = Dictionary(
                try PostClaims(workspace: workspace).live().filter { $0.moderator != moderator }
                    .map { ($0.postID, $0) }, uniquingKeysWith: { first, _ in first })
            let free = mine.filter { held[$0.id] == nil }
            let outcomes = try Moderation(workspace: workspace).decide(
                free, moderator: moderator, force: false, oneAction: true)
            return (outcomes, mine.compactMap { held[$0.id] })
        }
        var rejected: [Decision] = []
        var refused: [JSONObject] = []
        for outcome in outcomes {
            if case .recorded(let decision) = outcome {
                rejected.append(decision)
                continue
            }
            let answer = Self.answer(outcome)
            refused.append(JSONObject(["message": String(decoding: answer.body, as: UTF8.self)]))
        }
        // The whole rejection is one action: the page's undo names its first post.
        let undo = rejected.first.map {
            JSONObject([
                "id": $0.postID, "version": $0.version, "status": $0.to.rawValue,
                "count": rejected.count,
            ])
        }
        return Self.json(
            200,
            JSONObject([
                "rejected": rejected.count, "refused": refused.count,
                "claimed": claimed.count,
                "claimedBy": Array(Set(claimed.map(\.moderator))).sorted(),
                "ids": rejected.map(\.postID), "undo": undo,
            ]).compactJSONText)
    }
}
