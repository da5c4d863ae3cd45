import TroveBase
import TroveCommandLine
import TroveKit
import TroveStore

enum PublishTargetCommands {
    static let command = Command(
        "target", abstract: "Add, change, list and remove publish targets.",
        discussion: """
            A target is a layout and where its tree goes: a Realtime Database (its root
            URL) and a Storage bucket. Every target's image URLs carry download tokens of
            its own bucket, so a token from one target's build opens nothing in another's
            bucket (targets sharing a bucket share its objects, and their tokens). The
            first target added is the default one, which 'trove publish' uses without
            --target; --default makes another the default. The default changes only when
            asked: with none, commands ask for --target.
            """,
        subcommands: [add, set, list, remove])

    static let add = Command(
        "add", abstract: "Add a publish target.",
        arguments: [newName],
        options: [database, bucket, layout, makeDefault]
    ) { invocation in
        let database = invocation[Self.database]
        let bucket = invocation[Self.bucket]
        let layout = try ExportCommand.loadLayout(
            invocation[Self.layout] ?? "flatirongo", invocation)
        let workspace = try invocation.openWorkspace()
        let target = try PublishCommand.mapped {
            try PublishTargets.add(
                PublishTarget(
                    name: invocation[Self.newName], databaseURL: database,
                    bucket: bucket, layout: layout.name, isDefault: invocation[Self.makeDefault]),
                in: workspace)
        }
        invocation.note(
            "added target \(target.name): layout \(target.layout) to \(target.databaseURL) "
                + "and gs://\(target.bucket)\(target.isDefault ? " (the default)" : "")")
        return .success
    }

    static let list = Command(
        "list", abstract: "List the publish targets.", formats: [.text, .json]
    ) { invocation in
        let targets = try PublishTargets.all(in: invocation.openWorkspace())
        if invocation.format == .json {
            let items = targets.map { target in
                JSONObject([
                    "name": target.name, "database": target.databaseURL,
                    "bucket": target.bucket, "layout": target.layout,
                    "default": target.isDefault, "published_at": target.publishedAt,
                ]).jsonText
            }
            invocation.print(JSONLineWriter.text(items))
            return .success
        }
        for target in targets {
            invocation.print(
                "\(target.isDefault ? "*" : " ") \(target.name)  \(target.layout)  "
                    + "\(target.databaseURL)  gs://\(target.bucket)  "
                    + (target.publishedAt.map { "published \($0)" } ?? "never published"))
        }
        if targets.isEmpty {
            invocation.note(
                "no publish targets; add one with 'trove publish target add NAME --database "
                    + "URL --bucket NAME'")
        }
        return .success
    }

    static let set = Command(
        "set", abstract: "Change a publish target's database, bucket, layout or default.",
        discussion: """
            A new database or bucket is a place the target holds nothing in yet: the next
            publish sends the whole tree, or every object, there, and says so; the old
            place keeps what was published to it. A new layout makes the next publish
            render every record with it and remove what only the old layout wrote.
            --default makes the target the default. A publish to it that was interrupted
            must be completed first, or dropped with --force.
            """,
        arguments: [name],
        options: [changedDatabase, changedBucket, changedLayout, makeDefault, force]
    ) { invocation in
        let name = invocation[Self.name]
        let workspace = try invocation.openWorkspace()
        let layout = try invocation[Self.changedLayout].map {
            try ExportCommand.loadLayout($0, invocation).name
        }
        let changed = try PublishCommand.mapped {
            try PublishTargets.set(
                name,
                PublishTargets.Change(
                    databaseURL: invocation[Self.changedDatabase],
                    bucket: invocation[Self.changedBucket], layout: layout,
                    makeDefault: invocation[Self.makeDefault]),
                force: invocation[Self.force], in: workspace)
        }
        if changed.isEmpty {
            invocation.note("target \(name) is unchanged")
            return .success
        }
        let before = changed.before
        let after = changed.after
        if changed.droppedInterrupted {
            invocation.note(
                "dropped the interrupted publish to \(name): what it had not sent stays unsent")
        }
        func kept(_ count: Int?, _ noun: String) -> String {
            count.map { "the \($0) \(noun)\($0 == 1 ? "" : "s") published to it" }
                ?? "what was published to it"
        }
        if changed.movedDatabase {
            invocation.note(
                "\(name): database \(before.databaseURL) -> \(after.databaseURL); the next "
                    + "publish sends the whole tree there (\(before.databaseURL) keeps "
                    + kept(changed.pathsLeft, "path") + ")")
        }
        if changed.movedBucket {
            invocation.note(
                "\(name): bucket gs://\(before.bucket) -> gs://\(after.bucket); the next "
                    + "publish uploads every object there and rewrites every image URL "
                    + "(gs://\(before.bucket) keeps " + kept(changed.objectsLeft, "object") + ")")
        }
        if changed.changedLayout {
            invocation.note(
                "\(name): layout \(before.layout) -> \(after.layout); the next publish "
                    + "renders every record with it and removes what only \(before.layout) wrote")
        }
        if changed.becameDefault {
            invocation.note("\(name) is the default target now")
        }
        if changed.movedDatabase || changed.movedBucket || changed.changedLayout {
            invocation.note("next: \(after.publishCommand)")
        }
        return .success
    }

    static let remove = Command(
        "rm", abstract: "Remove a publish target and what is recorded of it.",
        discussion: """
            The target's database and bucket keep what was published to them. A target
            with unpublished changes (removals, deletions, an interrupted publish) is
            removed only with --force, which says what stays live. Removing the default
            target leaves no default: commands then ask for --target, or 'trove publish
            target set NAME --default'.
            """,
        arguments: [name], options: [force]
    ) { invocation in
        let name = invocation[Self.name]
        let workspace = try invocation.openWorkspace()
        let target = try PublishCommand.mapped { try PublishTargets.find(name, in: workspace) }
        let held = try PublishTargets.held(name, in: workspace)
        let pending = unpublished(target, workspace: workspace, invocation)
        let live =
            "\(target.databaseURL) keeps "
            + (held.paths.map { "the \($0) path\($0 == 1 ? "" : "s")" } ?? "the paths")
            + " and gs://\(target.bucket) "
            + (held.objects.map { "the \($0) object\($0 == 1 ? "" : "s")" } ?? "the objects")
            + " published to them"
        if let pending, !invocation[Self.force] {
            throw CommandFailure(
                "target \(name) has unpublished changes (\(pending)); publish them first "
                    + "with '\(target.publishCommand)', or remove it "
                    + "anyway with --force: \(live), and its unpublished changes are never sent",
                status: .problems)
        }
        try PublishCommand.mapped { try PublishTargets.remove(name, in: workspace) }
        invocation.note(
            "removed target \(name); \(target.publishedAt == nil ? "it was never published" : live)"
        )
        if let pending {
            invocation.warn("warning: not sent, and staying as they are: \(pending)")
        }
        if target.isDefault {
            invocation.note(
                "\(name) was the default target; there is none now: give --target NAME, or "
                    + "make one the default with 'trove publish target set NAME --default'")
        }
        return .success
    }

    /// What the target's next publish would change, in words (nil when nothing): what stays
    /// live if it is removed without publishing.
    private static func unpublished(
        _ target: PublishTarget, workspace: Workspace, _ invocation: Invocation
    ) -> String? {
        let interrupted = (try? Publisher.pendingSummary(target: target.name, in: workspace)) ?? nil
        if target.publishedAt == nil && interrupted == nil { return nil }
        let plan: PublishPlanSummary
        do {
            let layout = try ExportCommand.loadLayout(target.layout, invocation)
            plan = try Publisher.unpublished(workspace: workspace, target: target, layout: layout)
                .plan
        } catch {
            return "they cannot be counted: \(error)"
        }
        var parts: [String] = []
        if let interrupted {
            parts.append("an interrupted publish with \(PublishCommand.counts(interrupted)) left")
        }
        func count(_ number: Int, _ noun: String) -> String {
            "\(number) \(noun)\(number == 1 ? "" : "s")"
        }
        if plan.removed > 0 {
            parts.append(
                "\(count(plan.removed, "path")) to remove, which stay\(plan.removed == 1 ? "s" : "") "
                    + "live in the database")
        }
        if plan.deletes > 0 {
            parts.append(
                "\(count(plan.deletes, "object")) nothing references, which "
                    + "stay\(plan.deletes == 1 ? "s" : "") in the bucket")
        }
        if plan.changed > 0 { parts.append("\(count(plan.changed, "path")) to set") }
        if plan.uploads + plan.retokens > 0 {
            parts.append("\(count(plan.uploads + plan.retokens, "object")) to upload or re-token")
        }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }

    // MARK: - Declarations

    static let newName = Argument<String>("name", help: "The target's name, e.g. prod or staging.")
    static let database = Option<String>(
        "database", value: "url",
        help: "The database's root URL (https://PROJECT-default-rtdb.firebaseio.com)."
    ).required()
    static let bucket = Option<String>(
        "bucket", value: "name", help: "The Storage bucket (gs://NAME or NAME.appspot.com)."
    ).required()
    static let layout = Option<String>(
        "layout", value: "name|path",
        help: "A built-in layout or a layout file (default: flatirongo).")
    static let makeDefault = Flag("default", help: "Make it the default target.")
    static let changedDatabase = Option<String>(
        "database", value: "url",
        help: "The database's root URL to publish to from now on.")
    static let changedBucket = Option<String>(
        "bucket", value: "name", help: "The Storage bucket to publish to from now on.")
    static let changedLayout = Option<String>(
        "layout", value: "name|path",
        help: "The layout to publish with from now on: a built-in layout or a layout file.")
    static let force = Flag(
        "force", help: "Go ahead even though unpublished changes are left unsent.")
    static let name = Argument<String>("name", help: "The target's name.")
}
