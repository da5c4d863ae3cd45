import Foundation
import TroveBase
import TroveStore

/// A decision made in the sheet and downloaded as JSON, for `review apply`.
public struct SheetDecision: Equatable, Sendable {
    /// The post id.
    public var id: String
    /// The post's version the sheet showed (absent in files of older sheets).
    public var version: String? = nil
    /// The status the moderator saw the post in.
    public var expected: PostStatus
    /// What to do.
    public var action: ReviewAction
    /// The moderator's note.
    public var note: String?
    /// When the moderator decided, ISO 8601 UTC (absent in files of older sheets).
    public var decidedAt: String?
    /// Whether the moderator confirmed approving a post whose photo could not be read.
    public var confirmed = false

    /// Creates the value from its parts.
    public init(
        id: String, version: String? = nil, expected: PostStatus, action: ReviewAction,
        note: String? = nil, decidedAt: String? = nil, confirmed: Bool = false
    ) {
        self.id = id
        self.version = version
        self.expected = expected
        self.action = action
        self.note = note
        self.decidedAt = decidedAt
        self.confirmed = confirmed
    }
}

/// The decisions file the sheet downloads.
public struct SheetDecisionFile: Equatable, Sendable {
    /// The sheet's id (absent in files of older sheets).
    public var sheet: String?
    /// The id of the workspace the sheet was made from.
    public var workspace: String?
    /// The moderator who decided, as entered in the page.
    public var moderator: String?
    /// The decisions, in the order they were made.
    public var decisions: [SheetDecision]
    /// The page's HMAC-SHA256 over all of it (`SheetSignature`), hex.
    public var signature: String? = nil

    /// Creates the value from its parts.
    public init(
        sheet: String?, workspace: String?, moderator: String?, decisions: [SheetDecision],
        signature: String? = nil
    ) {
        self.sheet = sheet
        self.workspace = workspace
        self.moderator = moderator
        self.decisions = decisions
        self.signature = signature
    }
}

/// Reads the decisions file the sheet downloads:
/// `{"format": "trove-review-decisions", "sheet", "workspace", "moderator", "decisions":
/// [{"id", "version", "seen", "action", "reason", "note", "at", "confirmed"}],
/// "signature"}` (`seen` was `expected` in older files, which had no versions and no
/// signature).
public enum SheetDecisions {
    /// - Throws: `InputError` naming the file and the entry.
    public static func parse(_ data: Data, name: String) throws(InputError) -> SheetDecisionFile {
        var parser = JSONParser(Array(data))
        let root: JSONValue
        do throws(JSONSyntaxError) {
            root = try parser.parseValue()
            if !parser.atEnd() {
                throw JSONSyntaxError(
                    message: "text after the JSON object", line: parser.nextLine(), column: 1)
            }
        } catch {
            throw InputError(
                "\(name):\(error.line):\(error.column)", "not valid JSON: \(error.message)")
        }
        guard case .object = root else { throw InputError(name, "not a JSON object") }
        guard root["format"]?.stringValue == "trove-review-decisions",
            case .array(let items)? = root["decisions"]
        else {
            throw InputError(
                name, "not a decisions file from 'trove review sheet'",
                hint: "expected \"format\": \"trove-review-decisions\" and a \"decisions\" array")
        }
        func text(_ key: String) -> String? {
            root[key]?.stringValue.flatMap {
                $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0
            }
        }
        var result: [SheetDecision] = []
        for (index, item) in items.enumerated() {
            let location = "\(name): decisions[\(index)]"
            guard case .object = item, let id = item["id"]?.stringValue else {
                throw InputError(location, "expected an object with an \"id\"")
            }
            let object = item
            guard let expectedText = (object["seen"] ?? object["expected"])?.stringValue,
                let expected = PostStatus(rawValue: expectedText)
            else { throw InputError(location, "missing or unknown \"seen\" status") }
            let note = object["note"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
            let action: ReviewAction
            switch object["action"]?.stringValue {
            case "approve": action = .approve
            case "flag": action = .flag
            case "reopen": action = .reopen
            case "reject":
                guard let reasonText = object["reason"]?.stringValue,
                    let reason = RejectionReason(rawValue: reasonText)
                else { throw InputError(location, "a rejection needs a known \"reason\"") }
                action = .reject(reason)
            default:
                throw InputError(location, "unknown \"action\" (approve, reject, flag, reopen)")
            }
            let decidedAt = object["at"]?.stringValue
            if let decidedAt, parseTimestamp(decidedAt) == nil {
                throw InputError(location, "\"at\" is not an ISO 8601 time: \(decidedAt)")
            }
            result.append(
                SheetDecision(
                    id: id, version: object["version"]?.stringValue, expected: expected,
                    action: action, note: note, decidedAt: decidedAt,
                    confirmed: object["confirmed"]?.boolValue ?? false))
        }
        // The moderator as written: a name is checked, never trimmed into another one.
        return SheetDecisionFile(
            sheet: text("sheet"), workspace: text("workspace"),
            moderator: root["moderator"]?.stringValue, decisions: result,
            signature: root["signature"]?.stringValue)
    }

    /// Whether `text` is an ISO 8601 moment as browsers write them
    /// (`2026-01-02T03:04:05.678Z`, fractions optional).
    static func parseTimestamp(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
