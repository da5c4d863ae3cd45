import Foundation
import TroveKit

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
        for outcome in outcomes {
            switch outcome {
            case .recorded(let decision): recorded[decision.to, default: 0] += 1
            case .unchanged: unchanged += 1
            case .alreadyApplied: repeated += 1
            case .unknown, .conflict, .needsConfirmation: refused += 1
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
        if refused > 0 { line += "; \(refused) refused (above)" }
        return line
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
