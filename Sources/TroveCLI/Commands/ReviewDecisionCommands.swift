import Foundation
import TroveCommandLine
import TroveImaging
import TroveKit
import TroveStore

/// `trove review approve|reject|flag|reopen`: one decision on each post named.
extension ReviewCommand {
    static let approve = Command(
        "approve", abstract: "Approve posts.",
        discussion: versionDiscussion + "\n\n" + redactDiscussion,
        arguments: [idsArgument], options: [asOption, versionOption, redactOption, forceOption]
    ) { invocation in
        try decide(invocation, .approve, note: nil, redaction: invocation[redactOption])
    }

    static let reject = Command(
        "reject", abstract: "Reject posts with a reason.",
        discussion: "Reasons: " + RejectionReason.allCases.map(\.rawValue).joined(separator: ", ")
            + ". " + versionDiscussion,
        arguments: [idsArgument],
        options: [reasonOption, noteOption, asOption, versionOption, forceOption]
    ) { invocation in
        try decide(invocation, .reject(invocation[reasonOption]), note: invocation[noteOption])
    }

    static let flag = Command(
        "flag", abstract: "Flag posts for a second look, with a note.",
        discussion: versionDiscussion, arguments: [idsArgument],
        options: [flagNoteOption, asOption, versionOption, forceOption]
    ) { invocation in
        try decide(invocation, .flag, note: invocation[flagNoteOption])
    }

    static let reopen = Command(
        "reopen", abstract: "Put decided posts back to pending.", arguments: [idsArgument],
        options: [noteOption, asOption, forceOption]
    ) { invocation in
        try decide(invocation, .reopen, note: invocation[noteOption])
    }

    static let undo = Command(
        "undo", abstract: "Undo your latest decision on a post (a bulk decision whole).",
        discussion: """
            Undoes the decision of --as NAME (else $TROVE_MODERATOR, else $USER) on the
            post, made here, in the queue, a sheet or 'review serve', while it is the latest
            entry on the post and the post is as it left it: the post goes back to the
            status it had, and the undo is an entry of the trail of its own ('undo' in
            'review log'). A decision that was part of a bulk one (a user's pending posts
            rejected at once in 'review serve') is undone whole, each post nobody decided
            since. ID@VERSION names the version the decision was made on. An undo is not
            undone: decide again instead.
            """,
        arguments: [postArgument], options: [asOption]
    ) { invocation in
        let moderator = try moderator(invocation)
        let (id, version) = splitVersion(invocation[postArgument])
        let outcome = try Moderation(workspace: try invocation.openWorkspace()).undo(
            post: id, moderator: moderator, version: version)
        guard case .undone(let entries, let kept) = outcome else {
            invocation.warn("error: " + ReviewFormat.undoRefused(outcome))
            return .problems
        }
        for entry in entries {
            invocation.note(
                "\(ReviewFormat.line(entry.postID)): \(entry.from.rawValue) → "
                    + "\(entry.to.rawValue) (undone)")
        }
        for other in kept {
            invocation.warn(
                "\(ReviewFormat.line(other)): left as it is (decided or changed since)")
        }
        return .success
    }

    static let reasonOption = Option<RejectionReason>(
        "reason", value: "reason", help: "Why (required): spam, not-litter, …"
    ) { text throws(InvalidValue) in
        guard let reason = RejectionReason(rawValue: text) else {
            let names = RejectionReason.allCases.map(\.rawValue)
            throw InvalidValue(
                "unknown reason '\(text)' (use \(names.joined(separator: ", ")))"
                    + suggestion(for: text, among: names))
        }
        return reason
    }.required(
        missing: "missing --reason (one of: "
            + RejectionReason.allCases.map(\.rawValue).joined(separator: ", ") + ")")
    static let noteOption = Option<String>(
        "note", value: "text", help: "A note for the audit trail.")
    static let flagNoteOption = Option<String>("note", value: "text", help: "Why (required).") {
        note throws(InvalidValue) in
        guard !note.isEmpty else { throw InvalidValue(missingFlagNote) }
        return note
    }.required(missing: missingFlagNote)
    static let missingFlagNote = "missing --note: say why the post needs a second look"
    static let versionOption = Option<String>(
        "version", value: "version",
        help: "The version 'review show' printed (one id): refused if the post changed since.")

    static let redactOption = Option<RedactionBox>(
        "redact", value: "x,y,w,h",
        help: "Approve with this box pixelated in what is published (fractions 0-1; repeatable)."
    ) { text throws(InvalidValue) in
        switch RedactionBox.parse(text) {
        case .success(let box): return box
        case .failure(let error):
            throw InvalidValue(
                "--redact \(error.description); e.g. --redact 0.25,0.1,0.2,0.15 for a box a "
                    + "fifth of the photo wide, a quarter from its left and a tenth from its top")
        }
    }.repeated

    static let redactDiscussion = """
        --redact x,y,w,h approves "with redaction": the box, given as fractions of the photo
        as it stands upright (left, top, width, height, each 0 to 1), is pixelated beyond
        recovery in every rendition 'trove images' and 'trove publish' make of it; the
        photo in the workspace stays as it is. Repeat it for several boxes. The decision
        records the boxes and they make a new version of the post (other boxes, another
        version); approving again without --redact publishes the whole photo.
        """

    static let versionDiscussion = """
        A decision is made on a version of the post: the one 'trove review show' printed,
        given as ID@VERSION or --version VERSION, else the one current when the command
        starts. A post that changed since (a re-import) is refused with "changed since you
        saw it", even with --force, and stays as it is.
        """

    /// Records one action on every id. The state and version each post is in when the
    /// command starts is what the moderator saw, unless `ID@VERSION` or `--version` names
    /// the version they looked at; both are checked again inside the write transaction.
    static func decide(
        _ invocation: Invocation, _ action: ReviewAction, note: String?,
        redaction: [RedactionBox] = []
    ) throws -> ExitStatus {
        let moderator = try moderator(invocation)
        var ids: [String] = []
        var versions: [String: String] = [:]
        for word in try self.ids(invocation) {
            let (id, version) = splitVersion(word)
            ids.append(id)
            if let version { versions[id] = version }
        }
        if let version = action == .reopen ? nil : invocation[versionOption] {
            guard ids.count == 1, versions.isEmpty else {
                throw invocation.usageError(
                    "--version names the version of one post; for several, write ID@VERSION")
            }
            guard PostVersion.isVersion(version[...]) else {
                throw invocation.usageError(
                    "--version '\(ReviewFormat.line(version))' is not a version "
                        + "(\(PostVersion.length) hex digits, as 'trove review show' prints)")
            }
            versions[ids[0]] = version
        }
        let moderation = Moderation(workspace: try invocation.openWorkspace())
        let seen = try moderation.current(ids)
        let requests = ids.map {
            var request = DecisionRequest(
                id: $0, expected: seen[$0]?.status, action: action, note: note,
                version: versions[$0] ?? seen[$0]?.version)
            request.redaction = redaction
            return request
        }
        var outcomes = try moderation.decide(
            requests, moderator: moderator, force: invocation[forceOption])
        var declined: Set<String> = []
        if invocation.context.standardInputIsTerminal {
            declined = try confirmUnreadable(&outcomes, requests, moderation, moderator, invocation)
        }
        return report(outcomes, declined: declined, invocation)
    }

    /// On a terminal, approving a post whose photo could not be read asks first, post by
    /// post; what the moderator confirms is approved, what not is left as it was.
    ///
    /// - Returns: the ids the moderator did not confirm.
    private static func confirmUnreadable(
        _ outcomes: inout [DecisionOutcome], _ requests: [DecisionRequest],
        _ moderation: Moderation, _ moderator: String, _ invocation: Invocation
    ) throws -> Set<String> {
        var declined: Set<String> = []
        for index in outcomes.indices {
            guard case .needsConfirmation(let id, let detail) = outcomes[index],
                var request = requests.first(where: { $0.id == id })
            else { continue }
            invocation.context.standardError.write(
                ReviewFormat.unreadable(id, detail) + ". Approve anyway? [y/N] ")
            invocation.context.standardError.flush()
            let answer = invocation.context.readLine()?.trimmingCharacters(in: .whitespaces)
            guard answer?.lowercased() == "y" || answer?.lowercased() == "yes" else {
                declined.insert(id)
                continue
            }
            request.confirmed = true
            outcomes[index] =
                try moderation.decide([request], moderator: moderator, force: false).first
                ?? outcomes[index]
        }
        return declined
    }

    /// `ID@VERSION` as the id and the version; a word whose part after its last `@` is not
    /// a version is an id as it stands (Firebase keys may hold `@`).
    static func splitVersion(_ word: String) -> (id: String, version: String?) {
        guard let at = word.lastIndex(of: "@"), at != word.startIndex else { return (word, nil) }
        let version = word[word.index(after: at)...]
        guard PostVersion.isVersion(version) else { return (word, nil) }
        return (String(word[..<at]), String(version))
    }

    /// Prints what happened to each request; exit 1 when any was refused or, asked on a
    /// terminal, not confirmed (`declined`).
    static func report(
        _ outcomes: [DecisionOutcome], declined: Set<String> = [], _ invocation: Invocation
    ) -> ExitStatus {
        var status = ExitStatus.success
        for outcome in outcomes {
            switch outcome {
            case .recorded(let decision):
                invocation.note(
                    "\(decision.postID): \(decision.from.rawValue) → \(decision.to.rawValue)")
            case .unchanged(let id, let current):
                invocation.note("\(ReviewFormat.line(id)): already \(current.rawValue)")
            case .alreadyDecided(let id, let current, let last):
                invocation.note(ReviewFormat.alreadyDecided(id, current, last))
            case .superseded(let id, let seen, let last):
                invocation.note(ReviewFormat.superseded(id, seen, last))
            case .stale(let id, let seen, let current):
                invocation.warn("error: " + ReviewFormat.stale(id, seen: seen, current: current))
                status = .problems
            case .withdrawn(let id, let note):
                invocation.warn("error: " + ReviewFormat.withdrawn(id, note))
                status = .problems
            case .unknown(let id):
                invocation.warn("error: no post '\(id)'")
                status = .problems
            case .conflict(let id, let expected, let current, let last):
                invocation.warn("error: " + ReviewFormat.conflict(id, expected, current, last))
                status = .problems
            case .needsConfirmation(let id, _) where declined.contains(id):
                invocation.warn("\(ReviewFormat.safe(id)): not approved, still as it was")
                status = .problems
            case .needsConfirmation(let id, let detail):
                invocation.warn(
                    "error: " + ReviewFormat.unreadable(id, detail)
                        + "; look at it with 'trove review show \(ReviewFormat.safe(id))', "
                        + "then approve with --force")
                status = .problems
            case .alreadyApplied:
                break
            }
        }
        return status
    }
}
