import Foundation
import TroveBase
import TroveImaging
import TroveStore

/// Makes the renditions the apps download, for every treasure image and post photo in
/// the workspace, incrementally: an unchanged source with unchanged settings is left
/// alone. Outputs carry a short content hash in their names and no metadata but the ICC
/// profile.
public enum Renditions {

    /// What to make and where.
    public struct Options: Sendable {
        /// Where output files go; rendition paths are relative to it.
        public var outputFolder: String
        public var treasureSpecs: [RenditionSpec] = RenditionSpec.treasureDefaults
        public var postSpecs: [RenditionSpec] = RenditionSpec.postDefaults
        public var includeTreasures = true
        public var includePosts = true
        /// JPEG quality, 1–100.
        public var quality = 80
        /// Whether the run stores `quality` as `renditions.quality`, with its records, so
        /// that the next run makes its renditions at the same quality.
        public var remembersQuality = false
        public var maxPixels = Thumbnailer.defaultMaxPixels
        /// Worker threads.
        public var jobs = ProcessInfo.processInfo.activeProcessorCount

        public init(outputFolder: String) {
            self.outputFolder = outputFolder
        }
    }

    /// A setting of the renditions that cannot be read.
    public struct SettingError: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// The options a plain `trove images` run takes from the workspace: the configured
    /// renditions (or the defaults) and the remembered quality, into `outputFolder`.
    ///
    /// - Throws: `SettingError` naming the setting, `SQLiteError`.
    public static func configuredOptions(_ workspace: Workspace, outputFolder: String) throws
        -> Options
    {
        var options = Options(outputFolder: outputFolder)
        func specs(_ setting: Setting, _ defaults: [RenditionSpec]) throws -> [RenditionSpec] {
            guard let text = try workspace.setting(setting.key) else { return defaults }
            switch RenditionSpec.parseList(text) {
            case .success(let specs): return specs
            case .failure(let error):
                throw SettingError(
                    description: "\(setting.key): \(error.description); fix it with "
                        + "'trove config set'")
            }
        }
        options.treasureSpecs = try specs(
            Setting.treasureRenditions, RenditionSpec.treasureDefaults)
        options.postSpecs = try specs(Setting.postRenditions, RenditionSpec.postDefaults)
        if let stored = try workspace.setting(Setting.renditionQuality.key) {
            guard let quality = Int(stored), (1...100).contains(quality) else {
                throw SettingError(
                    description: "\(Setting.renditionQuality.key): expected a whole number "
                        + "from 1 to 100; fix it with 'trove config set'")
            }
            options.quality = quality
        }
        return options
    }

    /// What a run did.
    public struct Summary: Sendable {
        /// Source images looked at.
        public var images = 0
        /// Renditions written.
        public var made = 0
        /// Renditions already current.
        public var unchanged = 0
        public var failures: [RenditionFailure] = []
        /// Renditions removed from the output folder: their treasures or posts are gone.
        public var removed = 0
        /// Renditions made smaller than asked, their sources being smaller (a source is
        /// never enlarged), in job order.
        public var smallerThanAsked: [Smaller] = []
    }

    /// A rendition smaller than its spec asked, and why: its source is.
    public struct Smaller: Sendable, Equatable {
        public var kind: RenditionOwner
        public var key: String
        public var name: String
        public var width: Int
        public var height: Int
        public var spec: RenditionSpec
    }

    /// One source image and the renditions it needs.
    struct Job: Sendable {
        var kind: RenditionOwner
        var key: String
        var source: String
        var specs: [RenditionSpec]
        /// The boxes to hide (canonical), for a post approved with redaction.
        var redaction: String? = nil
    }

    /// What a worker found for one job.
    struct Outcome: Sendable {
        var made: [Rendition] = []
        var smaller: [Smaller] = []
        var unchanged = 0
        var failure: RenditionFailure?
    }

    /// The number of source images a run with `options` would look at.
    ///
    /// - Throws: `SQLiteError`.
    public static func count(_ workspace: Workspace, options: Options) throws -> Int {
        try plan(workspace, options: options).count
    }

    /// Renders what is missing or stale and records it, all recording in one transaction.
    ///
    /// - Parameter progress: called after each image with the number done so far.
    /// - Throws: `SQLiteError`, `WorkspaceError`.
    public static func run(
        _ workspace: Workspace, options: Options,
        progress: @escaping @Sendable (Int) -> Void = { _ in }
    ) throws -> Summary {
        let jobs = try plan(workspace, options: options)
        let existing = try recorded(workspace)
        let outcomes = perform(jobs, threads: options.jobs, progress: progress) { job in
            process(job, options: options, existing: existing)
        }
        var summary = Summary(images: jobs.count)
        var made: [Rendition] = []
        for outcome in outcomes {
            made += outcome.made
            summary.unchanged += outcome.unchanged
            if let failure = outcome.failure { summary.failures.append(failure) }
            summary.smallerThanAsked += outcome.smaller
        }
        summary.made = made.count
        var replaced = try record(
            made, quality: options.remembersQuality ? options.quality : nil, in: workspace)
        try recordFailures(summary.failures, of: jobs, in: workspace)
        if options.includePosts { replaced += try withdrawUnpublished(workspace) }
        // What is still without renditions, for status to count from.
        _ = try workspace.write { try StaleRecords.images.record(in: workspace) }
        // Old outputs go only once the workspace no longer points at them.
        for path in replaced {
            try? FileManager.default.removeItem(
                atPath: (options.outputFolder as NSString).appendingPathComponent(path))
        }
        var kinds: [RenditionOwner] = []
        if options.includeTreasures { kinds.append(.treasure) }
        if options.includePosts { kinds.append(.post) }
        summary.removed = try removeOrphans(of: kinds, in: workspace, folder: options.outputFolder)
        return summary
    }

    /// Makes the renditions of just the records named, as `run` would make them (a
    /// publish's records that lack theirs: a post approved since `images` ran), and records
    /// them and the images that fail, with the reasons. Nothing else is looked at: no other
    /// record, and no file of the output folder.
    ///
    /// - Throws: `SQLiteError`, `WorkspaceError`.
    public static func make(
        _ workspace: Workspace, for records: [(kind: RenditionOwner, key: String)],
        options: Options
    ) throws -> Summary {
        let store = RenditionStore(workspace)
        var jobs: [Job] = []
        for kind in [RenditionOwner.treasure, .post] {
            let keys = records.filter { $0.kind == kind }.map(\.key)
            for source in try store.sources(of: kind, keys: keys) {
                jobs.append(
                    Job(
                        kind: kind, key: source.key, source: source.source,
                        specs: kind == .treasure ? options.treasureSpecs : options.postSpecs,
                        redaction: source.redaction))
            }
        }
        guard !jobs.isEmpty else { return Summary() }
        var recorded: [String: Rendition] = [:]
        for job in jobs {
            for rendition in try store.renditions(of: job.kind, job.key) {
                recorded[identity(rendition.kind, rendition.key, rendition.name)] = rendition
            }
        }
        let existing = recorded
        let outcomes = perform(jobs, threads: options.jobs, progress: { _ in }) { job in
            process(job, options: options, existing: existing)
        }
        var summary = Summary(images: jobs.count)
        var made: [Rendition] = []
        for outcome in outcomes {
            made += outcome.made
            summary.unchanged += outcome.unchanged
            if let failure = outcome.failure { summary.failures.append(failure) }
            summary.smallerThanAsked += outcome.smaller
        }
        summary.made = made.count
        let replaced = try record(made, quality: nil, in: workspace)
        try recordFailures(summary.failures, of: jobs, in: workspace)
        _ = try workspace.write { try StaleRecords.images.record(in: workspace) }
        for path in replaced {
            try? FileManager.default.removeItem(
                atPath: (options.outputFolder as NSString).appendingPathComponent(path))
        }
        return summary
    }

    /// Removes the renditions in `folder` that no rendition row points at any more: those
    /// of treasures removed from the workspace (`treasures rm`, `import --sync`) or of posts
    /// gone, which a sync of the folder to a bucket would otherwise upload. Only files named
    /// as renditions are (`NAME-HASH.EXT` in a key's folder under `treasures/` or `posts/`),
    /// never through a symbolic link; emptied key folders go too.
    ///
    /// - Returns: how many files were removed.
    static func removeOrphans(of kinds: [RenditionOwner], in workspace: Workspace, folder: String)
        throws -> Int
    {
        let manager = FileManager.default
        let known = try RenditionStore(workspace).paths()
        func isDirectory(_ path: String) -> Bool {
            (try? manager.attributesOfItem(atPath: path)[.type] as? FileAttributeType)
                == .typeDirectory
        }
        var removed = 0
        for kind in kinds {
            let top = (folder as NSString).appendingPathComponent(kind.folder)
            guard isDirectory(top) else { continue }
            for owner in (try? manager.contentsOfDirectory(atPath: top)) ?? [] {
                let ownerPath = (top as NSString).appendingPathComponent(owner)
                guard isDirectory(ownerPath) else { continue }
                let files = (try? manager.contentsOfDirectory(atPath: ownerPath)) ?? []
                var left = files.count
                for file in files where isRenditionName(file) {
                    let relative = "\(kind.folder)/\(owner)/\(file)"
                    let path = (ownerPath as NSString).appendingPathComponent(file)
                    let type = try? manager.attributesOfItem(atPath: path)[.type]
                    guard !known.contains(relative), type as? FileAttributeType == .typeRegular
                    else { continue }
                    if (try? manager.removeItem(atPath: path)) != nil {
                        removed += 1
                        left -= 1
                    }
                }
                if left == 0 { try? manager.removeItem(atPath: ownerPath) }
            }
        }
        return removed
    }

    /// Whether `file` is named as `images` names renditions: `NAME-HASH.EXT`, the hash
    /// eight lowercase hexadecimal digits.
    static func isRenditionName(_ file: String) -> Bool {
        let parts = file.split(separator: ".")
        guard parts.count == 2, ["png", "jpg"].contains(parts[1]),
            let dash = parts[0].lastIndex(of: "-")
        else { return false }
        let hash = parts[0][parts[0].index(after: dash)...]
        return dash != parts[0].startIndex && hash.count == 8
            && hash.allSatisfy { $0.isHexDigit && !$0.isUppercase }
    }

    // MARK: - Planning

    /// The images the workspace references: treasure images on disk and post photos.
    static func plan(_ workspace: Workspace, options: Options) throws -> [Job] {
        var jobs: [Job] = []
        let store = RenditionStore(workspace)
        if options.includeTreasures {
            try store.forEachTreasureImage {
                jobs.append(
                    Job(
                        kind: .treasure, key: $0.key, source: $0.source,
                        specs: options.treasureSpecs))
            }
        }
        if options.includePosts {
            try store.forEachApprovedPostPhoto {
                jobs.append(
                    Job(
                        kind: .post, key: $0.key, source: $0.source, specs: options.postSpecs,
                        redaction: $0.redaction))
            }
        }
        return jobs
    }

    static func recorded(_ workspace: Workspace) throws -> [String: Rendition] {
        var records: [String: Rendition] = [:]
        try RenditionStore(workspace).forEachRendition { record in
            records[identity(record.kind, record.key, record.name)] = record
        }
        return records
    }

    static func identity(_ kind: RenditionOwner, _ key: String, _ name: String) -> String {
        "\(kind.rawValue)\u{0}\(key)\u{0}\(name)"
    }

    /// What a rendition was made with, the boxes it hides included; a change means it
    /// must be made again.
    static func settings(_ spec: RenditionSpec, quality: Int, redaction: String? = nil) -> String {
        "\(spec.width)x\(spec.height):\(spec.mode.rawValue):q\(quality):v1"
            + (redaction.map { ":redact=\($0)" } ?? "")
    }

    // MARK: - Working

    /// Reads, hashes and renders one source image.
    static func process(_ job: Job, options: Options, existing: [String: Rendition]) -> Outcome {
        var outcome = Outcome()
        let bytes: [UInt8]
        do {
            bytes = try ImageFile.read(job.source, maxPixels: options.maxPixels)
        } catch {
            outcome.failure = RenditionFailure(
                kind: job.kind, key: job.key, source: job.source,
                reason: error.kind == .missing
                    ? "no such file" + PathSuggestion.caseOnly(for: job.source)
                    : [.notAnImage, .empty].contains(error.kind)
                        ? "\(error)" : "cannot read the file: \(error)")
            return outcome
        }
        let sourceHash = ContentHash.hex(bytes)
        var stale: [RenditionSpec] = []
        for spec in job.specs {
            if let old = existing[identity(job.kind, job.key, spec.name)], old.source == job.source,
                old.sourceHash == sourceHash,
                old.settings == settings(spec, quality: options.quality, redaction: job.redaction),
                FileManager.default.fileExists(
                    atPath: (options.outputFolder as NSString).appendingPathComponent(old.path))
            {
                outcome.unchanged += 1
            } else {
                stale.append(spec)
            }
        }
        if stale.isEmpty { return outcome }
        do {
            // One decode, at the scale the largest rendition needs, serves them all.
            let images = try Thumbnailer.render(
                source: bytes,
                renditions: stale.map {
                    RenditionRequest(
                        width: $0.width, height: $0.height, mode: ResizeMode($0.mode))
                }, quality: options.quality, maxPixels: options.maxPixels,
                redaction: RedactionBox.boxes(job.redaction))
            for (spec, image) in zip(stale, images) {
                let hash = ContentHash.hex(image.bytes)
                let path =
                    "\(job.kind.folder)/\(safePathComponent(job.key))/"
                    + "\(spec.name)-\(hash.prefix(8)).\(image.format.fileExtension)"
                try AtomicFile.write(
                    Data(image.bytes),
                    to: (options.outputFolder as NSString).appendingPathComponent(path))
                outcome.made.append(
                    Rendition(
                        kind: job.kind, key: job.key, name: spec.name, source: job.source,
                        sourceHash: sourceHash,
                        settings: settings(
                            spec, quality: options.quality, redaction: job.redaction),
                        path: path, width: image.width, height: image.height,
                        bytes: image.bytes.count, hash: hash))
                // Fit reaches the box on one side at least, cover on both, unless the
                // source is smaller: it is never enlarged.
                let short =
                    spec.mode == .cover
                    ? image.width < spec.width || image.height < spec.height
                    : image.width < spec.width && image.height < spec.height
                if short {
                    outcome.smaller.append(
                        Smaller(
                            kind: job.kind, key: job.key, name: spec.name, width: image.width,
                            height: image.height, spec: spec))
                }
            }
        } catch let error as ImageCodecError {
            outcome.made = []
            outcome.smaller = []
            outcome.failure = RenditionFailure(
                kind: job.kind, key: job.key, source: job.source, reason: error.description)
        } catch {
            outcome.made = []
            outcome.smaller = []
            outcome.failure = RenditionFailure(
                kind: job.kind, key: job.key, source: job.source,
                reason: error is FileWriteError
                    ? "\(error)" : "cannot write the rendition: \(error)")
        }
        return outcome
    }

    /// Runs `body` for every job on `threads` worker threads; results keep job order.
    static func perform(
        _ jobs: [Job], threads: Int, progress: @escaping @Sendable (Int) -> Void,
        _ body: @escaping @Sendable (Job) -> Outcome
    ) -> [Outcome] {
        parallelMap(count: jobs.count, threads: threads, progress: progress) { body(jobs[$0]) }
    }

    /// Keys become folder names: anything that could climb out of the folder is
    /// percent-encoded (Firebase keys cannot hold `/` or `.`, but post ids come from users).
    static func safePathComponent(_ key: String) -> String {
        var result = ""
        for byte in key.utf8 {
            let safe =
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte)
                || (0x61...0x7A).contains(byte) || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: "_")
            result += safe ? String(UnicodeScalar(byte)) : String(format: "%%%02X", byte)
        }
        return result.isEmpty ? "_" : result
    }

    // MARK: - Recording

    /// Forgets the renditions of posts that are no longer approved (rejected, reopened,
    /// flagged, or gone), in one transaction; returns their paths so the files go too.
    static func withdrawUnpublished(_ workspace: Workspace) throws -> [String] {
        let store = RenditionStore(workspace)
        return try workspace.write {
            let withdrawn = try store.unpublishedPostRenditions()
            for rendition in withdrawn {
                workspace.markChanged(.post, rendition.key)
            }
            if !withdrawn.isEmpty {
                try store.deleteUnpublishedPostRenditions()
            }
            return withdrawn.map(\.path).filter { !$0.isEmpty }
        }
    }

    /// Remembers which images failed and why (and forgets the ones that now worked), so
    /// that an export can name the reason rather than advise another run.
    static func recordFailures(
        _ failures: [RenditionFailure], of jobs: [Job], in workspace: Workspace
    )
        throws
    {
        let store = RenditionStore(workspace)
        try workspace.write {
            for job in jobs {
                // A failure forgotten or remembered changes what an export says of it.
                if try store.forgetFailure(of: job.kind, job.key) {
                    workspace.markChanged(job.kind.record, job.key)
                }
            }
            for failure in failures {
                workspace.markChanged(failure.kind.record, failure.key)
                try store.remember(failure)
            }
        }
    }

    /// Upserts the new renditions in one transaction, with `quality` as
    /// `renditions.quality` when given; returns the paths they replaced.
    static func record(_ records: [Rendition], quality: Int?, in workspace: Workspace) throws
        -> [String]
    {
        if records.isEmpty && quality == nil { return [] }
        let store = RenditionStore(workspace)
        return try workspace.write {
            if let quality {
                try workspace.putSetting(Setting.renditionQuality.key, String(quality))
            }
            let now = timestamp()
            var replaced: [String] = []
            for record in records {
                if let old = try store.path(of: record.kind, record.key, name: record.name),
                    old != record.path
                {
                    replaced.append(old)
                }
                workspace.markChanged(record.kind.record, record.key)
                try store.save(record, madeAt: now)
            }
            return replaced
        }
    }
}

extension ResizeMode {
    /// The resize a rendition's setting asks for.
    package init(_ mode: RenditionSpec.Mode) {
        switch mode {
        case .fit: self = .fit
        case .cover: self = .cover
        }
    }
}
