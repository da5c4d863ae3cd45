import Foundation
import TroveBase
import TroveStore

/// What an export of a layout would refuse, as findings: `validate --layout L` runs the
/// export itself (checking and counting, writing and recording nothing), so that every
/// check the export makes is made, and a workspace that validates exports.
public enum ExportChecks {
    /// One error per record or path the export of `layout` refuses, naming the record
    /// (a geohash validate warns about is an error here: the export stops on it). Empty
    /// when the export would succeed.
    ///
    /// - Throws: `SQLiteError`, `WorkspaceError`, `ExportError` for what is no finding
    ///   (an output that cannot be written, a damaged state).
    public static func findings(for layout: Layout, in workspace: Workspace) throws
        -> [Diagnostic]
    {
        var options = ExportOptions()
        options.dryRun = true
        options.problemsShown = .max
        let file = layout.name
        func finding(_ message: String, key: String? = nil) -> Diagnostic {
            Diagnostic(
                .error, DiagnosticCode.exportRefused,
                "the export of \(layout.name) refuses it: " + message,
                at: .init(file: file, key: key),
                hint: "'trove export --layout \(layout.name)' stops on it")
        }
        do {
            _ = try Exporter.run(workspace: workspace, layout: layout, options: options)
            return []
        } catch ExportError.refused(let groups) {
            var findings: [Diagnostic] = []
            for group in groups {
                for example in group.examples {
                    let (key, rest) = Self.record(in: example)
                    findings.append(finding("\(group.title): \(rest)", key: key))
                }
            }
            return findings
        } catch ExportError.missingBucket(let missing) {
            return [finding(missing.message + " (\(MissingBucket.hint))")]
        } catch ExportError.storageSetting(let problem) {
            return [finding("cannot build image URLs: \(problem)")]
        }
    }

    /// The record an example names (`treasure KEY: what`), and the rest.
    static func record(in example: String) -> (key: String?, rest: String) {
        for noun in ["treasure ", "post "] where example.hasPrefix(noun) {
            let body = example.dropFirst(noun.count)
            if let colon = body.range(of: ": ") {
                return (String(body[..<colon.lowerBound]), example)
            }
            return (String(body), example)
        }
        return (nil, example)
    }
}
