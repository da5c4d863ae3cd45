import Foundation

/// Reads treasure files and upserts them into the workspace in one transaction.
///
/// Any row that cannot be imported stops everything (nothing is written) unless
/// `skipInvalid`, in which case it is reported and left out.
public struct TreasureFileImport {
    /// One input: a path, or standard input already saved to a file.
    public struct Source: Sendable {
        /// The file to read.
        public var path: String
        /// How messages name it (as the user typed it, or `<stdin>`).
        public var displayPath: String
        /// The folder relative image paths are resolved against.
        public var baseFolder: String
        public var format: TreasureFormat?

        public init(path: String, displayPath: String, baseFolder: String, format: TreasureFormat?)
        {
            self.path = path
            self.displayPath = displayPath
            self.baseFolder = baseFolder
            self.format = format
        }
    }

    /// What happened to each file.
    public struct FileResult: Sendable {
        public var displayPath: String
        public var summary: ImportSummary
    }

    /// Why an import stopped; nothing was written.
    public enum Failure: Error, CustomStringConvertible {
        /// The file cannot be read or parsed.
        case unreadable(TreasureFileError)
        /// A row that cannot be imported, without `--skip-invalid`.
        case invalidRow(Diagnostic)

        public var description: String {
            switch self {
            case .unreadable(let error): return error.diagnostic.compilerStyle
            case .invalidRow(let diagnostic): return diagnostic.compilerStyle
            }
        }
    }

    public var encoding: TextEncoding = .utf8
    public var skipInvalid = false
    public var dryRun = false
    /// Called for each row left out with `skipInvalid`.
    public var onSkip: (Diagnostic) -> Void = { _ in }
    /// Called every so many rows, for a progress display.
    public var onProgress: (Int) -> Void = { _ in }

    public init() {}

    private struct DryRunFinished: Error {
        let results: [FileResult]
    }

    /// Imports every source into `workspace`; with `dryRun` the transaction is rolled back.
    ///
    /// - Throws: `Failure` (nothing written), `WorkspaceError`, `SQLiteError`.
    public func run(_ sources: [Source], into workspace: Workspace) throws -> [FileResult] {
        do {
            return try workspace.write {
                let results = try importAll(sources, into: workspace)
                if dryRun { throw DryRunFinished(results: results) }
                return results
            }
        } catch let finished as DryRunFinished {
            return finished.results
        }
    }

    private func importAll(_ sources: [Source], into workspace: Workspace) throws -> [FileResult] {
        let importer = try TreasureImporter(workspace: workspace)
        var results: [FileResult] = []
        var before = ImportSummary()
        var skipped = 0
        var rows = 0
        for source in sources {
            var reader: TreasureReader
            do {
                reader = try TreasureReader(
                    path: source.path, displayPath: source.displayPath, format: source.format,
                    encoding: encoding)
                while let row = try reader.next() {
                    switch row {
                    case .treasure(let input):
                        try importer.add(input, image: Self.resolveImage(input.image, in: source))
                    case .invalid(let diagnostic):
                        guard skipInvalid else { throw Failure.invalidRow(diagnostic) }
                        skipped += 1
                        onSkip(diagnostic)
                    }
                    rows += 1
                    if rows % 10_000 == 0 { onProgress(rows) }
                }
            } catch let error as TreasureFileError {
                throw Failure.unreadable(error)
            }
            let total = try importer.summary(skipped: skipped)
            let file = ImportSummary(
                new: total.new - before.new, updated: total.updated - before.updated,
                unchanged: total.unchanged - before.unchanged,
                skipped: total.skipped - before.skipped)
            results.append(FileResult(displayPath: source.displayPath, summary: file))
            before = total
        }
        return results
    }

    /// A relative image path becomes absolute against the file's folder; URLs stay.
    static func resolveImage(_ image: String?, in source: Source) -> String? {
        guard let image, !image.isEmpty else { return nil }
        let lowered = image.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") { return image }
        let url =
            image.hasPrefix("/")
            ? URL(fileURLWithPath: image)
            : URL(fileURLWithPath: source.baseFolder).appendingPathComponent(image)
        return url.standardizedFileURL.path
    }
}
