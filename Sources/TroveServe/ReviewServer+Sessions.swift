import TroveBase
import TroveHTTP
import TroveKit
import TroveStore

// Signing in and out, and who a request comes from.

extension ReviewServer {
    func session(_ request: ServerRequest) throws -> (String, String)? {
        guard let id = request.cookies["trove_session"] else { return nil }
        let moderator = try locked {
            // The page asks for changes every second or two whether anyone is there or
            // not: that alone does not keep a session.
            try ModeratorAccess(workspace: workspace).moderator(
                session: id, idleMinutes: configuration.sessionIdleMinutes,
                touch: request.path != "/api/changes")
        }
        return moderator.map { ($0, id) }
    }

    func signIn(_ request: ServerRequest) throws -> ServerResponse {
        let token = request.query["token"] ?? ""
        let result = try locked { try ModeratorAccess(workspace: workspace).signIn(token: token) }
        func refused(_ why: String, _ name: String) -> ServerResponse {
            .text(
                403,
                why + " Ask your lead for a new link: 'trove review moderators link "
                    + TerminalText.safe(name) + "' prints one.\n")
        }
        switch result {
        case .signedIn(_, let session):
            return ServerResponse(
                status: 303,
                headers: [
                    ("Location", "/"),
                    (
                        "Set-Cookie",
                        "trove_session=\(session); Path=/; HttpOnly; SameSite=Strict"
                            + (isSecure(request) ? "; Secure" : "")
                    ),
                ])
        case .used(let name):
            return refused(
                "This sign-in link was used already: a link signs in once (the browser it "
                    + "signed in stays signed in).", name)
        case .expired(let name):
            return refused("This sign-in link has expired.", name)
        case .unknown:
            return .text(
                403,
                "This sign-in link is not valid for this workspace (it was replaced, or the "
                    + "moderator removed). Ask your lead for a new link.\n")
        }
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
