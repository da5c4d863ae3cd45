import Foundation
import TroveBase
import TroveCommandLine
import TroveKit
import TroveStore

enum ValidateCommand {
    static let command = Command(
        "validate", abstract: "Check treasures in the workspace, or files before importing them.",
        discussion: """
            Prints findings compiler-style (FILE:LINE: error[CODE]: message), or JSON. Exit 1
            when there is an error (or, with --strict, a warning).

            --changed checks only the treasures changed since the last validate of the
            workspace that passed, those closer than 5 m to one and those named like one,
            against all the others: their findings are the ones a full validate reports
            for them, and other treasures' findings are not repeated. Exit 1 when those
            findings have an error; a validate that fails leaves the mark where it was, so
            the next run checks the same treasures again.

            --layout L also runs every check 'trove export --layout L' makes, writing
            nothing: each record or path the export would refuse (a value that does not
            convert to the type the layout asks for, a key or value over the database's
            limits, a rendition not made yet, a missing bucket) is an error, T140, so that
            a workspace that validates with --layout L exports with it.
            """,
        arguments: [files],
        options: [strict, changed, from, ImportCommand.encoding, layout],
        formats: [.text, .json]
    ) { invocation in
        let format = invocation[Self.from]
        let encoding = invocation[ImportCommand.encoding] ?? .utf8
        let files = invocation[Self.files]
        let layout = try invocation[Self.layout].map {
            try ExportCommand.loadLayout($0, invocation)
        }
        let strict = invocation[Self.strict]
        let changedOnly = invocation[Self.changed]
        var report: Validation.Report
        var workspace: Workspace?
        if files.isEmpty {
            let opened = try invocation.openWorkspace()
            workspace = opened
            report = try Validation.workspace(opened, changedOnly: changedOnly, strict: strict)
            if let layout {
                report.append(try LayoutColumns.findings(for: layout, in: opened))
                report.append(try ExportChecks.findings(for: layout, in: opened))
            }
            if changedOnly, let reason = report.everythingBecause {
                invocation.note("checking every treasure: \(reason)")
            }
        } else {
            if layout != nil {
                throw invocation.usageError("--layout checks the workspace; give no files")
            }
            if changedOnly {
                throw invocation.usageError("--changed checks the workspace; give no files")
            }
            // Files are checked against game.bounds when a workspace exists to say it.
            let bounds = try (try? Workspace(path: invocation.workspacePath))?.settings()
                .gameBounds
            let sources = files.map { file -> TreasureFileImport.Source in
                let path = invocation.resolve(file)
                return .init(
                    path: path, displayPath: file,
                    baseFolder: (path as NSString).deletingLastPathComponent, format: format)
            }
            report = Validation.files(sources, encoding: encoding, bounds: bounds)
        }

        if invocation.format == .json {
            try writeJSON(report, to: invocation.context.standardOutput)
        } else {
            try report.forEach { invocation.print($0.compilerStyle) }
            if changedOnly && report.everythingBecause == nil {
                invocation.note(
                    "checked \(report.checked) of \(report.total) treasure"
                        + "\(report.total == 1 ? "" : "s"): those changed since the last "
                        + "validate, and those near or named like them")
            }
            invocation.note(
                "\(report.errors) error\(report.errors == 1 ? "" : "s"), "
                    + "\(report.warnings) warning\(report.warnings == 1 ? "" : "s")")
        }
        if report.unreadableFiles > 0 { return .input }
        let failed = report.errors > 0 || (strict && report.warnings > 0)
        if !failed, let workspace { record(report, in: workspace, invocation, changedOnly) }
        return failed ? .problems : .success
    }

    /// Notes a validate that passed as the last, for `--changed`. A workspace that cannot
    /// take the note (read-only, locked) is still validated; `--changed` says so.
    static func record(
        _ report: Validation.Report, in workspace: Workspace, _ invocation: Invocation,
        _ changedOnly: Bool
    ) {
        if workspace.isReadOnly {
            if changedOnly {
                invocation.note(
                    "not recorded as the last validate: the workspace is read-only, so the "
                        + "next --changed checks these treasures again")
            }
            return
        }
        do {
            try Validation.record(report, in: workspace)
        } catch {
            if changedOnly { invocation.note("not recorded as the last validate: \(error)") }
        }
    }

    /// `{"findings": [...], "errors": N, "warnings": N}` on one line, written a finding at
    /// a time.
    static func writeJSON(_ report: Validation.Report, to output: CommandOutput) throws {
        var summary = JSONLineWriter.inline(.object)
        var findings = JSONLineWriter.inline(.array)
        output.write(summary.opening + summary.next() + jsonString("findings") + ": ")
        output.write(findings.opening)
        try report.forEach { finding in
            let location = finding.location
            var object = JSONObject([
                "code": finding.code, "severity": finding.severity.rawValue,
                "message": finding.message, "file": location.file, "line": location.line,
                "key": location.key,
            ])
            if let feature = location.feature { object.add("feature", feature) }
            if let hint = finding.hint { object.add("hint", hint) }
            output.write(findings.next() + object.jsonText)
        }
        output.write(findings.closing)
        output.write(summary.next() + jsonString("errors") + ": " + report.errors.jsonText)
        output.write(summary.next() + jsonString("warnings") + ": " + report.warnings.jsonText)
        output.write(summary.closing + "\n")
    }

    // MARK: - Declarations

    static let files = Argument<String>(
        "file", help: "Files to check instead of the workspace.", role: .input
    ).variadic(minimum: 0)
    static let strict = Flag("strict", help: "Treat warnings as errors for the exit status.")
    static let changed = Flag(
        "changed",
        help: "Check only the treasures changed since the last validate that passed.")
    static let layout = Option<String>(
        "layout", value: "name|path",
        help:
            "Also run every check an export of the layout makes (T140), and name columns it reads that no treasure has."
    )
    static let from = ImportCommand.fromOption(
        help: "The files' format, when the extension does not say.")
}
