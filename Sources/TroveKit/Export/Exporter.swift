import Foundation
import TroveSQLite

/// What `trove export` should write.
public struct ExportOptions: Sendable {
    /// Write a multi-path update of what changed since the layout's last export.
    public var update = false
    /// The output file; nil writes to `standardOutput`.
    public var output: String?
    /// Split the output into multi-path update parts each smaller than this.
    public var maxBytes: Int?
    /// Also write the security-rules fragment for the GeoFire indexes here.
    public var rules: String?
    /// When the export happened, for the workspace's record.
    public var now = Date()
    /// Called before each output file is renamed into place; tests throw from it to
    /// stand for a run killed between two renames.
    var beforeRename: (@Sendable (String) throws -> Void)?
    /// Check and count everything, but write no file and record nothing.
    public var dryRun = false
    /// With `update`: relative to this recorded export (an `export log` id) instead of the
    /// layout's last one.
    public var since: Int64?

    /// Whether this export becomes the base of the next `--update`: only an export written
    /// to a file is; a preview on stdout or a dry run changes nothing.
    public var isRecorded: Bool { output != nil && !dryRun }

    /// How many recorded exports of each layout keep their state for `--since`.
    public static let keptStates = 10
    /// The folder `trove images` wrote the renditions to, for the Storage plan written
    /// beside `output` (`OUT.storage.json`, `OUT.storage.sh`); nil writes no plan.
    public var images: String?

    /// Options for a full export to stdout unless changed.
    public init(
        update: Bool = false, output: String? = nil, maxBytes: Int? = nil, rules: String? = nil
    ) {
        self.update = update
        self.output = output
        self.maxBytes = maxBytes
        self.rules = rules
    }

    /// The part files and manifest names for `--max-bytes`: `OUT.part-001.json` … and
    /// `OUT.manifest.json`, where OUT is the output path without `.json`.
    public static func partPaths(output: String) -> (part: (Int) -> String, manifest: String) {
        let base = output.hasSuffix(".json") ? String(output.dropLast(5)) : output
        return ({ base + ".part-" + String(format: "%03d", $0) + ".json" }, base + ".manifest.json")
    }

    /// Part `index` of a `--max-bytes` set, named with its content's hash
    /// (`OUT.part-001-3fa2c9e1.json`): a new set never overwrites a part the current
    /// manifest lists, and an unchanged part keeps its name and file.
    static func partPath(output: String, index: Int, hash: UInt64) -> String {
        let base = output.hasSuffix(".json") ? String(output.dropLast(5)) : output
        let hex = String(hash >> 32, radix: 16)
        return base + ".part-" + String(format: "%03d", index) + "-"
            + String(repeating: "0", count: 8 - hex.count) + hex + ".json"
    }

    /// Removes the parts of earlier sets (`OUT.part-NNN.json`, `OUT.part-NNN-HASH.json`)
    /// that the manifest now in place does not list. Failures are ignored: a stale part
    /// no manifest names misleads no one who follows the manifest.
    static func removeStaleParts(output: String, keeping current: Set<String>) {
        let base = output.hasSuffix(".json") ? String(output.dropLast(5)) : output
        let folder = (base as NSString).deletingLastPathComponent
        let prefix = (base as NSString).lastPathComponent + ".part-"
        let names =
            (try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder))
            ?? []
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".json") {
            let middle = name.dropFirst(prefix.count).dropLast(5)
            let digits = middle.prefix { $0.isASCII && $0.isNumber }
            let rest = middle.dropFirst(digits.count)
            let isPart =
                digits.count >= 3
                && (rest.isEmpty
                    || (rest.count == 9 && rest.first == "-"
                        && rest.dropFirst().allSatisfy { $0.isHexDigit && !$0.isUppercase }))
            if isPart && !current.contains(name) {
                unlink((folder as NSString).appendingPathComponent(name))
            }
        }
    }
}

/// What an export did.
public struct ExportSummary: Equatable, Sendable {
    /// Records exported.
    public var records = 0
    /// Database paths written (one per record and path template that has a value).
    public var paths = 0
    /// Paths new or changed since the layout's last recorded export.
    public var changed = 0
    /// Paths the last recorded export had that are gone now.
    public var removed = 0
    /// Files written, in order.
    public var written: [String] = []
    /// Files that already held exactly this content and were left alone.
    public var unchanged: [String] = []
    /// What an existing `--rules` file lacks, as `"rules" > "treasureLocations": add
    /// ".indexOn": ["g"]` lines; empty when it has everything.
    public var rulesToMerge: [String] = []
    /// Exported records whose image is a remote URL, exported as given for every rendition.
    public var remoteImages = 0
    /// What the Storage plan written beside the export holds, if one was written.
    public var storagePlan: StoragePlan.Summary?
}

/// Why an export wrote nothing.
public enum ExportError: Error, CustomStringConvertible {
    /// Records or paths that cannot be exported, grouped by problem; exit status 1.
    case refused([ExportProblemGroup])
    /// An output file could not be written; exit status 1.
    case cannotWrite(path: String, reason: String)
    /// The stored export state cannot be decoded.
    case damagedState
    /// `--since` names no export of this layout whose state is kept; exit status 2.
    case unknownBase(String)
    /// Image URLs are needed but no storage location is configured; exit status 1.
    case missingBucket(MissingBucket)
    /// `storage.url-template` or its companions cannot build URLs; exit status 2.
    case storageSetting(String)

    /// The problem in words that read well after `error: `.
    public var description: String {
        switch self {
        case .refused(let groups):
            let total = groups.reduce(0) { $0 + $1.count }
            var lines = [
                "cannot export: \(total) problem\(total == 1 ? "" : "s"); nothing was written"
            ]
            for group in groups {
                lines.append("\(group.title):")
                lines += group.examples.map { "  \($0)" }
                if group.count > group.examples.count {
                    lines.append("  ... and \(group.count - group.examples.count) more")
                }
            }
            return lines.joined(separator: "\n")
        case .cannotWrite(let path, let reason):
            return "cannot write \(path): \(reason)"
        case .damagedState:
            return "the recorded export state is damaged; run a full export without --update"
        case .unknownBase(let reason):
            return reason
        case .missingBucket(let missing):
            return "cannot export: \(missing.message); nothing was written\n"
                + "hint: \(MissingBucket.hint) (or NAME.appspot.com, NAME.firebasestorage.app)"
        case .storageSetting(let problem):
            return "cannot build image URLs: \(problem)"
        }
    }
}

/// Problems of one kind found by an export, with the first few records named.
public struct ExportProblemGroup: Sendable, Equatable {
    /// What is wrong and what to run about it.
    public let title: String
    /// How many records or paths have this problem.
    public var count = 0
    /// The first few, each naming its record.
    public var examples: [String] = []

    /// How many records each group names; the rest are counted.
    static let shown = 20
}

/// Collects what stops an export, by kind, in the order met.
final class ExportProblems {
    private(set) var groups: [ExportProblemGroup] = []

    func add(_ title: String, _ example: String) {
        if let index = groups.firstIndex(where: { $0.title == title }) {
            groups[index].count += 1
            if groups[index].examples.count < ExportProblemGroup.shown {
                groups[index].examples.append(example)
            }
        } else {
            groups.append(ExportProblemGroup(title: title, count: 1, examples: [example]))
        }
    }

    var isEmpty: Bool { groups.isEmpty }

    /// Adds every problem of `other` after these.
    func absorb(_ other: ExportProblems) {
        for group in other.groups {
            if let index = groups.firstIndex(where: { $0.title == group.title }) {
                groups[index].count += group.count
                let room = ExportProblemGroup.shown - groups[index].examples.count
                groups[index].examples += group.examples.prefix(max(0, room))
            } else {
                groups.append(group)
            }
        }
    }

    func replace(with other: ExportProblems) {
        groups = other.groups
    }
}

// MARK: - Exporter

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
    /// Runs an export of `layout` in one workspace transaction.
    ///
    /// - Parameter standardOutput: receives the output when `options.output` is nil, in
    ///   chunks of whole lines, only after everything succeeded.
    /// - Throws: `ExportError` (refusals list the records), `SQLiteError`,
    ///   `WorkspaceError`.
    public static func run(
        workspace: Workspace, layout: Layout, options: ExportOptions,
        standardOutput: (ArraySlice<UInt8>) -> Void = { _ in }
    ) throws -> ExportSummary {
        let database = workspace.database
        // A preview that records nothing also serves a read-only workspace; elsewhere the
        // write lock keeps every template's snapshot the same.
        let transaction: (() throws -> ExportSummary) throws -> ExportSummary =
            workspace.isReadOnly && !options.isRecorded ? workspace.read : workspace.write
        return try transaction {
            let precision = try workspace.geohashPrecision()
            let bucket = try workspace.setting(Setting.storageBucket.key)
            let tokens = try workspace.setting(Setting.storageTokens.key) != "off"
            let storage = StorageURL(
                bucket: bucket, template: try workspace.setting(Setting.storageURLTemplate.key),
                tokens: tokens)
            if let problem = storage.problem { throw ExportError.storageSetting(problem) }
            let usesURLs = layout.paths.contains {
                $0.fields.contains {
                    if case .rendition(_, .url) = $0 { return true }
                    return false
                }
            }
            if usesURLs,
                var missing = try MissingBucket.find(in: workspace, approvedPostsOnly: true)
            {
                if layout.records == .treasures { missing.posts = 0 } else { missing.treasures = 0 }
                if missing.treasures + missing.posts > 0 {
                    throw ExportError.missingBucket(missing)
                }
            }
            let problems = ExportProblems()
            var run = try ExportRun(
                database: database, layout: layout, options: options, storage: storage,
                tokens: tokens, precision: precision, problems: problems)
            // Whatever fails, no temporary file is left (but those a commit journal lists).
            defer { run.discard() }
            let summary = try run.execute()
            if !problems.isEmpty {
                throw ExportError.refused(problems.groups)
            }
            if options.isRecorded {
                try record(run, summary, database: database)
                try run.recordStoragePlan()
            }
            // Files go into place before the commit: should the commit fail, the next
            // --update is relative to the older state, which only repeats some changes.
            var written = try run.commit(summary, standardOutput: standardOutput)
            written.remoteImages = try StoragePlan.remoteImages(database: database, layout: layout)
            return written
        }
    }

    /// Logs an export written to a file, makes its state the base of the next `--update`,
    /// and drops the states older than the last few exports of the layout.
    private static func record(_ run: ExportRun, _ summary: ExportSummary, database: Database)
        throws
    {
        let layout = run.layout.name
        let options = run.options
        let at = timestamp(options.now)
        try database.execute(
            """
            INSERT INTO export_log
                (layout, at, out, kind, base, generation, records, paths, changed, removed)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(layout), .text(at), .text(options.output ?? "-"),
                .text(options.update || options.maxBytes != nil ? "update" : "full"),
                run.baseExport.map { .integer($0) }, .integer(run.newGeneration),
                .integer(Int64(summary.records)), .integer(Int64(summary.paths)),
                .integer(Int64(summary.changed)), .integer(Int64(summary.removed)),
            ])
        try database.execute(
            """
            DELETE FROM export_state WHERE layout = ?1 AND generation NOT IN (
                SELECT generation FROM export_log WHERE layout = ?1 ORDER BY id DESC LIMIT ?2)
            """,
            [.text(layout), .integer(Int64(ExportOptions.keptStates))])
        try database.execute(
            """
            INSERT INTO exports (layout, at, out) VALUES (?, ?, ?)
            ON CONFLICT (layout) DO UPDATE SET at = excluded.at, out = excluded.out
            """,
            [.text(layout), .text(at), .text(options.output ?? "-")])
    }

    /// A complete `database.rules.json` for `layout`: every GeoFire node indexed on `g`,
    /// the layout's top-level nodes readable by the apps, nothing else readable, and no
    /// client writes (publishing goes through the Firebase CLI, which the rules do not
    /// bind).
    public static func rules(for layout: Layout) -> String {
        // Nested dictionary of rule paths; placeholders become `$name` wildcards.
        final class Node {
            var children: [String: Node] = [:]
            var indexed = false
            var rules: [(String, String)] = []
        }
        let root = Node()
        root.rules = [(".read", "false"), (".write", "false")]
        for template in layout.paths {
            guard case .literal(let name) = template.segments.first else { continue }
            if root.children[name] == nil { root.children[name] = Node() }
            root.children[name]!.rules = [(".read", "true")]
        }
        for template in layout.paths where template.isGeoFireNode {
            var node = root
            for segment in template.segments.dropLast() {
                let name: String
                switch segment {
                case .literal(let text): name = text
                case .whole(let field): name = "$" + wildcardName(field)
                case .interpolated: name = "$segment"
                }
                if node.children[name] == nil { node.children[name] = Node() }
                node = node.children[name]!
            }
            node.indexed = true
        }
        func render(_ node: Node, level: Int, into output: inout [UInt8]) {
            var members: [([UInt8], (inout [UInt8]) -> Void)] = []
            if node.indexed {
                members.append((Array(".indexOn".utf8), { $0.append(contentsOf: "[\"g\"]".utf8) }))
            }
            for (key, value) in node.rules {
                members.append((Array(key.utf8), { $0.append(contentsOf: value.utf8) }))
            }
            for (key, child) in node.children {
                members.append((Array(key.utf8), { render(child, level: level + 1, into: &$0) }))
            }
            members.sort { $0.0.lexicographicallyPrecedes($1.0) }
            output.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                output.append(0x0A)
                Renderer.indent(level + 1, into: &output)
                JSONText.appendString(String(decoding: member.0, as: UTF8.self), to: &output)
                output.append(contentsOf: ": ".utf8)
                member.1(&output)
            }
            if !members.isEmpty {
                output.append(0x0A)
                Renderer.indent(level, into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
        var output = Array("{\n  \"rules\": ".utf8)
        render(root, level: 1, into: &output)
        output.append(contentsOf: "\n}\n".utf8)
        return String(decoding: output, as: UTF8.self)
    }

    private static func wildcardName(_ field: Field) -> String {
        switch field {
        case .key: return "key"
        case .name: return "name"
        case .user: return "user"
        case .description: return "description"
        case .date: return "date"
        case .lat: return "lat"
        case .lon: return "lon"
        case .geohash: return "geohash"
        case .extra(let name, _): return "extra_" + name.filter { $0.isLetter || $0.isNumber }
        case .rendition(let name, let part): return "\(name)_\(part.rawValue)"
        }
    }
}

// MARK: - One run

/// The state of one export while it streams.
struct ExportRun {
    let database: Database
    let layout: Layout
    let options: ExportOptions
    let problems: ExportProblems
    let newGeneration: Int64
    /// The recorded export (`export log` id) this one is compared with, if logged.
    let baseExport: Int64?
    private var streams: [ParallelStream] = []
    private var oldState: ExportStateReader
    /// Nil when this export is not recorded.
    private var newState: ExportStateWriter?
    private var tree: TreeWriter?
    private var updates: UpdateWriter?
    private var treeFile: OutputFile?
    /// Every file that goes into place, staged before the records stream so an unwritable
    /// destination fails before the work and before any file changes.
    private let outputs = OutputSet()
    private var rulesFile: OutputFile?
    /// The Storage plan, written beside a recorded export as the tree streams.
    private var storagePlan: StoragePlanWriter?
    private let noun: String

    init(
        database: Database, layout: Layout, options: ExportOptions, storage: StorageURL,
        tokens: Bool, precision: Int, problems: ExportProblems
    ) throws {
        self.database = database
        self.layout = layout
        self.options = options
        self.problems = problems
        noun = layout.records == .treasures ? "treasure" : "post"
        let latest = try database.scalar(
            "SELECT max(generation) FROM export_state WHERE layout = ?", [.text(layout.name)])?
            .int64
        var previous = latest
        if let since = options.since {
            previous = try Self.generation(of: since, layout: layout.name, database: database)
            baseExport = since
        } else {
            baseExport = try latest.flatMap {
                try database.scalar(
                    "SELECT max(id) FROM export_log WHERE layout = ? AND generation = ?",
                    [.text(layout.name), .integer($0)])?.int64
            }
        }
        newGeneration = (latest ?? 0) + 1
        oldState = try ExportStateReader(
            database: database, layout: layout.name, generation: previous)
        if options.isRecorded {
            newState = try ExportStateWriter(
                database: database, layout: layout.name, generation: newGeneration)
        }
        // Records are checked once: positions by a stream that reads them anyway, renditions
        // by the stream that joins them anyway, so no stream reads columns it does not
        // write and the two checks run on different threads.
        func count(_ index: Int, _ include: (Field) -> Bool) -> Int {
            layout.paths[index].fields.filter(include).count
        }
        let renditionChecks =
            layout.paths.indices.max {
                count($0, { $0.renditionName != nil }) < count($1, { $0.renditionName != nil })
            } ?? 0
        let positionChecks =
            layout.paths.indices.first { count($0, { $0 == .geohash }) > 0 }
            ?? layout.paths.indices.first { count($0, { $0 == .lat || $0 == .lon }) > 0 }
            ?? renditionChecks
        for (index, template) in layout.paths.enumerated() {
            let checker = RecordChecker(
                precision: precision, renditionNames: layout.renditionNames, noun: noun,
                positions: index == positionChecks, renditions: index == renditionChecks)
            var query = RecordQuery(
                records: layout.records, renditionNames: layout.renditionNames,
                needed: template.fields, checksPositions: checker.positions,
                checksRenditions: checker.renditions)
            query.readsTokens = storage.usesTokens
            // Each template reads on its own connection and thread. The connection's
            // snapshot is fixed now, while this transaction holds the write lock, so every
            // template sees exactly the rows this connection sees.
            let reader = try Database(
                path: database.path, mode: database.mode == .immutable ? .immutable : .readOnly)
            try reader.execute("BEGIN")
            _ = try reader.scalar("SELECT count(*) FROM sqlite_master")
            let stream = try TemplateStream(
                template: template, database: reader, query: query,
                renderer: Renderer(storage: storage, renditionNames: layout.renditionNames),
                checker: checker, problems: ExportProblems(),
                noun: noun)
            streams.append(ParallelStream(stream: stream, database: reader))
        }
        if let rules = options.rules { rulesFile = try outputs.stage(rules) }
        // Output for standard output spills to a nameless file until all is well.
        let spillFolder = FileManager.default.temporaryDirectory.path
        let output = options.output
        let makeFile: (String) throws -> OutputFile = { path in
            output == nil ? try OutputFile(spillIn: spillFolder) : try OutputFile(path: path)
        }
        if options.update || options.maxBytes != nil {
            let partPath =
                options.maxBytes == nil || output == nil
                ? { _ in output ?? "" }
                : ExportOptions.partPaths(output: output ?? "").part
            updates = UpdateWriter(maxBytes: options.maxBytes) { try makeFile(partPath($0)) }
            // Its files open as they fill: that the folder takes one is checked now, so an
            // unwritable folder is reported by the export's name before any work.
            if let output, !options.dryRun { try OutputFile(path: output).discard() }
        } else {
            let file = try makeFile(output ?? "")
            treeFile = file
            tree = TreeWriter(file: file) { path, message in
                problems.add("objects Firebase would store as arrays", "\(path): \(message)")
            }
        }
        // Staged after the export itself, so an unwritable folder is reported by its name.
        if options.isRecorded, let output = options.output, let images = options.images {
            storagePlan = try StoragePlanWriter(
                database: database, layout: layout, output: output, bucket: storage.bucket,
                tokens: tokens, images: images, outputs: outputs)
        }
    }

    /// Streams every record through the layout.
    mutating func execute() throws -> ExportSummary {
        var summary = ExportSummary()
        let streams = self.streams
        let storagePlan = self.storagePlan
        defer {
            for stream in streams { stream.cancel() }
            storagePlan?.cancel()
        }
        for stream in streams { stream.start() }
        storagePlan?.start()
        let cursors = streams.map(StreamCursor.init)
        for cursor in cursors { try cursor.advance() }
        var previousPath: [UInt8] = []
        var previousRecord: [UInt8] = []
        var hasPrevious = false
        while true {
            // The stream whose current path comes first; templates are few.
            var best: StreamCursor?
            for cursor in cursors where !cursor.isDone {
                if let chosen = best, comparePaths(cursor.path, chosen.path) >= 0 { continue }
                best = cursor
            }
            guard let cursor = best else { break }
            let (order, overlaps) =
                hasPrevious ? pathOrder(previousPath, cursor.path) : (-1, false)
            if order > 0 {
                // Each stream is ordered by construction; this guards the JSON's validity
                // should that ever fail, rather than writing a broken tree.
                problems.add(
                    "paths out of database order (a defect in trove; please report it)",
                    String(decoding: cursor.path, as: UTF8.self))
            } else if overlaps {
                problems.add(
                    "paths written twice (a layout's paths overlap for these records)",
                    "\(noun)s \(String(decoding: previousRecord, as: UTF8.self)) and "
                        + "\(cursor.recordKey) both write "
                        + String(decoding: cursor.path, as: UTF8.self))
            } else {
                try cursor.withEntry { path, value, hash in
                    try write(path: path, value: value, hash: hash, &summary) {
                        cursor.recordKey
                    }
                }
            }
            // The cursor's path becomes the previous one; its old buffer is reused.
            cursor.exchangePath(with: &previousPath)
            cursor.copyRecordKey(into: &previousRecord)
            hasPrevious = true
            try cursor.advance()
        }
        // Whatever the last export had beyond the last current path is gone now.
        while !oldState.isAtEnd {
            try removed(oldState.path, &summary)
            try oldState.advance()
        }
        try newState?.finish()
        try tree?.finish()
        try updates?.finish()
        summary.storagePlan = try storagePlan?.finish()
        summary.records = streams.map(\.recordCount).max() ?? 0
        // The streams' problems first, in template order, so messages read the same on
        // every run whatever the threads' timing.
        let merged = ExportProblems()
        for stream in streams { merged.absorb(stream.problems) }
        merged.absorb(problems)
        problems.replace(with: merged)
        return summary
    }

    private mutating func write(
        path: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, hash: UInt64,
        _ summary: inout ExportSummary, record: () -> String
    ) throws {
        summary.paths += 1
        try newState?.append(path: path, hash: hash)
        var changed = true
        while !oldState.isAtEnd {
            let order = oldState.path.withUnsafeBufferPointer { comparePaths($0, path) }
            if order > 0 { break }
            if order == 0 {
                changed = oldState.hash != hash
                try oldState.advance()
                break
            }
            try removed(oldState.path, &summary)
            try oldState.advance()
        }
        if changed { summary.changed += 1 }
        try tree?.add(path: path, value: value)
        if let updates, changed || !options.update {
            if !(try updates.add(path: path, value: value)) {
                problems.add(
                    "records larger than --max-bytes \(options.maxBytes ?? 0)",
                    "\(noun) \(record()): \(String(decoding: path, as: UTF8.self)) does not fit")
            }
        }
    }

    private func removed(_ path: [UInt8], _ summary: inout ExportSummary) throws {
        summary.removed += 1
        if options.update, let updates {
            _ = try path.withUnsafeBufferPointer { try updates.add(path: $0, value: nil) }
        }
    }

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
    func commit(_ summary: ExportSummary, standardOutput: (ArraySlice<UInt8>) -> Void) throws
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
            for file in files { try file.drain(standardOutput) }
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
            var manifest = "{\n  \"layout\": \(jsonString(layout.name)),\n  \"parts\": ["
            for (index, name) in parts.enumerated() {
                manifest += (index > 0 ? "," : "") + "\n    " + jsonString(name)
            }
            manifest += files.isEmpty ? "]\n}\n" : "\n  ]\n}\n"
            let file = try outputs.stage(ExportOptions.partPaths(output: output).manifest)
            try file.write(manifest)
            manifestFile = file
            manifestParts = parts
        }
        var rulesOutput: [OutputFile] = []
        if let rulesFile, let rules = options.rules {
            let complete = Exporter.rules(for: layout)
            let existing = FileManager.default.contents(atPath: rules)
            if let existing, existing != Data(complete.utf8) {
                // Someone's own rules: left alone, with what to merge where.
                summary.rulesToMerge = RulesMerge.missing(in: existing, for: layout)
                outputs.withdraw(rulesFile)
                summary.unchanged.append(rules)
            } else {
                try rulesFile.write(complete)
                rulesOutput = [rulesFile]
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

    /// The state generation of recorded export `id`, which must be of `layout` and kept.
    ///
    /// - Throws: `ExportError.unknownBase`, `SQLiteError`.
    private static func generation(of id: Int64, layout: String, database: Database) throws
        -> Int64
    {
        let rows = try database.query(
            "SELECT layout, generation FROM export_log WHERE id = ?", [.integer(id)]
        ) { ($0.text(0) ?? "", $0.int64(1) ?? 0) }
        guard let (logged, generation) = rows.first else {
            throw ExportError.unknownBase(
                "no recorded export \(id); 'trove export log' lists them")
        }
        guard logged == layout else {
            throw ExportError.unknownBase(
                "export \(id) was of layout \(logged), not \(layout)")
        }
        let kept = try database.scalar(
            "SELECT 1 FROM export_state WHERE layout = ? AND generation = ? LIMIT 1",
            [.text(layout), .integer(generation)])
        if kept == nil {
            let newest =
                try database.scalar(
                    "SELECT count(*) FROM export_log WHERE layout = ? AND id > ?",
                    [.text(layout), .integer(id)])?.int64 ?? 0
            // An export that wrote nothing has no state to keep, and needs none.
            let paths =
                try database.scalar(
                    "SELECT paths FROM export_log WHERE id = ?", [.integer(id)])?.int64 ?? 0
            if paths > 0 {
                throw ExportError.unknownBase(
                    "the state of export \(id) is no longer kept (\(newest) later exports; "
                        + "only the last \(ExportOptions.keptStates) per layout are); "
                        + "run a full export instead")
            }
        }
        return generation
    }
}

// MARK: - Streams

/// Checks that a record can be exported: a current geohash and the renditions it needs.
struct RecordChecker {
    let precision: Int
    let renditionNames: [String]
    let noun: String
    /// Whether this checker looks at positions and geohashes.
    let positions: Bool
    /// Whether this checker looks at renditions.
    let renditions: Bool

    func check(_ record: ExportRecord, problems: ExportProblems) {
        if positions {
            checkPosition(record, problems: problems)
        }
        guard renditions, let image = record.image, !image.isEmpty, !record.imageIsRemote else {
            return
        }
        for (index, name) in renditionNames.enumerated() where record.renditions[index] == nil {
            problems.add(
                "\(noun)s whose image has no rendition yet (run 'trove images')",
                "\(noun) \(record.key): no '\(name)' rendition of \(image)")
        }
    }

    private func checkPosition(_ record: ExportRecord, problems: ExportProblems) {
        if let latitude = record.latitude, let longitude = record.longitude {
            let expected = Geohash.encode(
                latitude: latitude, longitude: longitude, precision: precision)
            if record.geohash == nil {
                problems.add(
                    "\(noun)s without a geohash (run 'trove geohash')", "\(noun) \(record.key)")
            } else if record.geohash != expected {
                problems.add(
                    "\(noun)s with a stale geohash (run 'trove geohash')",
                    "\(noun) \(record.key): \(record.geohash ?? "") should be \(expected)")
            }
        } else {
            problems.add("\(noun)s without a position", "\(noun) \(record.key)")
        }
    }
}

/// The entries of one path template, in database order.
struct TemplateStream {
    let template: PathTemplate
    private var cursor: RecordCursor
    private var renderer: Renderer
    private let checker: RecordChecker?
    let problems: ExportProblems
    private let noun: String
    private var record = ExportRecord()
    private let compiledPath: CompiledPath
    private let compiledValue: CompiledValue
    /// The columns SQL orders by, or nil when the paths are sorted in memory.
    private let orderColumns: [String]?
    /// Entries sorted in memory, for templates SQL cannot order.
    private var sorted: [(path: [UInt8], value: [UInt8], record: String)]?
    private var sortedIndex = 0

    private(set) var isDone = false
    private(set) var path: [UInt8] = []
    private(set) var value: [UInt8] = []
    private(set) var recordKey = ""
    private(set) var recordCount = 0

    init(
        template: PathTemplate, database: Database, query: RecordQuery, renderer: Renderer,
        checker: RecordChecker?, problems: ExportProblems, noun: String
    ) throws {
        self.template = template
        self.renderer = renderer
        self.checker = checker
        self.problems = problems
        self.noun = noun
        orderColumns = template.orderColumns
        compiledPath = CompiledPath(template.segments)
        compiledValue = CompiledValue(template.value, renditionNames: renderer.renditionNames)
        cursor = try query.open(on: database, orderColumns: orderColumns ?? [])
    }

    /// Moves to the next entry, or sets `isDone`.
    mutating func advance() throws {
        if orderColumns == nil && sorted == nil {
            var entries: [(path: [UInt8], value: [UInt8], record: String)] = []
            while try step() { entries.append((path, value, recordKey)) }
            entries.sort { comparePaths($0.path, $1.path) < 0 }
            sorted = entries
        }
        if let sorted {
            guard sortedIndex < sorted.count else {
                isDone = true
                return
            }
            (path, value, recordKey) = sorted[sortedIndex]
            sortedIndex += 1
            return
        }
        if !(try step()) { isDone = true }
    }

    /// Reads records until one writes this template's path; false at the end.
    private mutating func step() throws -> Bool {
        while try cursor.next(into: &record) {
            recordCount += 1
            checker?.check(record, problems: problems)
            path.removeAll(keepingCapacity: true)
            switch renderer.renderPath(compiledPath, record: &record, into: &path) {
            case .absent: continue
            case .illegal(let reason):
                problems.add(
                    "keys the Realtime Database does not allow",
                    "\(noun) \(record.key): \(reason) (in \(template.text))")
                continue
            case .written: break
            }
            value.removeAll(keepingCapacity: true)
            renderer.problem = nil
            let written = renderer.render(compiledValue, record: &record, into: &value)
            if let problem = renderer.problem {
                problems.add("values that cannot be exported", "\(noun) \(record.key): \(problem)")
                continue
            }
            if !written { continue }
            recordKey = record.key
            return true
        }
        return false
    }
}

// MARK: - Threads

/// Entries handed from a producer thread to the merging thread, in compact batches.
struct EntryBatch {
    var bytes: [UInt8] = []
    /// Per entry, where its path, value and record key end in `bytes`.
    var ends: [Int] = []
    /// Per entry, `valueHash` of its value, computed on the producer's thread.
    var hashes: [UInt64] = []
    var count: Int { hashes.count }

    init() {
        bytes.reserveCapacity(Self.capacity * 128)
        ends.reserveCapacity(Self.capacity * 3)
        hashes.reserveCapacity(Self.capacity)
    }

    /// Entries per batch.
    static let capacity = 1024
}

/// A queue of batches between one producer and one consumer.
///
/// A few batches wait in memory; beyond that the producer spills them to an anonymous
/// temporary file rather than waiting. Templates write separate parts of the tree, so the
/// merging thread often takes all of one stream before any of the next: the later
/// streams work ahead through the spill instead of idling, and memory stays bounded.
final class EntryChannel: @unchecked Sendable {
    private let condition = NSCondition()
    private var batches: [EntryBatch] = []
    private var finished = false
    private var cancelled = false
    private var failure: Error?
    private(set) var recordCount = 0
    private static let capacity = 8
    private var spill: SpillFile?
    /// Batches in the spill file not yet taken; while there are any, new batches go there
    /// too, to keep their order.
    private var spilled = 0

    /// Queues `batch`; false once the consumer has cancelled.
    func push(_ batch: EntryBatch) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if cancelled { return false }
            if spilled == 0 && batches.count < Self.capacity {
                batches.append(batch)
                break
            }
            if spill == nil { spill = SpillFile() }
            if let spill, spill.write(batch) {
                spilled += 1
                break
            }
            // No room on disk either: wait for the consumer as a bounded queue would.
            condition.wait()
        }
        condition.broadcast()
        return true
    }

    func finish(recordCount: Int, failure: Error?) {
        condition.lock()
        self.recordCount = recordCount
        self.failure = failure
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    /// The next batch; nil at the end.
    ///
    /// - Throws: whatever the producer threw.
    func pop() throws -> EntryBatch? {
        condition.lock()
        defer { condition.unlock() }
        while batches.isEmpty && spilled == 0 && !finished { condition.wait() }
        if !batches.isEmpty {
            condition.broadcast()
            return batches.removeFirst()
        }
        if spilled > 0 {
            guard let batch = spill?.read() else {
                throw ExportError.cannotWrite(
                    path: "a temporary file", reason: "entries set aside there cannot be read back")
            }
            spilled -= 1
            condition.broadcast()
            return batch
        }
        if let failure { throw failure }
        return nil
    }

    /// Waits until the producer has stopped.
    func waitUntilFinished() {
        condition.lock()
        while !finished { condition.wait() }
        condition.unlock()
    }

    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }
}

/// Batches written to and read back from an anonymous temporary file, first in first out.
final class SpillFile {
    private let file: UnsafeMutablePointer<FILE>?
    private var writeOffset: off_t = 0
    private var readOffset: off_t = 0

    /// Opens a file that disappears when closed (or when the process ends).
    init() {
        file = tmpfile()
    }

    deinit {
        if let file { fclose(file) }
    }

    /// Appends `batch`; false when it could not be written.
    func write(_ batch: EntryBatch) -> Bool {
        guard let file else { return false }
        let descriptor = fileno(file)
        let header = [Int64(batch.bytes.count), Int64(batch.ends.count), Int64(batch.hashes.count)]
        var offset = writeOffset
        func put(_ raw: UnsafeRawBufferPointer) -> Bool {
            defer { offset += off_t(raw.count) }
            return Self.transferAll(raw.count) {
                pwrite(descriptor, raw.baseAddress! + $0, raw.count - $0, offset + off_t($0))
            }
        }
        guard header.withUnsafeBytes(put), batch.bytes.withUnsafeBytes(put),
            batch.ends.withUnsafeBytes(put), batch.hashes.withUnsafeBytes(put)
        else { return false }
        writeOffset = offset
        return true
    }

    /// The oldest batch not yet read; nil when the file cannot be read back.
    func read() -> EntryBatch? {
        guard let file else { return nil }
        let descriptor = fileno(file)
        var offset = readOffset
        func get(_ raw: UnsafeMutableRawBufferPointer) -> Bool {
            defer { offset += off_t(raw.count) }
            return Self.transferAll(raw.count) {
                pread(descriptor, raw.baseAddress! + $0, raw.count - $0, offset + off_t($0))
            }
        }
        var header = [Int64](repeating: 0, count: 3)
        guard header.withUnsafeMutableBytes(get) else { return nil }
        var batch = EntryBatch()
        batch.bytes = [UInt8](repeating: 0, count: Int(header[0]))
        batch.ends = [Int](repeating: 0, count: Int(header[1]))
        batch.hashes = [UInt64](repeating: 0, count: Int(header[2]))
        guard batch.bytes.withUnsafeMutableBytes(get), batch.ends.withUnsafeMutableBytes(get),
            batch.hashes.withUnsafeMutableBytes(get)
        else { return nil }
        readOffset = offset
        return batch
    }

    /// Calls `move` (a `pread` or `pwrite` given the bytes done so far) until `count` bytes
    /// are done; false on an error or the end of the file.
    private static func transferAll(_ count: Int, _ move: (Int) -> Int) -> Bool {
        var done = 0
        while done < count {
            let moved = move(done)
            if moved < 0 && errno == EINTR { continue }
            if moved <= 0 { return false }
            done += moved
        }
        return true
    }
}

/// A template stream running on its own thread and connection, sending its entries
/// through a channel.
final class ParallelStream: @unchecked Sendable {
    private let stream: TemplateStream
    private let database: Database
    private let problemsOfStream: ExportProblems
    let channel = EntryChannel()
    private var started = false

    var recordCount: Int { channel.recordCount }
    /// Valid once the stream is done.
    var problems: ExportProblems { problemsOfStream }

    init(stream: TemplateStream, database: Database) {
        self.stream = stream
        self.database = database
        problemsOfStream = stream.problems
    }

    func start() {
        started = true
        let thread = Thread { [self] in produce() }
        thread.stackSize = 1 << 22
        thread.start()
    }

    private func produce() {
        // A local copy: a struct on this thread's stack needs no runtime access checks.
        var stream = self.stream
        var batch = EntryBatch()
        do {
            while true {
                try stream.advance()
                if stream.isDone { break }
                batch.bytes.append(contentsOf: stream.path)
                batch.ends.append(batch.bytes.count)
                batch.bytes.append(contentsOf: stream.value)
                batch.ends.append(batch.bytes.count)
                batch.bytes.append(contentsOf: stream.recordKey.utf8)
                batch.ends.append(batch.bytes.count)
                batch.hashes.append(stream.value.withUnsafeBufferPointer(valueHash))
                if batch.count == EntryBatch.capacity {
                    guard channel.push(batch) else { break }
                    batch = EntryBatch()
                }
            }
            if batch.count > 0 { _ = channel.push(batch) }
            channel.finish(recordCount: stream.recordCount, failure: nil)
        } catch {
            channel.finish(recordCount: stream.recordCount, failure: error)
        }
    }

    /// Stops the producer and waits for it, so its connection is free to close.
    func cancel() {
        guard started else { return }
        channel.cancel()
        channel.waitUntilFinished()
    }
}

/// The merging thread's view of one parallel stream: its current entry, read in place
/// from the batch that holds it.
final class StreamCursor {
    private let channel: EntryChannel
    private var batch = EntryBatch()
    private var index = 0
    private var valueRange = 0..<0
    private var keyRange = 0..<0

    private(set) var isDone = false
    /// The current entry's path (copied: paths are compared often).
    private(set) var path: [UInt8] = []
    private(set) var hash: UInt64 = 0

    init(_ stream: ParallelStream) {
        channel = stream.channel
    }

    /// Swaps the current entry's path buffer with `other`; the path is refilled by
    /// `advance`.
    func exchangePath(with other: inout [UInt8]) {
        swap(&path, &other)
    }

    /// The current entry's record key.
    var recordKey: String { String(decoding: batch.bytes[keyRange], as: UTF8.self) }

    /// Copies the current entry's record key into `bytes`.
    func copyRecordKey(into bytes: inout [UInt8]) {
        bytes.removeAll(keepingCapacity: true)
        batch.bytes.withUnsafeBufferPointer {
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: $0[keyRange]))
        }
    }

    /// Calls `body` with the current entry's path, value and value hash.
    func withEntry<Result>(
        _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>, UInt64) throws -> Result
    ) rethrows -> Result {
        try path.withUnsafeBufferPointer { path in
            try batch.bytes.withUnsafeBufferPointer {
                try body(path, UnsafeBufferPointer(rebasing: $0[valueRange]), hash)
            }
        }
    }

    /// Moves to the next entry, or sets `isDone`.
    ///
    /// - Throws: whatever the producer threw (`SQLiteError`).
    func advance() throws {
        while index >= batch.count {
            guard let next = try channel.pop() else {
                isDone = true
                return
            }
            batch = next
            index = 0
        }
        let start = index == 0 ? 0 : batch.ends[index * 3 - 1]
        let pathEnd = batch.ends[index * 3]
        let valueEnd = batch.ends[index * 3 + 1]
        valueRange = pathEnd..<valueEnd
        keyRange = valueEnd..<batch.ends[index * 3 + 2]
        hash = batch.hashes[index]
        path.removeAll(keepingCapacity: true)
        batch.bytes.withUnsafeBufferPointer {
            path.append(contentsOf: UnsafeBufferPointer(rebasing: $0[start..<pathEnd]))
        }
        index += 1
    }
}
