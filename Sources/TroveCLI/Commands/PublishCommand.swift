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
            target's layout (image URLs naming the target's bucket) and what the target
            holds, as recorded by its last publish, then applies it in an order that never
            leaves the app pointing at a missing image: uploads new and re-tokened objects,
            applies the database's multi-path update (nulls for removed paths, in requests
            of at most 4 MB), deletes the objects nothing references any more, and records
            what the target holds. Exports, previews and re-runs never change that record:
            whatever happens between two publishes, the next plan holds every change not
            yet published, deletions and takedowns included. Each step is recorded as it
            completes; after a failure or a kill the next run resumes where it stopped.
            What changes in the workspace meanwhile goes to the next publish. --dry-run
            prints the plan's counts (with --format json, its paths and objects) and
            changes nothing. --mark-applied PLAN records the file of 'trove export --update
            --out PLAN' (and its Storage plan) as applied by other means. Exit status 1
            when a transfer fails (run again to resume).
            """,
        options: [target, dryRun, images, against, appliedPlan],
        formats: [.text, .json],
        subcommands: [PublishTargetCommands.command]
    ) { invocation in
        let workspace = try invocation.openWorkspace()
        if let plan = invocation[Self.appliedPlan] {
            if invocation[Self.dryRun] {
                throw invocation.usageError("--mark-applied records a plan; it has no --dry-run")
            }
            return try markApplied(plan, workspace: workspace, invocation)
        }
        let target = try mapped {
            try PublishTargets.find(invocation[Self.target], in: workspace)
        }
        let layout = try ExportCommand.loadLayout(target.layout, invocation)
        let images = invocation.resolve(invocation[Self.images] ?? "build/images")
        let live = try invocation[Self.against].map { path in
            try mapped { try LiveTree(contentsOf: invocation.resolve(path)) }
        }
        if invocation[Self.dryRun] {
            let result = try mapped {
                try Publisher.dryRun(
                    workspace: workspace, target: target.name, layout: layout, images: images,
                    against: live)
            }
            printDrift(result.plan.drift, invocation)
            printDryRun(result, invocation)
            return .success
        }
        let transports = try transports(invocation)
        let publisher = Publisher(
            workspace: workspace, storage: transports.storage, database: transports.database)
        let result = try mapped {
            try publisher.publish(
                target: target.name, layout: layout, images: images, against: live)
        }
        printDrift(result.plan.drift, invocation)
        if let resumed = result.resumed {
            invocation.note(
                "completed the interrupted publish to \(target.name): \(counts(resumed))")
        }
        if invocation.format == .json {
            invocation.print(
                JSONObject([
                    "target": target.name, "resumed": result.resumed.map(json) ?? nil,
                    "published": json(result.plan),
                ]).jsonText)
        }
        if result.plan.isEmpty {
            invocation.note("\(target.name) is up to date: nothing to publish")
        } else {
            invocation.note("published to \(target.name): \(counts(result.plan))")
        }
        return .success
    }

    // MARK: - Transports

    /// The transports a publish sends through: the context's when it has them (tests),
    /// else the network ones.
    static func transports(_ invocation: Invocation) throws -> PublishTransports {
        let environment = invocation.context.environment
        do {
            if let make = invocation.context.publishTransports { return try make(environment) }
            return try networkTransports(environment: environment)
        } catch let error as TransportError {
            throw CommandFailure("cannot publish: \(error.description)", status: .usage)
        }
    }

    /// The Storage and database clients of this build, configured from the environment.
    static func networkTransports(environment: [String: String]) throws -> PublishTransports {
        PublishTransports(
            storage: try Transports.storage(environment: environment),
            database: try Transports.database(environment: environment))
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
            case .transfer: throw CommandFailure(error.description, status: .problems)
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
