import Foundation
import TroveBase
import TroveCommandLine
import TroveKit
import TroveStore

/// `trove review scan|sheet|apply|log`: signals, the offline review sheet and its
/// decisions, and the audit log.
extension ReviewCommand {
    static let scan = Command(
        "scan", abstract: "Recompute every post's signals.", formats: [.text, .json]
    ) { invocation in
        let workspace = try invocation.openWorkspace()
        let changed = try workspace.write { try SignalScanner(workspace: workspace).scan() }
        if invocation.format == .json {
            invocation.print(JSONObject(["changed": changed]).jsonText)
        } else {
            invocation.note("signals changed on \(changed) posts")
        }
        return .success
    }

    static let sheet = Command(
        "sheet", abstract: "Write a self-contained HTML page for reviewing in a browser.",
        discussion: """
            Decisions made in the page are kept in the browser (they survive a reload or a
            closed tab) until downloaded as a JSON file naming the moderator, the time of
            each decision and the version of the post it was made on, signed with the
            sheet's own secret; record them with 'trove review apply FILE'. Each run makes
            a new sheet (a fresh id and secret, kept in the workspace) for one moderator:
            --for NAME, else the one deciding (--as, $TROVE_MODERATOR, $USER). Each card maps
            where the post claims to be, where its photo says it was taken and the posts
            near it, drawn from coordinates: the page loads nothing from the network unless
            --tiles names a basemap, whose host alone the page's policy then allows.
            """,
        options: [sheetOutOption, sheetForceOption, forOption, asOption, statusOption, tilesOption]
    ) { invocation in
        let out = invocation[sheetOutOption]
        let status = try status(invocation)
        let moderator =
            try invocation[forOption].map { try checkedModerator($0, invocation) }
            ?? ReviewCommand.moderator(invocation)
        let workspace = try invocation.openWorkspace()
        let library = try TemplateLibrary(overrideFolder: invocation.context.templatesFolder)
        guard let data = library.contents(of: "review-sheet.html"),
            let template = String(data: data, encoding: .utf8)
        else {
            throw InputError("review-sheet.html", "the review sheet template was not found")
        }
        var sheet = try ReviewSheet(template: template)
        if let template = invocation[tilesOption] {
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
            neighbours[post.id] = try query.neighbours(of: post)
        }
        let title = "trove review: " + (status?.rawValue ?? "all") + " posts"
        sheet.credentials = SheetCredentials.fresh(for: moderator)
        let page = sheet.render(posts: posts, title: title, neighbours: neighbours)
        // Recorded first: no page exists whose sheet the workspace does not know.
        try ReviewSheets(workspace: workspace).record(sheet.credentials, posts: posts)
        try AtomicFile.write(Data(page.utf8), to: invocation.resolve(out))
        invocation.note(
            "wrote \(out) with \(posts.count) posts: sheet \(sheet.credentials.id) for "
                + ReviewFormat.line(moderator))
        return .success
    }

    static let sheetOutOption = Option<String>(
        "out", value: "file", help: "The HTML file to write (required).",
        role: .output(.reviewSheet)
    ).required(missing: "missing --out FILE")
    static let sheetForceOption = Flag(
        "force", help: "Replace an existing --out file that trove did not write and does not read.",
        replacesOutputs: true)
    static let forOption = Option<String>(
        "for", value: "name", help: "The moderator who decides in this sheet.")

    static let apply = Command(
        "apply", abstract: "Record the decisions downloaded from a review sheet.",
        discussion: """
            The file must carry its sheet's signature: a file that is not signed, was
            changed after signing, names a sheet not made here or another moderator than
            the sheet's, or decides posts or versions the sheet did not show is refused
            whole (exit 3, nothing recorded). The sheet's moderator is recorded as the one
            who decided; whoever applies it (--as, $TROVE_MODERATOR, $USER) is recorded
            beside when different. A post that changed since the sheet showed it is
            refused ("changed since you saw it") and stays as it is. A decision equal to
            the one recorded does nothing ("already approved by alex"); a different one
            made meanwhile is listed and left for --force or the queue. Applying the same
            file again does nothing, and exits 0 once nothing is left to do.
            """,
        arguments: [decisionsArgument],
        options: [asOption, forceOption]
    ) { invocation in
        let file = invocation[decisionsArgument]
        guard let data = FileManager.default.contents(atPath: invocation.resolve(file)) else {
            throw InputError(file, "cannot read the file")
        }
        let sheet = try SheetDecisions.parse(data, name: file)
        let named = ([invocation[asOption]] + invocation.context.moderatorNames).contains {
            !($0 ?? "").trimmingCharacters(in: .whitespaces).isEmpty
        }
        let applier = named ? try moderator(invocation) : nil
        let workspace = try invocation.openWorkspace()
        let outcomes: [DecisionOutcome]
        do {
            outcomes = try ReviewSheets(workspace: workspace).apply(
                sheet, appliedBy: applier, force: invocation[forceOption])
        } catch let refusal as ReviewSheets.Refusal {
            throw InputError(file, refusal.message, hint: refusal.hint)
        }
        let status = report(outcomes, invocation)
        invocation.note(applySummary(outcomes, file: file))
        return status
    }

    /// The line `review apply` ends with: what the file's decisions came to, e.g. `applied
    /// 2 of 3 decisions from d.json (1 approved, 1 rejected); 1 refused`.
    static func applySummary(_ outcomes: [DecisionOutcome], file: String) -> String {
        var recorded: [PostStatus: Int] = [:]
        var unchanged = 0
        var repeated = 0
        var refused = 0
        var disagreements = 0
        for outcome in outcomes {
            switch outcome {
            case .recorded(let decision): recorded[decision.to, default: 0] += 1
            case .unchanged, .alreadyDecided: unchanged += 1
            case .alreadyApplied: repeated += 1
            case .superseded: disagreements += 1
            case .unknown, .conflict, .needsConfirmation, .stale, .withdrawn: refused += 1
            }
        }
        let applied = recorded.values.reduce(0, +)
        var line =
            "applied \(applied) of \(outcomes.count) decisions from \(ReviewFormat.safe(file))"
        let counts = PostStatus.allCases.compactMap { status in
            recorded[status].map { "\($0) \(status.rawValue)" }
        }
        if !counts.isEmpty { line += " (" + counts.joined(separator: ", ") + ")" }
        if unchanged > 0 { line += "; \(unchanged) already as decided" }
        if repeated > 0 {
            line +=
                "; \(repeated) of \(outcomes.count) decisions were applied from this file before"
        }
        if disagreements > 0 {
            line += "; \(disagreements) decided otherwise since (above: --force or the queue)"
        }
        if refused > 0 { line += "; \(refused) refused (above)" }
        return line
    }

    static let decisionsArgument = Argument<String>(
        "file", help: "The decisions JSON file.", role: .input)

    static let log = Command(
        "log", abstract: "Show the audit trail, oldest first.",
        discussion: """
            Every entry: when, the post, who (a moderator, or in parentheses the user or
            the import), what kind when it is not a moderator's decision (undo,
            withdrawal, restoration, reopening), the status before and after, the reason
            and the note. --moderator NAME keeps one moderator's entries; --since and
            --until keep a range of dates (2024-05-01, whole days in UTC) or times
            (2024-05-01T12:00:00Z), both ends included.
            """,
        arguments: [logPostArgument],
        options: [trailModeratorOption, sinceOption, untilOption],
        formats: [.text, .json]
    ) { invocation in
        let (since, before) = try range(invocation)
        let entries = try AuditTrail(workspace: invocation.openWorkspace()).entries(
            for: invocation[logPostArgument], moderator: invocation[trailModeratorOption],
            since: since, before: before)
        if invocation.format == .json {
            invocation.print(AuditTrail.json(entries))
        } else {
            for entry in entries { invocation.print(ReviewFormat.logLine(entry)) }
        }
        return .success
    }

    static let trailModeratorOption = Option<String>(
        "moderator", value: "name", help: "Only this moderator's entries.")
    static let sinceOption = Option<String>(
        "since", value: "date", help: "From this date or time on (UTC; 2024-05-01).")
    static let untilOption = Option<String>(
        "until", value: "date", help: "Up to this date (the whole day) or time.")

    /// --since and --until as the trail's bounds: from (inclusive), before (exclusive).
    static func range(_ invocation: Invocation) throws -> (String?, String?) {
        func bound(_ option: Option<String>, _ flag: String, after: Bool) throws -> String? {
            guard let text = invocation[option] else { return nil }
            guard let bound = AuditTrail.bound(text, after: after) else {
                throw invocation.usageError(
                    "--\(flag): expected a date (2024-05-01) or a time "
                        + "(2024-05-01T12:00:00Z), got '\(ReviewFormat.line(text))'")
            }
            return bound
        }
        return (
            try bound(sinceOption, "since", after: false),
            try bound(untilOption, "until", after: true)
        )
    }

    static let groupingOption = Option<ReviewStats.Grouping>(
        "by", value: "grouping", help: "A row per moderator (default), day or reason."
    ) { text throws(InvalidValue) in
        guard let grouping = ReviewStats.Grouping(rawValue: text) else {
            throw InvalidValue("unknown grouping '\(text)' (use moderator, day or reason)")
        }
        return grouping
    }

    static let stats = Command(
        "stats", abstract: "Sum up the audit trail: decisions, undos, overturns, time taken.",
        discussion: """
            A row per moderator (--by day: per day in UTC, --by reason: per rejection
            reason), then the total: the moderators' decisions, how many approved,
            rejected, flagged and reopened, their undos, how many were overturned (a
            later decision of another moderator changed the post), and the median time
            from the arrival of the version decided on to the decision. --moderator,
            --since and --until as in 'review log'.
            """,
        options: [groupingOption, trailModeratorOption, sinceOption, untilOption],
        formats: [.text, .json]
    ) { invocation in
        let (since, before) = try range(invocation)
        let grouping = invocation[groupingOption] ?? .moderator
        let stats = try AuditTrail(workspace: invocation.openWorkspace()).stats(
            by: grouping, moderator: invocation[trailModeratorOption], since: since,
            before: before)
        if invocation.format == .json {
            invocation.print(
                (stats.rows + [stats.total]).map { row in
                    JSONObject([
                        grouping.rawValue: row.key, "decisions": row.decisions,
                        "approved": row.approved, "rejected": row.rejected,
                        "flagged": row.flagged, "reopened": row.reopened, "undos": row.undos,
                        "overturned": row.overturned,
                        "median_seconds": row.medianSeconds.map { Int($0.rounded()) },
                    ])
                }.jsonText)
            return .success
        }
        invocation.print(ReviewFormat.statsTable(stats, grouping: grouping))
        return .success
    }

    static let logPostArgument = Argument<String>(
        "id", help: "Only this post's decisions.", takesPostIDs: true
    ).optional
}
