import Foundation
import TroveBase
import TroveCommandLine
import TroveKit
import TroveStore

enum PublishCommand {
    static let command = Command(
        "publish",
        abstract: "Publish a layout's tree and its images to a target, and record what it holds.",
        discussion: """
            Plans the difference between the tree the workspace would export for the
            target's layout (image URLs naming the target's bucket, with its own download
            tokens) and what the target holds, as recorded by its last publish, then
            applies it in an order that never leaves the app pointing at a missing image:
            uploads new and re-tokened objects, applies the database's multi-path update
            (nulls for removed paths, in requests of at most 4 MB), deletes the objects
            nothing references any more, and records what the target holds. Exports,
            previews and re-runs never change that record: whatever happens between two
            publishes, the next plan holds every change not yet published, deletions and
            takedowns included. Each step is recorded as it completes; after a failure or a
            kill the next run resumes where it stopped. What changes in the workspace
            meanwhile goes to the next publish. A token change that finds its object
            deleted uploads it again.

            --refresh first reads what the target really holds: its database under the
            layout's roots, a page of children at a time, and its bucket under the layout's
            prefix, with each object's download tokens. It names every difference from the
            record (an object missing, a token missing, a path holding another value, a
            path missing, and paths and objects trove does not publish) and the publish
            repairs what trove owns: objects uploaded again, tokens set again, values
            restored. Paths and objects trove does not publish are named and left alone.

            What is ready is published. A treasure or post whose renditions are missing (a
            post approved after 'trove images' ran) is rendered first, into --images, with
            the workspace's rendition settings. One whose renditions cannot be made (its
            image is gone or unreadable) is left out of this publish and named: the target
            keeps what it held of it, the rest is published, and the next publish tries it
            again; the exit status is then 1, as for 'trove images' when an image fails.

            --dry-run prints the plan's counts (with --format json, its paths and objects)
            and changes nothing, rendering nothing; with --refresh it exits 1 when the
            target differs from its record in what trove owns. --mark-applied PLAN records
            the file of 'trove export --update --out PLAN' (and its Storage plan) as
            applied by other means. Exit status 1 when a transfer fails (run again to
            resume) or a record was left out.
            """,
        options: [target, dryRun, refresh, images, against, appliedPlan],
        formats: [.text, .json],
        subcommands: [PublishTargetCommands.command]
    ) { invocation in
        let workspace = try invocation.openWorkspace()
        if let plan = invocation[Self.appliedPlan] {
            if invocation[Self.dryRun] {
                throw invocation.usageError("--mark-applied records a plan; it has no --dry-run")
            }
            if invocation[Self.refresh] {
                throw invocation.usageError("--mark-applied records a plan; it has no --refresh")
            }
            return try markApplied(plan, workspace: workspace, invocation)
        }
        if invocation[Self.refresh] && invocation[Self.against] != nil {
            throw invocation.usageError(
                "--refresh reads the database itself; --against plans against a download instead")
        }
        let target = try mapped {
            try PublishTargets.find(invocation[Self.target], in: workspace)
        }
        let layout = try ExportCommand.loadLayout(target.layout, invocation)
        let images = invocation.resolve(invocation[Self.images] ?? "build/images")
        var options = PublishOptions(images: images)
        options.against = try invocation[Self.against].map { path in
            try mapped { try LiveTree(contentsOf: invocation.resolve(path)) }
        }
        options.refresh = invocation[Self.refresh]
        options.scratchFolder = invocation.context.cloud.temporaryFolder
        do {
            options.renditions = try Renditions.configuredOptions(workspace, outputFolder: images)
        } catch let error as Renditions.SettingError {
            throw CommandFailure(error.description, status: .usage)
        }
        let dryRun = invocation[Self.dryRun]
        // Said as the publish reaches it: what a refresh read, and what it repairs before
        // the transfers begin.
        options.progress = { progress in
            switch progress {
            case .read(let paths, let objects):
                invocation.note(
                    "read \(plural(paths, "path")) and \(plural(objects, "object")) of "
                        + target.name)
            case .planned(let result):
                printDrift(result.plan.drift, invocation)
                printRefresh(result.refresh, target: target, dryRun: false, invocation)
                printReadiness(result, dryRun: false, invocation)
            }
            // Seen as it happens, also when stderr is a pipe: the transfers can take long.
            invocation.context.standardError.flush()
        }
        // A dry run reads a refresh but sends nothing: it needs transports only to read.
        let transports = !dryRun || options.refresh ? try transports(invocation) : nil
        let publisher = transports.map {
            Publisher(workspace: workspace, storage: $0.storage, database: $0.database)
        }
        if dryRun {
            let result = try mapped {
                if let publisher {
                    return try publisher.dryRun(
                        target: target.name, layout: layout, options: options)
                }
                return try Publisher.dryRun(
                    workspace: workspace, target: target.name, layout: layout, options: options)
            }
            printDrift(result.plan.drift, invocation)
            printRefresh(result.refresh, target: target, dryRun: true, invocation)
            printReadiness(result, dryRun: true, invocation)
            printDryRun(result, invocation)
            return (result.refresh?.repairs ?? 0) > 0 ? .problems : .success
        }
        let result = try mapped {
            try publisher!.publish(target: target.name, layout: layout, options: options)
        }
        for record in result.leftOut {
            invocation.warn(
                "warning: left out of this publish: \(record.kind.rawValue) \(record.key): "
                    + "\(record.reason); the target keeps what it held of it, and the next "
                    + "publish tries again")
        }
        if let resumed = result.resumed {
            invocation.note(
                "completed the interrupted publish to \(target.name): \(counts(resumed))")
        }
        if invocation.format == .json {
            var object = JSONObject([
                "target": target.name, "resumed": result.resumed.map(json) ?? nil,
                "published": json(result.plan),
            ])
            addReadiness(result, to: &object)
            if let refresh = result.refresh { object.add("refresh", json(refresh)) }
            invocation.print(object.jsonText)
        }
        if result.plan.isEmpty {
            invocation.note("\(target.name) is up to date: nothing to publish")
        } else {
            invocation.note("published to \(target.name): \(counts(result.plan))")
        }
        return result.leftOut.isEmpty ? .success : .problems
    }

    static func plural(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }

    // MARK: - Transports

    /// The transports a publish sends through: the context's when it has them (tests),
    /// else the network ones.
    static func transports(_ invocation: Invocation) throws -> PublishTransports {
        let cloud = invocation.context.cloud
        do {
            if let make = invocation.context.publishTransports { return try make(cloud) }
            return try networkTransports(cloud)
        } catch let error as TransportError {
            throw CommandFailure("cannot publish: \(error.description)", status: .usage)
        }
    }

    /// The Storage and database clients of this build, configured from the environment.
    static func networkTransports(_ cloud: CloudEnvironment) throws -> PublishTransports {
        PublishTransports(
            storage: try Transports.storage(cloud), database: try Transports.database(cloud))
    }

    // MARK: - Output

    /// Runs `body`, giving publish errors their exit status.
    static func mapped<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PublishError {
            switch error {
            case .usage(let message): throw CommandFailure(message, status: .usage)
            case .input, .missingFiles: throw CommandFailure(error.description, status: .input)
            case .transfer, .unreadable:
                throw CommandFailure(error.description, status: .problems)
            case .busy: throw CommandFailure(error.description, status: .workspace)
            }
        } catch ExportError.storageSetting(let problem) {
            throw CommandFailure("cannot build image URLs: \(problem)", status: .usage)
        }
    }

    static func counts(_ plan: PublishPlanSummary) -> String {
        func plural(_ count: Int, _ noun: String) -> String {
            "\(count) \(noun)\(count == 1 ? "" : "s")"
        }
        return "\(plural(plan.changed, "path")) set and \(plan.removed) removed in "
            + "\(plural(plan.requests, "request")); \(plural(plan.uploads, "object")) uploaded, "
            + "\(plan.retokens) re-tokened, \(plan.deletes) deleted"
    }

    static func json(_ plan: PublishPlanSummary) -> JSONObject {
        var object = JSONObject([
            "paths": plan.paths, "set": plan.changed, "removed": plan.removed,
            "requests": plan.requests, "objects": plan.objects, "uploads": plan.uploads,
            "retokens": plan.retokens, "deletes": plan.deletes,
            "rendered": plan.renderedChangesOnly ? "changes" : "all",
        ])
        if let drift = plan.drift {
            object.add(
                "drift",
                JSONObject([
                    "differ": drift.differ, "missing": drift.missing, "extra": drift.extra,
                    "published_but_changed": drift.publishedButChanged,
                ]))
        }
        return object
    }

    /// What `--refresh` found, on stderr: each difference on a line of its own, then
    /// their counts.
    private static func printRefresh(
        _ report: RefreshReport?, target: PublishTarget, dryRun: Bool, _ invocation: Invocation
    ) {
        guard let report else { return }
        /// What the publish does about a difference, or would do.
        func repair(_ done: String, _ toDo: String) -> String {
            dryRun ? "the publish would \(toDo)" : done
        }
        for name in report.missingObjects {
            invocation.note(
                "missing from gs://\(target.bucket): \(name) ("
                    + repair("uploaded again", "upload it again") + ")")
        }
        for name in report.tokens {
            invocation.note(
                "token missing: \(name) lacks the token its URL carries ("
                    + repair("set again", "set it again") + ")")
        }
        for path in report.differ {
            invocation.note(
                "another value in the database: \(path) ("
                    + repair("restored", "restore it") + ")")
        }
        for path in report.missing {
            invocation.note(
                "missing from the database: \(path) (" + repair("set again", "set it again") + ")")
        }
        for path in report.unpublishedPaths {
            invocation.note("not published by trove, left alone: \(path)")
        }
        for name in report.unpublishedObjects {
            invocation.note("not published by trove, left alone: gs://\(target.bucket)/\(name)")
        }
        let others = report.unpublishedPaths.count + report.unpublishedObjects.count
        let left = others == 0 ? "" : "; \(others) not published by trove, left alone"
        if report.repairs == 0 {
            invocation.note("\(target.name) holds what trove recorded\(left)")
        } else {
            invocation.note(
                "\(target.name) differs from what trove recorded in "
                    + "\(plural(report.repairs, "place"))\(left)")
        }
    }

    /// The records rendered first and those left out, on stderr.
    private static func printReadiness(
        _ result: PublishResult, dryRun: Bool, _ invocation: Invocation
    ) {
        func names(_ records: [(RenditionOwner, String)]) -> String {
            let shown = records.prefix(20).map { "\($0.0.rawValue) \($0.1)" }
            return shown.joined(separator: ", ")
                + (records.count > 20 ? " and \(records.count - 20) more" : "")
        }
        if !result.rendered.isEmpty {
            let records = result.rendered.map { ($0.kind, $0.key) }
            invocation.note(
                (dryRun ? "would first render what these lack: " : "rendered what these lacked: ")
                    + names(records))
        }
    }

    private static func addReadiness(_ result: PublishResult, to object: inout JSONObject) {
        object.add(
            "rendered",
            result.rendered.map {
                JSONObject(["kind": $0.kind.rawValue, "key": $0.key])
            })
        object.add(
            "left_out",
            result.leftOut.map {
                JSONObject(["kind": $0.kind.rawValue, "key": $0.key, "reason": $0.reason])
            })
    }

    static func json(_ report: RefreshReport) -> JSONObject {
        JSONObject([
            "paths_read": report.pathsRead, "objects_read": report.objectsRead,
            "missing_objects": report.missingObjects, "missing_tokens": report.tokens,
            "differ": report.differ, "missing": report.missing,
            "not_published_paths": report.unpublishedPaths,
            "not_published_objects": report.unpublishedObjects,
        ])
    }

    /// What `--against` found, on stderr.
    private static func printDrift(_ drift: PublishDrift?, _ invocation: Invocation) {
        guard let drift else { return }
        if drift.isEmpty {
            invocation.note("the database holds exactly the tree at the layout's paths")
            return
        }
        func examples(_ paths: [String]) -> String {
            paths.prefix(5).joined(separator: ", ") + (paths.count > 5 ? ", ..." : "")
        }
        func paths(_ count: Int) -> String { count == 1 ? "1 path" : "\(count) paths" }
        if !drift.differ.isEmpty {
            invocation.note(
                "another value in the database at \(paths(drift.differ.count)) (edited in the "
                    + "console, or changes not published yet): \(examples(drift.differ))")
        }
        if !drift.missing.isEmpty {
            invocation.note(
                "missing from the database: \(paths(drift.missing.count)) of the tree (a lost "
                    + "update, or never published): \(examples(drift.missing))")
        }
        if drift.publishedButChanged > 0 {
            invocation.note(
                "recorded as published by trove: \(drift.publishedButChanged) of these")
        }
        if !drift.extra.isEmpty {
            invocation.note(
                "not in the tree: \(paths(drift.extra.count)) at the layout's paths (a database "
                    + "seeded by someone else, or removals not published yet), set to null: "
                    + examples(drift.extra))
        }
    }

    private static func printDryRun(_ result: PublishResult, _ invocation: Invocation) {
        if invocation.format == .json {
            let detail = result.detail ?? PublishPlanDetail()
            var object = json(result.plan)
            object.add("target", result.target)
            if let resumed = result.resumed {
                object.add("interrupted", json(resumed))
            } else {
                object.add("interrupted", Optional<String>.none)
            }
            addReadiness(result, to: &object)
            if let refresh = result.refresh { object.add("refresh", json(refresh)) }
            object.add("set_paths", detail.set)
            object.add("removed_paths", detail.removed)
            object.add("upload_objects", detail.uploads)
            object.add("retoken_objects", detail.retokens)
            object.add("delete_objects", detail.deletes)
            invocation.print(object.jsonText)
            return
        }
        if let resumed = result.resumed {
            invocation.print(
                "would first complete the interrupted publish to \(result.target): "
                    + counts(resumed))
        }
        if result.plan.isEmpty {
            invocation.print("\(result.target) is up to date: nothing to publish")
        } else {
            invocation.print("would publish to \(result.target): \(counts(result.plan))")
        }
    }

    // MARK: - Declarations

    static let target = Option<String>(
        "target", value: "name", help: "The target (default: the default target).")
    static let dryRun = Flag("dry-run", help: "Print the plan; send and record nothing.")
    static let refresh = Flag(
        "refresh",
        help: "Read what the target's database and bucket hold, name what differs, and repair it.")
    static let images = Option<String>(
        "images", value: "dir",
        help: "Where 'trove images' wrote the renditions (default: build/images).")
    static let against = Option<String>(
        "against", value: "live.json",
        help: "Plan against this 'firebase database:get /' download, and say what differs.")
    static let appliedPlan = Option<String>(
        "mark-applied", value: "plan",
        help: "Record this export --update file as applied to the target.")

    // MARK: - --mark-applied

    private static func markApplied(_ plan: String, workspace: Workspace, _ invocation: Invocation)
        throws -> ExitStatus
    {
        let path = invocation.resolve(plan)
        let marked = try mapped {
            try Publisher.markApplied(
                workspace: workspace, target: invocation[Self.target], plan: path)
        }
        invocation.note(
            "recorded \(plan) (export \(marked.export)) as applied to \(marked.target): "
                + "\(marked.paths) paths, \(marked.objects) objects")
        if let other = marked.otherBucket {
            invocation.warn(
                "warning: \(plan)'s image URLs name bucket \(other), not the target's; the "
                    + "next publish rewrites them")
        }
        return .success
    }
}
