import Foundation
import TroveKit

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
              u  undo this session's last decision
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
        subcommands: [list, show, approve, reject, flag, reopen, scan, sheet, apply, log],
        run: ReviewInteractive.run)

    // MARK: - Shared options

    static let asOption = Option(
        "as", value: "name", help: "Moderator name (default: $TROVE_MODERATOR, else $USER).")
    static let forceOption = Option(
        "force",
        help: "Decide even when someone else decided the post meanwhile, or approve a post "
            + "whose photo could not be read.")
    static let idsArgument = Argument(
        "id", help: "Post ids (push ids such as -Mq2river as typed), or - to read from stdin.",
        arity: .variadic(minimum: 1), takesPostIDs: true)
    static let statusOption = Option(
        "status", value: "status",
        help: "pending (default), approved, rejected, flagged or all.")

    /// `--as`, else `$TROVE_MODERATOR`, else `$USER`.
    static func moderator(_ invocation: Invocation) throws(UsageError) -> String {
        let environment = invocation.context.environment
        let candidates = [
            invocation.option("as"), environment["TROVE_MODERATOR"], environment["USER"],
        ]
        for case let name? in candidates {
            let trimmed = name.trimmingCharacters(in: .whitespaces)
            if !trimmed.isEmpty { return trimmed }
        }
        throw invocation.usageError("who is deciding? pass --as NAME or set TROVE_MODERATOR")
    }

    /// The ids on the command line, with `-` replaced by the ids read from stdin.
    static func ids(_ invocation: Invocation) throws(UsageError) -> [String] {
        var ids: [String] = []
        for id in invocation.arguments("id") {
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
        let text = invocation.option("status") ?? "pending"
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
        options: [
            statusOption,
            Option("signal", value: "name", help: "Only posts with this signal."),
            Option("user", value: "user", help: "Only this user's posts."),
        ],
        formats: [.text, .json, .csv]
    ) { invocation in
        let status = try status(invocation)
        let signal = invocation.option("signal")
        if let signal, SignalName(rawValue: signal) == nil {
            let names = SignalName.allCases.map(\.rawValue)
            throw invocation.usageError(
                "unknown signal '\(signal)'" + suggestion(for: signal, among: names))
        }
        let workspace = try invocation.openWorkspace()
        let query = PostQuery(workspace: workspace)
        let format = invocation.format
        let out = invocation.context.standardOutput
        var count = 0
        switch format {
        case .json:
            try PostListing(workspace: workspace).writeJSON(
                status: status, signal: signal, user: invocation.option("user")
            ) { chunk in
                out.write(String(decoding: chunk, as: UTF8.self))
            }
        case .csv:
            out.write("id,user,lat,lon,date,description,status,signals\r\n")
            try query.list(status: status, signal: signal, user: invocation.option("user")) {
                out.write(ReviewFormat.csv($0))
                count += 1
            }
        case .text, .geojson:
            out.write(ReviewFormat.tableHeader)
            try query.list(status: status, signal: signal, user: invocation.option("user")) {
                out.write(ReviewFormat.tableRow($0))
                count += 1
            }
            invocation.note("\(count) posts")
        }
        return .success
    }

    // MARK: - show

    static let show = Command(
        "show", abstract: "Show one post: every field, its signals and decision history.",
        discussion: """
            On a terminal the photo is previewed as large as the window allows with the
            whole post in view (colour unless NO_COLOR or TERM=dumb).
            """,
        arguments: [Argument("id", help: "The post id.", takesPostIDs: true)],
        formats: [.text, .json]
    ) { invocation in
        let workspace = try invocation.openWorkspace()
        let id = invocation.argument("id")!
        guard let post = try PostQuery(workspace: workspace).post(id) else {
            throw CommandFailure("no post '\(id)'")
        }
        let history = try AuditTrail(workspace: workspace).entries(for: id)
        let out = invocation.context.standardOutput
        if invocation.format == .json {
            invocation.print(ReviewFormat.detailsJSON(post, history: history))
        } else if out.isTerminal {
            // One row stays free for the shell's prompt after.
            out.write(
                ReviewFormat.screen(
                    post, history: history, style: ReviewFormat.previewStyle(invocation.context),
                    reservedRows: 1))
        } else {
            out.write(ReviewFormat.details(post, history: history))
        }
        return .success
    }

    // MARK: - Decisions

    static let approve = Command(
        "approve", abstract: "Approve posts.", arguments: [idsArgument],
        options: [asOption, forceOption]
    ) { invocation in
        try decide(invocation, .approve, note: nil)
    }

    static let reject = Command(
        "reject", abstract: "Reject posts with a reason.",
        discussion: "Reasons: " + RejectionReason.allCases.map(\.rawValue).joined(separator: ", ")
            + ".",
        arguments: [idsArgument],
        options: [
            Option("reason", value: "reason", help: "Why (required): spam, not-litter, …"),
            Option("note", value: "text", help: "A note for the audit trail."),
            asOption, forceOption,
        ]
    ) { invocation in
        guard let text = invocation.option("reason") else {
            throw invocation.usageError(
                "missing --reason (one of: "
                    + RejectionReason.allCases.map(\.rawValue).joined(separator: ", ") + ")")
        }
        guard let reason = RejectionReason(rawValue: text) else {
            let names = RejectionReason.allCases.map(\.rawValue)
            throw invocation.usageError(
                "unknown reason '\(text)' (use \(names.joined(separator: ", ")))"
                    + suggestion(for: text, among: names))
        }
        return try decide(invocation, .reject(reason), note: invocation.option("note"))
    }

    static let flag = Command(
        "flag", abstract: "Flag posts for a second look, with a note.",
        arguments: [idsArgument],
        options: [
            Option("note", value: "text", help: "Why (required)."), asOption, forceOption,
        ]
    ) { invocation in
        guard let note = invocation.option("note"), !note.isEmpty else {
            throw invocation.usageError("missing --note: say why the post needs a second look")
        }
        return try decide(invocation, .flag, note: note)
    }

    static let reopen = Command(
        "reopen", abstract: "Put decided posts back to pending.", arguments: [idsArgument],
        options: [
            Option("note", value: "text", help: "A note for the audit trail."), asOption,
            forceOption,
        ]
    ) { invocation in
        try decide(invocation, .reopen, note: invocation.option("note"))
    }

    /// Records one action on every id. The state each post is in when the command starts
    /// is the state the moderator saw; it is checked again inside the write transaction.
    static func decide(_ invocation: Invocation, _ action: ReviewAction, note: String?)
        throws -> ExitStatus
    {
        let moderator = try moderator(invocation)
        let ids = try ids(invocation)
        let moderation = Moderation(workspace: try invocation.openWorkspace())
        let seen = try moderation.statuses(ids)
        let requests = ids.map {
            DecisionRequest(id: $0, expected: seen[$0], action: action, note: note)
        }
        var outcomes = try moderation.decide(
            requests, moderator: moderator, force: invocation.flag("force"))
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
                invocation.note("\(id): already \(current.rawValue)")
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

    // MARK: - scan, sheet, apply, log

    static let scan = Command(
        "scan", abstract: "Recompute every post's signals.", formats: [.text, .json]
    ) { invocation in
        let workspace = try invocation.openWorkspace()
        let changed = try workspace.write { try SignalScanner(workspace: workspace).scan() }
        if invocation.format == .json {
            invocation.print("{\"changed\": \(changed)}")
        } else {
            invocation.note("signals changed on \(changed) posts")
        }
        return .success
    }

    static let sheet = Command(
        "sheet", abstract: "Write a self-contained HTML page for reviewing in a browser.",
        discussion: """
            Decisions made in the page are kept in the browser (they survive a reload or a
            closed tab) until downloaded as a JSON file naming the moderator and the time
            of each decision; record them with 'trove review apply FILE'. Each card maps
            where the post claims to be, where its photo says it was taken and the posts
            near it, drawn from coordinates: the page loads nothing from the network unless
            --tiles names a basemap, whose host alone the page's policy then allows.
            """,
        options: [
            Option("out", value: "file", help: "The HTML file to write (required)."),
            statusOption,
            Option(
                "tiles", value: "url-template",
                help: "A basemap, e.g. https://tile.openstreetmap.org/{z}/{x}/{y}.png."),
        ]
    ) { invocation in
        guard let out = invocation.option("out") else {
            throw invocation.usageError("missing --out FILE")
        }
        let status = try status(invocation)
        let workspace = try invocation.openWorkspace()
        let library = try TemplateLibrary(environment: invocation.context.environment)
        guard let data = library.contents(of: "review-sheet.html"),
            let template = String(data: data, encoding: .utf8)
        else {
            throw InputError("review-sheet.html", "the review sheet template was not found")
        }
        var sheet = try ReviewSheet(template: template)
        if let template = invocation.option("tiles") {
            do {
                sheet.tiles = try TileSource(template: template)
            } catch {
                throw invocation.usageError("--tiles: \(error)")
            }
        }
        sheet.workspaceID = try workspace.identifier()
        let query = PostQuery(workspace: workspace)
        let posts = try query.records(status: status)
        var neighbours: [String: [MapPoint]] = [:]
        for post in posts where post.signals.contains(where: { $0.name == .nearbyPost }) {
            neighbours[post.summary.id] = try query.neighbours(of: post)
        }
        let title = "trove review: " + (status?.rawValue ?? "all") + " posts"
        let page = sheet.render(posts: posts, title: title, neighbours: neighbours)
        let written = try AtomicFile.write(Data(page.utf8), to: invocation.resolve(out))
        invocation.note(
            (written ? "wrote" : "unchanged:") + " \(out) with \(posts.count) posts")
        return .success
    }

    static let apply = Command(
        "apply", abstract: "Record the decisions downloaded from a review sheet.",
        discussion: """
            The moderator named in the file is recorded as the one who decided; whoever
            applies it (--as, $TROVE_MODERATOR, $USER) is recorded beside when different.
            A file from another workspace is refused. Applying the same file again does
            nothing. A post someone else decided in the meantime is refused, naming who.
            """,
        arguments: [Argument("file", help: "The decisions JSON file.")],
        options: [asOption, forceOption]
    ) { invocation in
        let file = invocation.argument("file")!
        guard let data = FileManager.default.contents(atPath: invocation.resolve(file)) else {
            throw InputError(file, "cannot read the file")
        }
        let sheet = try SheetDecisions.parse(data, name: file)
        let applier = try? moderator(invocation)
        guard let decider = sheet.moderator ?? applier else {
            throw invocation.usageError(
                "who is deciding? the file names no moderator: pass --as NAME")
        }
        let workspace = try invocation.openWorkspace()
        if let origin = sheet.workspace, origin != (try workspace.identifier()) {
            throw InputError(
                file, "its sheet was made from another workspace (\(origin))",
                hint: "apply it to the workspace the sheet came from (-w PATH)")
        }
        let requests = sheet.decisions.map {
            DecisionRequest(
                id: $0.id, expected: $0.expected, action: $0.action, note: $0.note,
                confirmed: $0.confirmed, sheet: sheet.sheet, decidedAt: $0.decidedAt)
        }
        let outcomes = try Moderation(workspace: workspace).decide(
            requests, moderator: decider, appliedBy: applier, force: invocation.flag("force"))
        let status = report(outcomes, invocation)
        let repeated = outcomes.filter {
            if case .alreadyApplied = $0 { return true }
            return false
        }.count
        if repeated > 0 {
            invocation.note(
                "\(repeated) of \(outcomes.count) decisions were applied from this file before")
        }
        return status
    }

    static let log = Command(
        "log", abstract: "Show the audit trail, oldest first.",
        arguments: [
            Argument(
                "id", help: "Only this post's decisions.", arity: .optional, takesPostIDs: true)
        ],
        formats: [.text, .json]
    ) { invocation in
        let entries = try AuditTrail(workspace: invocation.openWorkspace())
            .entries(for: invocation.argument("id"))
        if invocation.format == .json {
            invocation.print(AuditTrail.json(entries))
        } else {
            for entry in entries { invocation.print(ReviewFormat.logLine(entry)) }
        }
        return .success
    }
}
