import Foundation
import TroveImaging
import TroveStore

/// Moderator names: one line of printable text, so no name can forge a line of
/// `review log` or a terminal's state.
public enum ModeratorName {
    /// Why `name` cannot be a moderator's name, or nil when it can.
    public static func problem(_ name: String) -> String? {
        if name.trimmingCharacters(in: .whitespaces).isEmpty { return "it is empty" }
        if name.unicodeScalars.count > 100 { return "it is longer than 100 characters" }
        for scalar in name.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .lineSeparator, .paragraphSeparator, .surrogate, .unassigned,
                .privateUse:
                return "it holds the control or unprintable character U+"
                    + String(scalar.value, radix: 16, uppercase: true)
            case .format
            where (0x202A...0x202E).contains(scalar.value)
                || (0x2066...0x2069).contains(scalar.value):
                return "it holds the text-direction override U+"
                    + String(scalar.value, radix: 16, uppercase: true)
            default: continue
            }
        }
        return nil
    }
}

/// Why a post was rejected.
public enum RejectionReason: String, CaseIterable, Sendable {
    case spam
    case notLitter = "not-litter"
    case duplicate
    case inappropriate
    case wrongLocation = "wrong-location"
    case lowQuality = "low-quality"
    /// Faces, number plates.
    case privacy
    case other
}

/// What a moderator does to a post.
public enum ReviewAction: Equatable, Sendable {
    case approve
    case reject(RejectionReason)
    case flag
    case reopen

    /// The state the post ends in.
    public var target: PostStatus {
        switch self {
        case .approve: return .approved
        case .reject: return .rejected
        case .flag: return .flagged
        case .reopen: return .pending
        }
    }

    /// The states from which this action needs no `--force`.
    var allowedFrom: Set<PostStatus> {
        switch self {
        case .approve, .reject: return [.pending, .flagged]
        case .flag: return [.pending, .flagged]
        case .reopen: return [.approved, .rejected, .flagged]
        }
    }
}

/// The result of asking for one decision.
public enum DecisionOutcome: Equatable, Sendable {
    /// Recorded.
    case recorded(Decision)
    /// Nothing to do: the post is already in the target state by this action's own rule
    /// (reopening a pending post).
    case unchanged(id: String, status: PostStatus)
    /// No such post.
    case unknown(id: String)
    /// The post is not in the state the moderator saw, or was already decided; `last`
    /// says who decided it and when.
    case conflict(id: String, expected: PostStatus, current: PostStatus, last: Decision?)
    /// Approving needs a confirmation (or force): the photo could not be read, so nobody
    /// has seen it. `detail` is the signal's text.
    case needsConfirmation(id: String, detail: String)
    /// This sheet's decision on the post was recorded before: applying the same file
    /// again does nothing.
    case alreadyApplied(id: String)
    /// The same decision is already recorded (by `last.moderator`): nothing to do.
    case alreadyDecided(id: String, status: PostStatus, last: Decision)
    /// The post changed since the moderator saw it (`seen` is not the `current`
    /// version): refused, even with force, and the post stays as it is.
    case stale(id: String, seen: String, current: String)
    /// The post changed since the moderator saw it, and has been decided on its current
    /// version since (`last`): the stale decision has nothing left to do.
    case superseded(id: String, seen: String, last: Decision)
    /// The post was withdrawn by its user: it takes no decision.
    case withdrawn(id: String, note: String?)
}

/// One request: a post, the state the moderator saw it in, and what to do.
public struct DecisionRequest: Equatable, Sendable {
    /// The post id.
    public var id: String
    /// The state the moderator saw; nil means "whatever it is now".
    public var expected: PostStatus?
    /// What to do.
    public var action: ReviewAction
    /// The moderator's note.
    public var note: String?
    /// Whether the moderator confirmed approving a post whose photo could not be read.
    public var confirmed = false
    /// The review sheet the decision comes from, with `decidedAt`: a decision already
    /// recorded from the same sheet at the same moment is not recorded twice.
    public var sheet: String?
    /// When the moderator decided in the sheet.
    public var decidedAt: String?
    /// The version the moderator saw; nil means "whatever it is now".
    public var version: String?
    /// For an approval: the boxes to hide in what is published (none: the whole photo).
    public var redaction: [RedactionBox] = []

    /// Creates the value from its parts.
    public init(
        id: String, expected: PostStatus?, action: ReviewAction, note: String? = nil,
        confirmed: Bool = false, sheet: String? = nil, decidedAt: String? = nil,
        version: String? = nil
    ) {
        self.id = id
        self.expected = expected
        self.action = action
        self.note = note
        self.confirmed = confirmed
        self.sheet = sheet
        self.decidedAt = decidedAt
        self.version = version
    }
}
