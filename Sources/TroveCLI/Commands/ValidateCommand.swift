import Foundation
import TroveKit

enum ValidateCommand {
    static let command = Command(
        "validate", abstract: "Check treasures in the workspace, or files before importing them.",
        discussion: """
            Prints findings compiler-style (FILE:LINE: error[CODE]: message), or JSON. Exit 1
            when there is an error (or, with --strict, a warning).
            """,
        arguments: [
            Argument(
                "file", help: "Files to check instead of the workspace.",
                arity: .variadic(minimum: 0), role: .input)
        ],
        options: [
            Option("strict", help: "Treat warnings as errors for the exit status."),
            Option(
                "from", value: "csv|geojson",
                help: "The files' format, when the extension does not say."),
            Option(
                "encoding", value: "name", help: "Text encoding: utf8 (default), cp1252, latin1."),
            Option(
                "layout", value: "name|path",
                help: "Also check that every column the layout reads is one the treasures have."),
        ],
        formats: [.text, .json]
    ) { invocation in
        let (format, encoding) = try ImportCommand.readingOptions(invocation)
        let files = invocation.arguments("file")
        let layout = try invocation.option("layout").map {
            try ExportCommand.loadLayout($0, invocation)
        }
        var report: Validation.Report
        if files.isEmpty {
            let workspace = try invocation.openWorkspace()
            report = try Validation.workspace(workspace)
            if let layout {
                report.append(try LayoutColumns.findings(for: layout, in: workspace))
            }
        } else {
            if layout != nil {
                throw invocation.usageError("--layout checks the workspace; give no files")
            }
            // Files are checked against game.bounds when a workspace exists to say it.
            let bounds = try? Workspace(path: invocation.workspacePath)
                .setting(Setting.gameBounds.key).flatMap(GeoBounds.init)
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
            invocation.note(
                "\(report.errors) error\(report.errors == 1 ? "" : "s"), "
                    + "\(report.warnings) warning\(report.warnings == 1 ? "" : "s")")
        }
        if report.unreadableFiles > 0 { return .input }
        let failed = report.errors > 0 || (invocation.flag("strict") && report.warnings > 0)
        return failed ? .problems : .success
    }

    /// `{"findings": [...], "errors": N, "warnings": N}` on one line, written a finding at
    /// a time.
    static func writeJSON(_ report: Validation.Report, to output: OutputStream) throws {
        output.write("{" + jsonString("findings") + ": [")
        var separator = ""
        try report.forEach { finding in
            let location = finding.location
            var object = JSONObject([
                "code": finding.code, "severity": finding.severity.rawValue,
                "message": finding.message, "file": location.file, "line": location.line,
                "key": location.key,
            ])
            if let feature = location.feature { object.add("feature", feature) }
            if let hint = finding.hint { object.add("hint", hint) }
            output.write(separator + object.jsonText)
            separator = ", "
        }
        var counts = JSONObject()
        counts.add("errors", report.errors)
        counts.add("warnings", report.warnings)
        // The counts' members follow the findings' in the same object.
        output.write("], " + String(counts.jsonText.dropFirst()) + "\n")
    }
}
