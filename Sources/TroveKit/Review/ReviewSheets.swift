import Foundation
import TroveBase
import TroveStore

/// The signature of a decisions file: HMAC-SHA256 under the sheet's secret over the
/// sheet id, the workspace id, the moderator and every decision with the version it was
/// made on, written as the page writes it: `JSON.stringify(["trove-review-decisions/2",
/// sheet, workspace, moderator, [[id, version, seen, action, reason, note, at,
/// confirmed], …]])`, absent values `null`.
public enum SheetSignature {
    /// The signed text.
    public static func message(_ file: SheetDecisionFile) -> String {
        func string(_ text: String?) -> String {
            guard let text else { return "null" }
            var result = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": result += "\\\""
                case "\\": result += "\\\\"
                case "\u{08}": result += "\\b"
                case "\u{0C}": result += "\\f"
                case "\n": result += "\\n"
                case "\r": result += "\\r"
                case "\t": result += "\\t"
                case _ where scalar.value < 0x20:
                    let hex = String(scalar.value, radix: 16)
                    result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                default: result.unicodeScalars.append(scalar)
                }
            }
            return result + "\""
        }
        let decisions = file.decisions.map { decision -> String in
            var action = "", reason: String?
            switch decision.action {
            case .approve: action = "approve"
            case .flag: action = "flag"
            case .reopen: action = "reopen"
            case .reject(let why):
                action = "reject"
                reason = why.rawValue
            }
            let fields = [
                string(decision.id), string(decision.version), string(decision.expected.rawValue),
                string(action), string(reason), string(decision.note), string(decision.decidedAt),
                decision.confirmed ? "true" : "false",
            ]
            return compactJSONArray(fields)
        }
        return compactJSONArray([
            string("trove-review-decisions/2"), string(file.sheet), string(file.workspace),
            string(file.moderator), compactJSONArray(decisions),
        ])
    }

    /// The signature of `file` under `secret` (hex), as hex; nil for a secret that is
    /// not hex.
    public static func sign(_ file: SheetDecisionFile, secret: String) -> String? {
        guard let key = HMACSHA256.bytes(hex: secret) else { return nil }
        return HMACSHA256.hex(key: key, message: Array(message(file).utf8))
    }

    /// Whether `file` carries the signature of `secret`.
    public static func verify(_ file: SheetDecisionFile, secret: String) -> Bool {
        guard let key = HMACSHA256.bytes(hex: secret),
            let given = file.signature.flatMap({ HMACSHA256.bytes(hex: $0) })
        else { return false }
        let expected = HMACSHA256.code(key: key, message: Array(message(file).utf8))
        return HMACSHA256.equal(given, expected)
    }
}

/// The review sheets made from a workspace, and `review apply` of their decisions.
public struct ReviewSheets {
    let workspace: Workspace

    /// Works on `workspace`.
    public init(workspace: Workspace) {
        self.workspace = workspace
    }

    /// Records a sheet of `posts` made with `credentials` (`SheetCredentials.fresh`):
    /// each post's version and status as the sheet shows them.
    ///
    /// - Throws: `WorkspaceError`, `SQLiteError`.
    public func record(_ credentials: SheetCredentials, posts: [Post], now: Date = Date())
        throws
    {
        try workspace.write {
            try PostStore(workspace).recordSheet(credentials, posts: posts, at: timestamp(now))
        }
    }

    /// Why a decisions file is refused as a whole; nothing is recorded.
    public struct Refusal: Error, CustomStringConvertible, Sendable {
        /// What is wrong, in plain words.
        public let message: String
        /// What to do.
        public let hint: String?
        /// The message and the hint.
        public var description: String { message + (hint.map { " (\($0))" } ?? "") }
    }

    /// Checks a decisions file against the sheet it names, then records its decisions
    /// on the versions the sheet showed, each with the rules of `Moderation.decide`.
    ///
    /// The file is refused whole when it is not signed by its sheet (no signature, a
    /// wrong one, an unknown sheet id, another workspace), when its moderator is not the
    /// sheet's, or when it decides a post the sheet did not show or names another version
    /// or status than the sheet showed. A decision on a post that changed since is refused
    /// on its own (`stale`).
    ///
    /// - Parameter appliedBy: who runs the apply, recorded beside when not the moderator.
    /// - Throws: `Refusal`, `WorkspaceError`, `SQLiteError`.
    public func apply(
        _ file: SheetDecisionFile, appliedBy: String?, force: Bool, now: Date = Date()
    ) throws -> [DecisionOutcome] {
        let workspaceID = try workspace.identifier()
        if let origin = file.workspace, origin != workspaceID {
            throw Refusal(
                message: "its sheet was made from another workspace (\(origin))",
                hint: "apply it to the workspace the sheet came from (-w PATH)")
        }
        guard let signature = file.signature, !signature.isEmpty else {
            throw Refusal(
                message: "it has no signature, so nothing shows it came from a review sheet",
                hint: "decide in a sheet made by 'trove review sheet' and download from there")
        }
        let store = PostStore(workspace)
        let stored = try file.sheet.flatMap { try store.sheet($0) }
        guard let (secret, moderator) = stored else {
            throw Refusal(
                message: "no sheet '\(file.sheet ?? "")' was made from this workspace",
                hint: "apply the file of a sheet 'trove review sheet' made here")
        }
        if let problem = file.moderator.flatMap(ModeratorName.problem) {
            throw Refusal(
                message: "its moderator name is refused: \(problem)",
                hint: "a name is one line of printable text")
        }
        guard SheetSignature.verify(file, secret: secret) else {
            throw Refusal(
                message: "its signature is not valid: the file was changed after its sheet "
                    + "signed it",
                hint: "download the decisions from the sheet again")
        }
        guard file.moderator == moderator else {
            throw Refusal(
                message: "its moderator is not the one sheet \(file.sheet ?? "") was made for",
                hint: nil)
        }
        let shown = try store.postsShown(bySheet: file.sheet ?? "")
        for decision in file.decisions {
            guard let (version, status) = shown[decision.id] else {
                throw Refusal(
                    message: "it decides post '\(decision.id)', which sheet \(file.sheet ?? "") "
                        + "did not show",
                    hint: "nothing was recorded")
            }
            guard decision.version == version, decision.expected.rawValue == status else {
                throw Refusal(
                    message: "its decision on '\(decision.id)' names version "
                        + "\(decision.version ?? "none") (\(decision.expected.rawValue)), not the "
                        + "\(version) (\(status)) the sheet showed",
                    hint: "nothing was recorded")
            }
        }
        let requests = file.decisions.map {
            DecisionRequest(
                id: $0.id, expected: $0.expected, action: $0.action, note: $0.note,
                confirmed: $0.confirmed, sheet: file.sheet, decidedAt: $0.decidedAt,
                version: $0.version)
        }
        return try Moderation(workspace: workspace).decide(
            requests, moderator: moderator, appliedBy: appliedBy, force: force, now: now)
    }
}
