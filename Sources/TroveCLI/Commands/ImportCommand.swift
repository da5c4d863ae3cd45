import Foundation
import TroveBase
import TroveCommandLine
import TroveKit

enum ImportCommand {
    static let command = Command(
        "import", abstract: "Import treasures or posts into the workspace.",
        subcommands: [treasures, ImportPostsCommand.command])

    static let treasures = Command(
        "treasures", abstract: "Import treasures from CSV or GeoJSON files.",
        discussion: """
            CSV (, ; or tab, UTF-8 with or without BOM, UTF-16 with a BOM, RFC 4180
            quoting, decimal commas in semicolon files) and GeoJSON (FeatureCollection,
            Feature, one Feature per line, or an RFC 8142 sequence). Repeated header names
            are read as NAME_2, NAME_3..., empty ones as column_N. Rows are upserted by key,
            all files in one transaction: a row that cannot be imported (a broken line of
            newline-delimited GeoJSON too) stops the import with nothing changed (exit 3)
            unless --skip-invalid.
            The workspace remembers which file each treasure came from: the import says
            how many treasures of a file are no longer in it, and --sync removes them (the
            next 'export --update' writes null for their paths). A derived key stays with
            its treasure: a row at the position and with the image of a treasure of the file
            keeps its key, renamed or moved in the file. gzip files are read as the file they
            hold; GeoJSON crs EPSG:3857 is converted.
            """,
        arguments: [files],
        options: [
            from, encoding, swapCoordinates, ignoreNumericIDs, skipInvalid, rejects, force, sync,
            dryRun,
        ],
        formats: [.text, .json]
    ) { invocation in
        let format = invocation[Self.from]
        let encoding = invocation[Self.encoding] ?? .utf8
        if invocation[Self.rejects] != nil && !invocation[Self.skipInvalid] {
            throw invocation.usageError("--rejects needs --skip-invalid")
        }
        let files = invocation[Self.files]
        if files.contains("-") && format == nil {
            throw invocation.usageError("reading standard input needs --from csv or --from geojson")
        }
        let workspace = try invocation.openWorkspace()

        let sources = files.map { file -> TreasureFileImport.Source in
            if file == "-", let format {
                return .standardInput(
                    Array(invocation.context.readStandardInput()), format: format,
                    baseFolder: invocation.context.currentDirectory)
            }
            let path = invocation.resolve(file)
            return .init(
                path: path, displayPath: file,
                baseFolder: (path as NSString).deletingLastPathComponent, format: format)
        }

        var rejects: [Diagnostic] = []
        var job = TreasureFileImport()
        job.encoding = encoding
        job.swapCoordinates = invocation[Self.swapCoordinates]
        job.ignoreNumericIDs = invocation[Self.ignoreNumericIDs]
        job.skipInvalid = invocation[Self.skipInvalid]
        job.dryRun = invocation[Self.dryRun]
        job.sync = invocation[Self.sync]
        job.onSkip = { diagnostic in
            rejects.append(diagnostic)
            invocation.warn(diagnostic.compilerStyle)
        }
        let progress = invocation.progress("importing", total: 0)
        job.onProgress = { progress.count($0) }
        let results: [TreasureFileImport.FileResult]
        do {
            results = try job.run(sources, into: workspace)
        } catch let failure as TreasureFileImport.Failure {
            progress.finish()
            invocation.warn(failure.description)
            if case .invalidRow = failure {
                invocation.warn("nothing was imported; fix the row or pass --skip-invalid")
            } else {
                invocation.warn("nothing was imported")
            }
            return .input
        }
        progress.finish()

        // A dry run writes nothing, the rejects file included.
        if let rejectsPath = invocation[Self.rejects], !job.dryRun {
            let text = RejectedRows.csv(rejects, sources: sources, encoding: encoding)
            try AtomicFile.write(Data(text.utf8), to: invocation.resolve(rejectsPath))
        }
        var total = ImportSummary()
        var removed = 0
        var missing = 0
        let verb = job.dryRun ? "would import" : "imported"
        for result in results {
            let summary = result.summary
            if let message = result.moved.message(for: result.displayPath) {
                invocation.warn(message)
            }
            for warning in result.warnings { invocation.warn(warning.compilerStyle) }
            total.new += summary.new
            total.updated += summary.updated
            total.unchanged += summary.unchanged
            total.skipped += summary.skipped
            var line =
                "\(verb) \(summary.imported) treasures (\(summary.new) new, "
                + "\(summary.updated) updated, \(summary.unchanged) unchanged) from \(result.displayPath)"
            if summary.skipped > 0 { line += "; skipped \(summary.skipped) invalid rows" }
            if result.blankRecords > 0 {
                line +=
                    "; skipped \(result.blankRecords) blank row\(result.blankRecords == 1 ? "" : "s")"
                    + " (only delimiters)"
            }
            invocation.note(line)
            reportVanished(result, dryRun: job.dryRun, invocation)
            if result.removed {
                removed += result.vanished.count
            } else {
                missing += result.vanished.count
            }
            missing += result.keptForSkippedKeys.count
        }
        if invocation.format == .json {
            invocation.print(
                JSONObject([
                    "new": total.new, "updated": total.updated, "unchanged": total.unchanged,
                    "skipped": total.skipped, "removed": removed, "no_longer_in_file": missing,
                ]).jsonText)
        }
        return total.skipped > 0 ? .problems : .success
    }

    /// Likely renames, and the treasures a file no longer holds: removed, or how to.
    private static func reportVanished(
        _ result: TreasureFileImport.FileResult, dryRun: Bool, _ invocation: Invocation
    ) {
        let file = result.displayPath
        for rename in result.renames {
            var location = rename.location
            location.file = file
            var text = location.text
            text += ": warning: '\(rename.newKey)' looks like a rename of '\(rename.oldKey)'"
            text += " (same position and image)"
            if result.derivedKeys {
                text += "; add a key column to the file so a renamed row keeps its key"
            }
            invocation.warn(text)
        }
        if !result.keptForSkippedKeys.isEmpty {
            let kept = result.keptForSkippedKeys
            invocation.warn(
                "kept \(kept.count) treasure\(kept.count == 1 ? "" : "s") of \(file) whose row"
                    + "\(kept.count == 1 ? " was" : "s were") skipped: \(abbreviated(kept)); fix "
                    + "the row\(kept.count == 1 ? "" : "s") and run --sync again")
        }
        let count = result.vanished.count
        guard count > 0 else { return }
        let keys = result.vanished.map(\.key)
        let noun = count == 1 ? "treasure" : "treasures"
        if result.removed && dryRun {
            invocation.note("would remove \(count) \(noun) no longer in \(file):")
            for key in keys { invocation.note("  \(key)") }
        } else if result.removed {
            invocation.note(
                "removed \(count) \(noun) no longer in \(file): \(abbreviated(keys))")
        } else if result.keptBecauseOfSkippedRows {
            invocation.warn(
                "kept \(count) \(noun) of \(file) that \(count == 1 ? "is" : "are") no longer "
                    + "in it, as some of its rows were skipped (one may be theirs): "
                    + "\(abbreviated(keys)); fix the rows and run --sync again")
        } else {
            let command =
                file == "<stdin>"
                ? "the same import with --sync"
                : "'trove import treasures \(ShellQuoting.word(file)) --sync'"
            invocation.note(
                "\(count) \(noun) of \(file) \(count == 1 ? "is" : "are") no longer in it "
                    + "(\(abbreviated(keys))); run \(command) to remove them")
        }
    }

    /// Up to five keys, then how many more.
    private static func abbreviated(_ keys: [String]) -> String {
        let shown = keys.prefix(5).joined(separator: ", ")
        return keys.count > 5 ? shown + " and \(keys.count - 5) more" : shown
    }

    // MARK: - Declarations

    static let files = Argument<String>(
        "file", help: "CSV or GeoJSON files; - reads standard input (with --from).", role: .input
    ).variadic(minimum: 1)
    static let from = fromOption(help: "The format, for - or an unusual extension.")
    static let swapCoordinates = Flag(
        "swap-coordinates",
        help: "Read GeoJSON positions as [lat, lon] (CSV: lat as lon and lon as lat).")
    static let ignoreNumericIDs = Flag(
        "ignore-numeric-ids",
        help: "Key rows whose id is all digits (geojson.io's 0, 1, 2…) by their names.")
    static let skipInvalid = Flag(
        "skip-invalid", help: "Import the valid rows; report the others and exit 1.")
    static let rejects = Option<String>(
        "rejects", value: "file",
        help:
            "With --skip-invalid: write the skipped rows here (CSV: where, why, the row).",
        role: .output(.rejects))
    static let force = Flag(
        "force",
        help: "Replace an existing --rejects file that trove did not write and does not read.",
        replacesOutputs: true)
    static let sync = Flag(
        "sync",
        help: "Remove the treasures of these files that are no longer in them.")
    static let dryRun = Flag(
        "dry-run", help: "Read and report (with --sync: what would go), change nothing.")

    /// `--from`, for the commands that read treasure files.
    static func fromOption(help: String) -> Option<TreasureFormat> {
        Option(
            "from", value: "csv|geojson", help: help, expected: "csv or geojson"
        ) { TreasureFormat(rawValue: $0.lowercased()) }
    }

    /// `--encoding`, for the commands that read treasure files.
    static let encoding = Option<TextEncoding>(
        "encoding", value: "name", help: "Text encoding: utf8 (default), cp1252, latin1.",
        expected: "utf8, cp1252 or latin1"
    ) { TextEncoding(name: $0) }
}
