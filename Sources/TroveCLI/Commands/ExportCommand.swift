import Foundation
import TroveBase
import TroveCommandLine
import TroveKit
import TroveStore

enum ExportCommand {
    static let command = Command(
        "export",
        abstract: "Write the JSON tree the apps read, from a layout.",
        discussion: """
            Writes the nested tree (stdout without --out), to inspect or to seed an empty
            database, or with --update a multi-path update of what changed since the
            layout's last recorded export (every path the first time), to publish with
            'firebase database:update / FILE': it writes only the layout's paths and
            leaves the rest of the database alone, where 'database:set /' would replace
            all of it. With --out, the Storage plan is written beside: OUT.storage.json
            and OUT.storage.sh, whose 'upload' step runs before the database update and
            'delete' step after it. --rules FILE writes a complete database.rules.json
            when FILE does not exist, adds what the layout needs to one an earlier export
            wrote, and otherwise says what to merge where. --format json prints the
            summary on stdout (with --out or --dry-run). Only an
            export written with --out is recorded (full or --update): a preview on stdout
            or a --dry-run changes nothing, so it never hides a change from the next
            --update. 'trove export log' lists the recorded exports; --update --since ID
            makes the update against an earlier one again (for an update file that was
            lost or never uploaded). --max-bytes writes multi-path update parts OUT.part-001.json ...
            each smaller than N bytes, and OUT.manifest.json listing them in order.
            Keys are sorted by UTF-8 bytes; the tree is two-space indented with each
            path's value on one line; numbers print as JavaScript prints them. Nothing
            is written when a record lacks a current geohash or a rendition, or breaks
            a Realtime Database limit. {extra.NAME} reads a column by its name as written
            ({extra.State Name}); extras keep the type they were read with (CSV text,
            GeoJSON JSON types) unless the placeholder asks for one: {extra.points:int},
            :number, :bool, :text. A value that does not convert stops the export.

            --target NAME previews the tree that publish target would get, on stdout (or
            counted with --dry-run): its layout unless --layout says otherwise, its bucket
            in the image URLs, with its own download tokens; nothing is recorded.
            """,
        options: [
            layout, target, out, update, since, dryRun, maxBytes, rules, images, allObjects,
            force,
        ],
        formats: [.text, .json],
        subcommands: [log]
    ) { invocation in
        var target: PublishTarget?
        if let name = invocation[Self.target] {
            for (given, flag) in [
                (invocation[Self.out] != nil, "--out"), (invocation[Self.update], "--update"),
                (invocation[Self.since] != nil, "--since"),
                (invocation[Self.rules] != nil, "--rules"),
                (invocation[Self.maxBytes] != nil, "--max-bytes"),
                (invocation[Self.allObjects], "--all-objects"),
            ] where given {
                throw invocation.usageError(
                    "--target previews a target's tree on stdout and records nothing; it takes "
                        + "no \(flag) (a target's tree reaches it with 'trove publish --target "
                        + "\(name)')")
            }
            let workspace = try invocation.openWorkspace()
            target = try PublishCommand.mapped { try PublishTargets.find(name, in: workspace) }
        }
        guard let layoutName = invocation[Self.layout] ?? target?.layout else {
            throw invocation.usageError(
                "give the layout to export with --layout (or --target NAME)")
        }
        let maxBytes = invocation[Self.maxBytes]
        let output = invocation[Self.out].map(invocation.resolve)
        if maxBytes != nil && output == nil {
            throw invocation.usageError("--max-bytes needs --out FILE to name the parts after")
        }
        let since = invocation[Self.since]
        if since != nil && !invocation[Self.update] {
            throw invocation.usageError("--since needs --update")
        }
        if invocation.format == .json && output == nil && !invocation[Self.dryRun] {
            throw invocation.usageError(
                "--format json needs --out FILE or --dry-run: without them the tree goes to stdout")
        }
        let layout = try loadLayout(layoutName, invocation)
        var options = ExportOptions(
            update: invocation[Self.update], output: output, maxBytes: maxBytes,
            rules: invocation[Self.rules].map(invocation.resolve))
        options.now = Date()
        options.dryRun = invocation[Self.dryRun]
        options.since = since
        options.allObjects = invocation[Self.allObjects]
        if let target {
            if layout.name != target.layout {
                invocation.note(
                    "note: previewing \(target.name) with layout \(layout.name), not its own "
                        + "\(target.layout)")
            }
            options.target = target
        }
        if output != nil {
            options.images = invocation.resolve(invocation[Self.images] ?? "build/images")
        }
        let workspace = try invocation.openWorkspace()
        for finding in try LayoutColumns.findings(for: layout, in: workspace) {
            invocation.warn(finding.compilerStyle)
        }
        let out = invocation.context.standardOutput
        let summary: ExportSummary
        do {
            summary = try Exporter.run(
                workspace: workspace, layout: layout, options: options,
                standardOutput: out.exportDestination())
        } catch ExportError.unknownBase(let reason) {
            throw CommandFailure(reason, status: .usage)
        } catch ExportError.storageSetting(let problem) {
            throw CommandFailure("cannot build image URLs: \(problem)", status: .usage)
        } catch let error as ExportError {
            if case .notRecorded = error {
                throw CommandFailure(error.description, status: .workspace)
            }
            throw error
        }
        if invocation.format == .json {
            invocation.print(jsonSummary(summary, options, layout: layoutName, since: since))
            return .success
        }
        let noun = layout.records == .treasures ? "treasures" : "approved posts"
        var message =
            "\(options.dryRun ? "would export" : "exported") \(summary.records) \(noun) with "
            + "\(layoutName): \(summary.paths) paths"
        message += ", \(summary.changed) new or changed, \(summary.removed) removed"
        if let since { message += " since export \(since)" }
        if !options.isRecorded { message += " (not recorded: only an export to --out is)" }
        invocation.note(message)
        if options.update && since == nil && options.isRecorded && summary.changed == 0
            && summary.removed == 0, let output
        {
            // Also what a run killed after it recorded its export leaves: that update was
            // never uploaded, and nothing tells the two apart.
            invocation.note(
                "note: nothing changed since the last recorded export; if its update never"
                    + " reached the database, make it again with --update --since ID (the export"
                    + " before it in 'trove export log') and upload every image: add"
                    + " --all-objects, then 'sh \(StoragePlan.paths(output: output).script)"
                    + " upload --all'")
        }
        for path in summary.written { invocation.note("wrote \(path)") }
        for path in summary.unchanged { invocation.note("\(path) is unchanged") }
        if let rules = options.rules, !summary.rulesToMerge.isEmpty {
            invocation.warn("\(rules) is your own and was left alone; merge into it:")
            for line in summary.rulesToMerge { invocation.warn("  \(line)") }
        }
        if let reason = summary.fullRenderReason {
            // Said because the cost is the whole workspace's rather than the change's.
            invocation.note("note: every record was rendered: \(reason)")
        }
        if summary.remoteImages > 0 {
            let count = summary.remoteImages
            invocation.note(
                "note: \(count) \(count == 1 ? "image is a remote URL" : "images are remote URLs"),"
                    + " exported as given for every rendition (remote images get no renditions)")
        }
        if let plan = summary.storagePlan, let output {
            let script = StoragePlan.paths(output: output).script
            invocation.note(
                "storage: \(plan.objects) objects referenced, \(plan.toUpload) to upload, "
                    + "\(plan.deletions) to delete after the database update "
                    + "(sh \(script) upload; then delete)")
        }
        return .success
    }

    /// The summary `--format json` prints: the counts, the files, what an existing rules
    /// file lacks and the Storage plan's counts (null when none was written).
    private static func jsonSummary(
        _ summary: ExportSummary, _ options: ExportOptions, layout: String, since: Int64?
    ) -> String {
        let storage = summary.storagePlan.map {
            JSONObject([
                "objects": $0.objects, "toUpload": $0.toUpload, "deletions": $0.deletions,
            ])
        }
        return JSONObject([
            "layout": layout, "dryRun": options.dryRun, "update": options.update,
            "since": since, "recorded": options.isRecorded, "records": summary.records,
            "paths": summary.paths, "changed": summary.changed, "removed": summary.removed,
            "written": summary.written, "unchanged": summary.unchanged,
            "rulesToMerge": summary.rulesToMerge, "remoteImages": summary.remoteImages,
            "storage": storage, "fullRender": summary.fullRenderReason,
            "rendered": summary.renderedChangesOnly ? "changes" : "all",
        ]).jsonText
    }

    /// The files an export to `out` writes beside it: the Storage plan, and with
    /// `--max-bytes` the parts' manifest.
    static func besideOut(_ out: String, _ parsed: ParsedCommandLine) -> [(String, OutputKind)] {
        let plan = StoragePlan.paths(output: out)
        var files: [(String, OutputKind)] = [(plan.manifest, .json), (plan.script, .storageScript)]
        if parsed[Self.maxBytes] != nil {
            files.append((ExportOptions.partPaths(output: out).manifest, .json))
        }
        return files
    }

    // MARK: - log

    static let log = Command(
        "log", abstract: "List the recorded exports, oldest first.",
        discussion: """
            Each export written with --out is recorded: its id (for --update --since),
            time, layout, kind (full or update), the export it was relative to, the counts
            and the file. The state of the last 10 exports per layout is kept.
            """,
        options: [logLayout],
        formats: [.text, .json]
    ) { invocation in
        let workspace = try invocation.openWorkspace()
        var layout = invocation[Self.logLayout]
        if let name = layout, name.contains("/") || name.hasSuffix(".json") {
            layout = invocation.resolve(name)
        }
        let entries = try ExportLog.entries(in: workspace, layout: layout)
        if invocation.format == .json {
            let items = entries.map { entry in
                JSONObject([
                    "id": entry.id, "at": entry.at, "layout": entry.layout, "kind": entry.kind,
                    "base": entry.base, "records": entry.records, "paths": entry.paths,
                    "changed": entry.changed, "removed": entry.removed, "out": entry.out,
                    "kept": entry.isKept,
                ]).jsonText
            }
            invocation.print(JSONLineWriter.text(items))
            return .success
        }
        for entry in entries {
            let base = entry.base.map { " since \($0)" } ?? ""
            var line = "\(entry.id)  \(entry.at)  \(entry.layout)  \(entry.kind)\(base)  "
            line += "\(entry.records) records, \(entry.paths) paths, \(entry.changed) changed, "
            line += "\(entry.removed) removed  \(entry.out)"
            if !entry.isKept { line += "  (state no longer kept)" }
            invocation.print(line)
        }
        if entries.isEmpty { invocation.note("no recorded exports yet; export with --out FILE") }
        return .success
    }

    // MARK: - Declarations

    static let layout = Option<String>(
        "layout", value: "name|path",
        help: "A built-in layout (flatirongo, trashmapper) or a layout file.",
        role: .input
    )
    static let target = Option<String>(
        "target", value: "name",
        help: "Preview what this publish target would get: its layout, bucket and tokens.")
    static let out = Option<String>(
        "out", short: "o", value: "file", help: "Write here instead of stdout.",
        role: .output(.json, beside: besideOut))
    static let update = Flag(
        "update", help: "Write only what changed since the last recorded export.")
    static let dryRun = Flag("dry-run", help: "Check and count, but write and record nothing.")
    static let rules = Option<String>(
        "rules", value: "file",
        help: "Write database.rules.json here (or say what an existing one lacks).",
        role: .output(.writtenIfMissing))
    static let images = Option<String>(
        "images", value: "dir",
        help: "Where 'trove images' wrote the renditions (default: build/images).",
        role: .input)
    static let allObjects = Flag(
        "all-objects",
        help: "List every object in the Storage plan, not only those that change.")
    static let force = Flag(
        "force", help: "Replace an existing --out file that trove did not write and does not read.",
        replacesOutputs: true)
    static let since = Option<Int64>(
        "since", value: "id",
        help: "With --update: relative to this recorded export (see 'export log').",
        expected: "the id of a recorded export"
    ) { Int64($0).flatMap { $0 > 0 ? $0 : nil } }
    static let maxBytes = Option<Int>(
        "max-bytes", value: "n",
        help: "Split into multi-path update parts smaller than N bytes (needs --out).",
        expected: "a whole number of at least 64"
    ) { Int($0).flatMap { $0 >= 64 ? $0 : nil } }
    static let logLayout = Option<String>(
        "layout", value: "name|path", help: "Only this layout's exports.")

    /// A built-in layout by name, or a layout file by path.
    static func loadLayout(_ name: String, _ invocation: Invocation) throws -> Layout {
        let path = invocation.resolve(name)
        let looksLikePath = name.contains("/") || name.hasSuffix(".json")
        do {
            if looksLikePath || FileManager.default.fileExists(atPath: path) {
                guard FileManager.default.fileExists(atPath: path) else {
                    throw InputError(name, "no such layout file")
                }
                return try Layout(contentsOf: URL(fileURLWithPath: path), name: path)
            }
            let library = try TemplateLibrary(overrideFolder: invocation.context.templatesFolder)
            guard let json = library.layout(named: name) else {
                let known = library.layoutNames()
                throw invocation.usageError(
                    "unknown layout '\(name)' (built-in: \(known.joined(separator: ", ")))"
                        + suggestion(for: name, among: known))
            }
            return try Layout(name: name, json: json)
        } catch let error as LayoutError {
            throw CommandFailure(error.description, status: .usage)
        }
    }
}
