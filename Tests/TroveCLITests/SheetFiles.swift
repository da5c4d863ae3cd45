import Foundation
import Testing
import TroveKit
import TroveStore

/// A review sheet's page data, and decision files made as its page makes them.
struct SheetPage {
    let sheet: String
    let workspace: String
    let moderator: String
    let secret: String
    /// Post id → (status, version) as the sheet shows them.
    let posts: [String: (status: String, version: String)]

    /// Reads the data block of the sheet at `path`.
    init(path: String) throws {
        let page = try String(contentsOfFile: path, encoding: .utf8)
        let start = try #require(
            page.range(of: "<script type=\"application/json\" id=\"sheet-data\">"))
        let end = try #require(page.range(of: "</script>", range: start.upperBound..<page.endIndex))
        let data = Data(page[start.upperBound..<end.lowerBound].utf8)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        sheet = try #require(object["sheet"] as? String)
        workspace = try #require(object["workspace"] as? String)
        moderator = try #require(object["moderator"] as? String)
        secret = try #require(object["secret"] as? String)
        var posts: [String: (status: String, version: String)] = [:]
        for post in try #require(object["posts"] as? [[String: Any]]) {
            posts[post["id"] as? String ?? ""] = (
                post["status"] as? String ?? "", post["version"] as? String ?? ""
            )
        }
        self.posts = posts
    }

    /// One decision as the page records it.
    struct Made {
        var id: String
        var action: String
        var reason: String? = nil
        var note: String? = nil
        var at = "2026-12-01T10:00:00.000Z"
        /// Overrides of what the sheet showed, for forged files.
        var version: String? = nil
        var seen: String? = nil
    }

    /// The decisions file the page downloads, signed with `secret` (the sheet's own
    /// unless given), after `tamper` changed the signed fields.
    func file(
        _ decisions: [Made], moderator: String? = nil, sheet: String? = nil,
        secret: String? = nil, signed: Bool = true
    ) throws -> Data {
        let file = SheetDecisionFile(
            sheet: sheet ?? self.sheet, workspace: workspace,
            moderator: moderator ?? self.moderator,
            decisions: try decisions.map { made in
                let shown = posts[made.id]
                let action: ReviewAction
                switch made.action {
                case "approve": action = .approve
                case "flag": action = .flag
                default:
                    action = .reject(try #require(RejectionReason(rawValue: made.reason ?? "")))
                }
                return SheetDecision(
                    id: made.id, version: made.version ?? shown?.version,
                    expected: PostStatus(rawValue: made.seen ?? shown?.status ?? "pending")
                        ?? .pending,
                    action: action, note: made.note, decidedAt: made.at)
            })
        var object: [String: Any] = [
            "format": "trove-review-decisions", "sheet": file.sheet ?? "",
            "workspace": workspace, "moderator": file.moderator ?? "",
            "decisions": file.decisions.map { decision -> [String: Any] in
                var item: [String: Any] = [
                    "id": decision.id, "version": decision.version ?? "",
                    "seen": decision.expected.rawValue, "at": decision.decidedAt ?? "",
                ]
                switch decision.action {
                case .approve: item["action"] = "approve"
                case .flag: item["action"] = "flag"
                case .reject(let reason):
                    item["action"] = "reject"
                    item["reason"] = reason.rawValue
                default: break
                }
                if let note = decision.note { item["note"] = note }
                return item
            },
        ]
        if signed {
            object["signature"] = try #require(
                SheetSignature.sign(file, secret: secret ?? self.secret))
        }
        return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    }
}
