import Foundation
import TroveBase
import TroveCommandLine
import TroveKit
import TroveStore

/// `trove review …`: list, show, decide, sheet, apply, log; alone on a terminal, the
/// interactive queue.
enum ReviewCommand {
    static let command = Command(
        "review", abstract: "Review user posts: list, decide, audit.",
        discussion: """
            Alone on a terminal, 'trove review' walks the pending queue one post at a time
            (--status flagged walks the flagged ones). Keys:
              a  approve (a post whose photo could not be read asks to confirm: y)
              r  reject, then the reason: 1 spam  2 not-litter  3 duplicate
                 4 inappropriate  5 wrong-location  6 low-quality  7 privacy  8 other
                 (another key asks again, Esc cancels)
              f  flag, with a note typed after it (Enter flags, Esc cancels)
              s  skip (the end says how many skipped posts are still waiting)
              u  undo your last decision (this session's, else your latest anywhere)
              o  open the photo in the system viewer (xdg-open), where there is one
              q  quit
            The preview fits the window; colour unless NO_COLOR or TERM=dumb. The
            moderator is --as NAME, else $TROVE_MODERATOR, else $USER. Changing your own
            latest decision needs no --force. Approving a post with photo-unreadable asks
            to confirm on a terminal and needs --force elsewhere. Firebase push ids are
            taken as typed (trove review approve -Mq1a -Mq2b --as kim); an id that could
            be mistaken for an option goes after '--' (trove review approve -- -x) or comes
            from stdin (-).
            """,
        options: [asOption, statusOption],
        subcommands: [
            list, show, approve, reject, flag, reopen, undo, scan, sheet, apply, log, stats,
            serve, moderators, claims,
        ],
        run: ReviewInteractive.run)

    // MARK: - Shared options

    static let asOption = Option<String>(
        "as", value: "name", help: "Moderator name (default: $TROVE_MODERATOR, else $USER).")
    static let forceOption = Flag(
        "force",
        help: "Decide even when someone else decided the post meanwhile, or approve a post "
            + "whose photo could not be read.")
    static let idsArgument = Argument<String>(
        "id", help: "Post ids (push ids such as -Mq2river as typed), or - to read from stdin.",
        takesPostIDs: true
    ).variadic(minimum: 1)
    static let statusOption = Option<String>(
        "status", value: "status",
        help: "pending (default), approved, rejected, flagged or all.")

    static let signalOption = Option<String>(
        "signal", value: "name", help: "Only posts with this signal.")
    static let userOption = Option<String>("user", value: "user", help: "Only this user's posts.")
    static let postArgument = Argument<String>(
        "id", help: "The post id, or ID@VERSION.", takesPostIDs: true)

    /// `--as`, else `$TROVE_MODERATOR`, else `$USER`.
    static func moderator(_ invocation: Invocation) throws(UsageError) -> String {
        let candidates = [invocation[asOption]] + invocation.context.moderatorNames
        for case let name? in candidates {
            let trimmed = name.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            return try checkedModerator(trimmed, invocation)
        }
        throw invocation.usageError("who is deciding? pass --as NAME or set TROVE_MODERATOR")
    }

    /// `name`, trimmed, when it is one line of printable text (`ModeratorName`).
    static func checkedModerator(_ name: String, _ invocation: Invocation) throws(UsageError)
        -> String
    {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        if let problem = ModeratorName.problem(trimmed) {
            throw invocation.usageError(
                "moderator name '\(ReviewFormat.line(trimmed))' refused: \(problem) "
                    + "(a name is one line of printable text)")
        }
        return trimmed
    }

    /// The ids on the command line, with `-` replaced by the ids read from stdin.
    static func ids(_ invocation: Invocation) throws(UsageError) -> [String] {
        var ids: [String] = []
        for id in invocation[idsArgument] {
            if id == "-" {
                let text = String(decoding: invocation.context.readStandardInput(), as: UTF8.self)
                ids += text.split(whereSeparator: { $0.isWhitespace }).map(String.init)
            } else {
                ids.append(id)
            }
        }
        if ids.isEmpty { throw invocation.usageError("no post ids given") }
        return ids
    }

    /// `--status`: nil for all.
    static func status(_ invocation: Invocation) throws(UsageError) -> PostStatus? {
        let text = invocation[statusOption] ?? "pending"
        if text == "all" { return nil }
        if let status = PostStatus(rawValue: text) { return status }
        let names = PostStatus.allCases.map(\.rawValue) + ["all"]
        throw invocation.usageError(
            "unknown status '\(text)' (use \(names.joined(separator: ", ")))"
                + suggestion(for: text, among: names))
    }

    // MARK: - list

    static let list = Command(
        "list", abstract: "List posts (default: pending), oldest first.",
        options: [statusOption, signalOption, userOption],
        formats: [.text, .json, .csv]
    ) { invocation in
        let status = try status(invocation)
        let signal = invocation[signalOption]
        if let signal, SignalName(rawValue: signal) == nil {
            let names = SignalName.allCases.map(\.rawValue)
            throw invocation.usageError(
                "unknown signal '\(signal)'" + suggestion(for: signal, among: names))
        }
        let workspace = try invocation.openWorkspace()
        let query = PostQuery(workspace: workspace)
        let format = invocation.format
        // Data to a terminal is escaped whatever the format (`Invocation.escapesData`).
        let out = invocation
        var count = 0
        switch format {
        case .json:
            try PostListing(workspace: workspace).writeJSON(
                status: status, signal: signal, user: invocation[userOption]
            ) { chunk in
                out.write(bytes: chunk)
            }
        case .csv:
            out.write(
                CSVWriter.record([
                    "id", "user", "lat", "lon", "date", "description", "status", "signals",
                ]))
            try query.list(status: status, signal: signal, user: invocation[userOption]) {
                out.write(ReviewFormat.csv($0))
                count += 1
            }
        case .text, .geojson:
            var posts: [PostSummary] = []
            try query.list(status: status, signal: signal, user: invocation[userOption]) {
                posts.append($0)
            }
            let width =
                invocation.context.standardOutput.windowSize?.columns
                ?? invocation.context.terminal.columns
            out.write(ReviewFormat.table(posts, width: width))
            invocation.note("\(posts.count) post\(posts.count == 1 ? "" : "s")")
        }
        return .success
    }

    // MARK: - show

    static let show = Command(
        "show", abstract: "Show one post: every field, its signals and decision history.",
        discussion: """
            On a terminal the photo is previewed as large as the window allows with the
            whole post in view (colour unless NO_COLOR or TERM=dumb). The version printed
            is what a decision names (trove review approve ID@VERSION). A post that
            changed shows its previous version's fields beside the current ones; ID@VERSION
            compares with that version instead.
            """,
        arguments: [postArgument],
        formats: [.text, .json]
    ) { invocation in
        let workspace = try invocation.openWorkspace()
        let (id, asked) = splitVersion(invocation[postArgument])
        let query = PostQuery(workspace: workspace)
        guard let post = try query.post(id) else {
            throw CommandFailure("no post '\(ReviewFormat.line(id))'")
        }
        let versions = try query.versions(id)
        var earlier = versions.last { $0.version != post.version }
        if let asked, asked != post.version {
            guard let found = versions.first(where: { $0.version == asked }) else {
                throw CommandFailure(
                    "post '\(ReviewFormat.line(id))' never had version \(asked) (versions: "
                        + versions.map(\.version).joined(separator: ", ") + ")")
            }
            earlier = found
        }
        let history = try AuditTrail(workspace: workspace).entries(for: id)
        let out = invocation.context.standardOutput
        if invocation.format == .json {
            invocation.print(ReviewFormat.detailsJSON(post, history: history, earlier: earlier))
        } else if out.isTerminal {
            // One row stays free for the shell's prompt after.
            out.write(
                ReviewFormat.screen(
                    post, history: history, style: ReviewFormat.previewStyle(invocation.context),
                    reservedRows: 1, earlier: earlier))
        } else {
            out.write(ReviewFormat.details(post, history: history, earlier: earlier))
        }
        return .success
    }
}
