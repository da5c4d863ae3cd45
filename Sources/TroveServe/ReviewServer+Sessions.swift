import TroveBase
import TroveHTTP
import TroveKit
import TroveStore

// Signing in and out, and who a request comes from.

extension ReviewServer {
    func session(_ request: ServerRequest) throws -> (String, String)? {
        guard let id = request.cookies["trove_session"] else { return nil }
        let moderator = try locked {
            try ModeratorAccess(workspace: workspace).moderator(session: id)
        }
        return moderator.map { ($0, id) }
    }

    func signIn(_ request: ServerRequest) throws -> ServerResponse {
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

    func me(_ moderator: String, _ session: String) throws -> ServerResponse {
        let (settings, seq, undoable, imports) = try locked {
            (
                try workspace.settings(), try PostStore(workspace).latestDecision(),
                try Moderation(workspace: workspace).undoable(by: moderator),
                try PostStore(workspace).latestVersion()
            )
        }
        let reasons = RejectionReason.allCases.map(\.rawValue)
        return Self.json(
            200,
            JSONObject([
                "moderator": moderator, "csrf": ModeratorAccess.csrfToken(session: session),
                "reasons": reasons, "claimMinutes": settings.claimMinutes,
                "area": settings.reviewArea?.text,
                "tiles": configuration.tiles != nil, "seq": Int(seq), "imports": Int(imports),
                "signals": SignalName.allCases.map(\.rawValue), "follow": followJSON(),
                // What `u` undoes, oldest first: the page's undo survives a reload.
                "undoable": undoable.reversed().map(Self.undoableJSON),
            ]).compactJSONText)
    }

    func claimMinutes() throws -> Double {
        try workspace.settings().claimMinutes
    }

    /// An action the page can undo: one of its posts (the undo of one undoes the whole
    /// action), the version decided on, the status it left, and how many posts it holds.
    static func undoableJSON(_ action: UndoableAction) -> JSONObject {
        let first = action.posts.first
        return JSONObject([
            "id": first?.id, "version": first?.version, "status": first?.status.rawValue,
            "count": action.posts.count,
        ])
    }
}
