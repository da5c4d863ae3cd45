import Foundation
import TroveBase
import TroveSQLite
import TroveStore

/// Writes a workspace's treasures or approved posts through a layout.
///
/// Records stream from SQLite in database order, one query per path template, and the
/// entries are merged and written as they come; only the current record of each template
/// is in memory. Everything is checked on the way (geohashes, renditions, Realtime
/// Database limits) and nothing appears unless all is well: files are written beside
/// their destination and renamed into place at the end.
///
/// Every export, full or `--update`, records a hash of each exported path's value, so an
/// `--update` is relative to the layout's last export of either kind.
public enum Exporter {
    /// Where an export without an output file sends its tree, once everything succeeded.
    public enum StandardOutput {
        /// Chunks of whole lines, handed to the caller (a capturing stream in tests).
        case chunks((ArraySlice<UInt8>) -> Void)
        /// An open descriptor the kernel copies the output to; nothing buffered for it
        /// may be pending.
        case descriptor(Int32)

        /// Sends `file` (a finished spill file) here.
        func send(_ file: OutputFile) throws {
            switch self {
            case .chunks(let body): try file.drain(body)
            case .descriptor(let target): try file.drain(to: target)
            }
        }
    }

    /// Runs an export of `layout` in one workspace transaction.
    ///
    /// - Parameter standardOutput: receives the output when `options.output` is nil, only
    ///   after everything succeeded.
    /// - Throws: `ExportError` (refusals list the records), `SQLiteError`,
    ///   `WorkspaceError`.
    public static func run(
        workspace: Workspace, layout: Layout, options: ExportOptions,
        standardOutput: StandardOutput = .chunks { _ in }
    ) throws -> ExportSummary {
        // A preview that records nothing also serves a read-only workspace; elsewhere the
        // write lock keeps every template's snapshot the same.
        let transaction: (() throws -> ExportSummary) throws -> ExportSummary =
            workspace.isReadOnly && !options.isRecorded ? workspace.read : workspace.write
        // Set once the files are in place: a failure after it (the commit of the record)
        // must not say that nothing changed.
        var placed: ExportSummary?
        do {
            return try transaction {
                try runInTransaction(
                    workspace: workspace, layout: layout, options: options,
                    sink: FileExportSink(
                        database: workspace.database, layout: layout, options: options)
                ) { sink, summary in
                    if options.isRecorded {
                        try record(sink, summary, database: workspace.database)
                        try sink.recordStoragePlan()
                    }
                    // Files go into place before the commit: should the commit fail, the
                    // next --update is relative to the older state, which only repeats
                    // some changes.
                    let written = try sink.commit(summary, standardOutput: standardOutput)
                    placed = written
                    return written
                }
            }
        } catch let error where placed != nil && options.output != nil && !options.dryRun {
            throw ExportError.notRecorded(written: placed?.written ?? [], cause: error)
        }
    }

    /// `run`'s work, inside the caller's transaction: renders `layout` into `sink`, and
    /// once every record streamed without a problem, has `complete` finish the sink's work.
    ///
    /// - Throws: `ExportError` (refusals list the records), `SQLiteError`, what
    ///   `complete` throws.
    static func runInTransaction<Sink: ExportSink>(
        workspace: Workspace, layout: Layout, options: ExportOptions, sink: Sink,
        complete: (Sink, ExportSummary) throws -> ExportSummary
    ) throws -> ExportSummary {
        let database = workspace.database
        let precision = try workspace.geohashPrecision()
        let storage = try storageURL(workspace, bucket: sink.bucket)
        let tokens = storage.tokens
        if let problem = storage.problem { throw ExportError.storageSetting(problem) }
        let usesURLs = layout.paths.contains {
            $0.fields.contains {
                if case .rendition(_, .url) = $0 { return true }
                return false
            }
        }
        // Without a bucket of its own (a publish target's), the tree names the configured
        // one, which every record's URLs need.
        if usesURLs, sink.bucket == nil,
            var missing = try MissingBucket.find(in: workspace, approvedPostsOnly: true)
        {
            if layout.records == .treasures { missing.posts = 0 } else { missing.treasures = 0 }
            if missing.treasures + missing.posts > 0 {
                throw ExportError.missingBucket(missing)
            }
        }
        let problems = ExportProblems(shown: options.problemsShown)
        var run = try ExportRun(
            database: database, layout: layout, options: options, storage: storage,
            tokens: tokens, precision: precision, problems: problems, sink: sink)
        // Whatever fails, no temporary file is left (but those a commit journal lists).
        defer { run.sink.discard() }
        let summary = try run.execute()
        if !problems.isEmpty {
            throw ExportError.refused(problems.groups)
        }
        return try complete(run.sink, summary)
    }

    /// How image URLs are built: from the settings, with `bucket` instead of the
    /// configured one when given (a publish target's).
    static func storageURL(_ workspace: Workspace, bucket: String?) throws -> StorageURL {
        let settings = try workspace.settings()
        return StorageURL(
            bucket: bucket ?? settings.storageBucket, template: settings.storageURLTemplate,
            tokens: settings.tokens.usesTokens)
    }

    /// Logs an export written to a file, makes its state the base of the next `--update`,
    /// and drops the states older than the last few exports of the layout.
    private static func record(
        _ sink: FileExportSink, _ summary: ExportSummary, database: Database
    ) throws {
        let options = sink.options
        try ExportStore(database).record(
            LoggedExport(
                id: 0, layout: sink.layout.name, at: timestamp(options.now),
                out: options.output ?? "-",
                kind: options.update || options.maxBytes != nil ? "update" : "full",
                base: sink.baseExport, generation: sink.newGeneration, records: summary.records,
                paths: summary.paths, changed: summary.changed, removed: summary.removed,
                inputs: summary.inputs, objects: summary.storagePlan?.objects))
    }
}
