import Foundation
import TroveBase

extension FileExportSink {
    /// Records the Storage plan written as the one the next plan of this output compares
    /// with.
    ///
    /// - Throws: `SQLiteError`.
    func recordStoragePlan() throws {
        try storagePlan?.record(in: database)
    }

    /// Removes every temporary file.
    func discard() {
        treeFile?.discard()
        for file in updates?.files ?? [] { file.discard() }
        outputs.discard()
    }

    /// Puts the files in place (or sends the output to `standardOutput`).
    ///
    /// `--max-bytes` parts are named with their content's hash and the manifest goes into
    /// place after them, so a reader that follows the manifest sees the old set or the new
    /// one, never a mix, whenever the run is killed; parts no manifest lists are removed
    /// only after the new manifest is in place. The Storage plan and the rules go in before
    /// the tree (or the manifest): a new tree or manifest in place means the whole set is.
    func commit(_ summary: ExportSummary, standardOutput: Exporter.StandardOutput) throws
        -> ExportSummary
    {
        var summary = summary
        var files = updates?.files ?? []
        if let treeFile { files.append(treeFile) }
        if options.dryRun {
            discard()
            return summary
        }
        if options.output == nil {
            for file in files { try standardOutput.send(file) }
        } else {
            for file in files { outputs.adopt(file) }
        }
        var manifestParts: [String]?
        var manifestFile: OutputFile?
        if let output = options.output, options.maxBytes != nil {
            for (index, file) in files.enumerated() {
                file.path = ExportOptions.partPath(
                    output: output, index: index + 1, hash: file.contentHash)
            }
            let parts = files.map { URL(fileURLWithPath: $0.path).lastPathComponent }
            let manifest =
                "{\n  \"layout\": \(jsonString(layout.name)),\n  \"parts\": "
                + JSONLineWriter.text(parts.map(jsonString), indent: "    ", closingIndent: "  ")
                + "\n}\n"
            let file = try outputs.stage(ExportOptions.partPaths(output: output).manifest)
            try file.write(manifest)
            manifestFile = file
            manifestParts = parts
        }
        var rulesOutput: [OutputFile] = []
        if let rulesFile, let rules = options.rules {
            let existing = FileManager.default.contents(atPath: rules)
            // A file an earlier export wrote gains what this layout adds.
            let complete =
                existing.map { Exporter.rules(updating: $0, for: layout) }
                ?? Exporter.rules(for: layout)
            if let complete {
                try rulesFile.write(complete)
                rulesOutput = [rulesFile]
            } else if let existing {
                // Someone's own rules: left alone, with what to merge where (or, when they
                // have it all, said to be unchanged).
                summary.rulesToMerge = RulesMerge.missing(in: existing, for: layout)
                outputs.withdraw(rulesFile)
                if summary.rulesToMerge.isEmpty { summary.unchanged.append(rules) }
            }
        }
        // Output for standard output was drained above and is not in the set.
        let written = options.output == nil ? [] : files
        let plan = storagePlan.map { [$0.manifestFile, $0.scriptFile] } ?? []
        let order =
            manifestFile.map { written + plan + rulesOutput + [$0] }
            ?? plan + rulesOutput + written
        for file in order { outputs.moveToEnd(file) }
        let journal = options.output.map(CommitJournal.path(for:))
        for result in try outputs.commit(journal: journal, beforeRename: options.beforeRename) {
            if result.changed {
                summary.written.append(result.path)
            } else {
                summary.unchanged.append(result.path)
            }
        }
        if let output = options.output, let parts = manifestParts {
            ExportOptions.removeStaleParts(output: output, keeping: Set(parts))
        }
        return summary
    }
}
