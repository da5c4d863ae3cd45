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
        /// Whether the run was asked to stop before every image was done: what it made is
        /// recorded, and the next run makes the rest.
        public var interrupted = false
        /// Sources decoded: one a distinct content (of those with renditions to make),
        /// however many records share it.
        public var decoded = 0
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
        /// Whether the source was decoded for this job (not found made by another).
        var decoded = false
    }

    /// The number of source images a run with `options` would look at.
    ///
    /// - Throws: `SQLiteError`.
    public static func count(_ workspace: Workspace, options: Options) throws -> Int {
        try plan(workspace, options: options).count
    }

    /// Renders what is missing or stale and records it in batches (`batchSize` images or
    /// a second's work, whichever comes first), each batch in one transaction: a run that
    /// is killed keeps what its finished batches made, and the next run makes only the
    /// rest.
    ///
    /// - Parameter isCancelled: asked before each image; once it returns true, the images
    ///   under way are finished and recorded and the run ends with `interrupted` set,
    ///   leaving the clean-up of the output folder to the next run.
    /// - Parameter progress: called after each image with the number done so far.
    /// - Throws: `SQLiteError`, `WorkspaceError`.
    public static func run(
        _ workspace: Workspace, options: Options, batchSize: Int = 500,
        isCancelled: @escaping @Sendable () -> Bool = { false },
        progress: @escaping @Sendable (Int) -> Void = { _ in }
    ) throws -> Summary {
        let jobs = try plan(workspace, options: options)
        let existing = try recorded(workspace)
        let cache = RunCache()
        var summary = Summary(images: jobs.count)
        var failures: [(index: Int, failure: RenditionFailure)] = []
        var smaller: [(index: Int, smaller: [Smaller])] = []
        let done = try parallelBatches(
            count: jobs.count, threads: options.jobs, batchSize: batchSize, interval: 1,
            isCancelled: isCancelled, progress: progress
        ) { index in
            process(jobs[index], options: options, existing: existing, cache: cache)
        } deliver: { batch in
            var made: [Rendition] = []
            var batchFailures: [RenditionFailure] = []
            for (index, outcome) in batch {
                made += outcome.made
                summary.unchanged += outcome.unchanged
                summary.decoded += outcome.decoded ? 1 : 0
                if let failure = outcome.failure {
                    batchFailures.append(failure)
                    failures.append((index, failure))
                }
                if !outcome.smaller.isEmpty { smaller.append((index, outcome.smaller)) }
            }
            summary.made += made.count
            let replaced = try record(
                made, quality: options.remembersQuality ? options.quality : nil, in: workspace)
            try recordFailures(batchFailures, of: batch.map { jobs[$0.index] }, in: workspace)
            // Old outputs go only once the workspace no longer points at them.
            removeOutputs(replaced, from: options.outputFolder)
        }
        summary.failures = failures.sorted { $0.index < $1.index }.map(\.failure)
        summary.smallerThanAsked = smaller.sorted { $0.index < $1.index }.flatMap(\.smaller)
        summary.interrupted = done < jobs.count
        if !summary.interrupted && options.includePosts {
            removeOutputs(try withdrawUnpublished(workspace), from: options.outputFolder)
        }
        // What is still without renditions, for status to count from.
        _ = try workspace.write { try StaleRecords.images.record(in: workspace) }
        guard !summary.interrupted else { return summary }
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
        let cache = RunCache()
        let queued = jobs
        var summary = Summary(images: jobs.count)
        var made: [Rendition] = []
        // One batch: a publish records what it rendered with the rest of its work.
        _ = try parallelBatches(
            count: jobs.count, threads: options.jobs, batchSize: jobs.count, interval: 3600
        ) { index in
            process(queued[index], options: options, existing: existing, cache: cache)
        } deliver: { batch in
            for (_, outcome) in batch {
                made += outcome.made
                summary.unchanged += outcome.unchanged
                summary.decoded += outcome.decoded ? 1 : 0
                if let failure = outcome.failure { summary.failures.append(failure) }
                summary.smallerThanAsked += outcome.smaller
            }
        }
        summary.made = made.count
        let replaced = try record(made, quality: nil, in: workspace)
        try recordFailures(summary.failures, of: jobs, in: workspace)
        _ = try workspace.write { try StaleRecords.images.record(in: workspace) }
        removeOutputs(replaced, from: options.outputFolder)
        return summary
    }

    private static func removeOutputs(_ paths: [String], from folder: String) {
        for path in paths {
            try? FileManager.default.removeItem(
                atPath: (folder as NSString).appendingPathComponent(path))
        }
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
        let known = try RenditionStore(workspace).paths()
        var removed = 0
        for kind in kinds {
            let top = (folder as NSString).appendingPathComponent(kind.folder)
            // One listing a folder, without a stat a file: the scan costs little beside
            // the records' own bookkeeping.
            guard FolderEntries.kind(of: top) == .folder, let owners = FolderEntries.list(top)
            else { continue }
            for (owner, ownerKind) in owners where ownerKind == .folder {
                let ownerPath = (top as NSString).appendingPathComponent(owner)
                let files = FolderEntries.list(ownerPath) ?? []
                var left = files.count
                for (file, fileKind) in files where fileKind == .file && isRenditionName(file) {
                    guard !known.contains("\(kind.folder)/\(owner)/\(file)") else { continue }
                    if unlink((ownerPath as NSString).appendingPathComponent(file)) == 0 {
                        removed += 1
                        left -= 1
                    }
                }
                if left == 0 { rmdir(ownerPath) }
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

    /// What a run has learnt of its sources, shared by its workers, so that a source named
    /// by many records is read once and decoded once: 50,000 treasures over 5 artworks make
    /// 5 decodes and 15 files written, and each treasure gets its own names for them.
    final class RunCache: Sendable {
        /// A source file's content hash, or why it cannot be read, by path; valid while the
        /// file keeps its `FileStamp`.
        struct Source: Sendable {
            var stamp: FileStamp
            var hash: Result<String, ImageFile.Failure>
        }

        let sources = SharedCache<String, Source>(capacity: 200_000)
        /// A rendition made, with the content hash of its bytes.
        struct Made: Sendable {
            var image: RenderedImage
            var hash: String
        }

        /// Renditions by source content and settings, or the decoder's refusal by source
        /// content: at most 256 MB of encoded images.
        let rendered = SharedCache<String, Result<Made, ImageCodecError>>(capacity: 256 << 20)

        static func key(_ sourceHash: String, _ settings: String) -> String {
            sourceHash + "\u{0}" + settings
        }

        /// A file this run wrote, by the content hash of its bytes: the next record with
        /// the same rendition gets its name as a hard link to it, not a file of its own.
        let written = LockedValue<[String: String]>([:])
    }

    /// Puts `made` at `path`: as a second name of the file another record of this run got
    /// with the same bytes when there is one (no data written, so a record costs a name,
    /// not a file), else as a file of its own, which later records then share.
    ///
    /// The files are hard links, one per record as before (`treasures/KEY/NAME-HASH.EXT`),
    /// so export, publish and the removal of orphans see each record's own file; each is
    /// only ever replaced by a rename, never written in place, so records never change one
    /// another's bytes.
    ///
    /// - Throws: `FileWriteError`.
    static func place(_ made: RunCache.Made, at path: String, cache: RunCache) throws {
        if let shared = cache.written.withLock({ $0[made.hash] }),
            SharedFile.link(shared, to: path)
        {
            return
        }
        // The first of its bytes, or a link refused (the file system has none, or the
        // file has as many as it may): this file is the one the next records share.
        try AtomicFile.write(Data(made.image.bytes), to: path)
        cache.written.withLock { $0[made.hash] = path }
    }

    /// Why a source could not be read, as the run reports it.
    private static func readFailure(_ job: Job, _ error: ImageFile.Failure) -> RenditionFailure {
        RenditionFailure(
            kind: job.kind, key: job.key, source: job.source,
            reason: error.kind == .missing
                ? "no such file" + PathSuggestion.caseOnly(for: job.source)
                : [.notAnImage, .empty].contains(error.kind)
                    ? "\(error)" : "cannot read the file: \(error)")
    }

    /// Hashes one source image (read once a run per file) and makes its stale renditions
    /// (decoded once a run per content), each written under the job's own key.
    static func process(
        _ job: Job, options: Options, existing: [String: Rendition], cache: RunCache = RunCache()
    ) -> Outcome {
        var outcome = Outcome()
        var bytes: [UInt8]?
        let stamp = FileStamp(path: job.source)
        func read() -> Result<String, ImageFile.Failure> {
            let result = Result { () throws(ImageFile.Failure) in
                try ImageFile.read(job.source, maxPixels: options.maxPixels)
            }
            bytes = try? result.get()
            let hash = result.map { ContentHash.hex($0) }
            if let stamp {
                cache.sources.store(RunCache.Source(stamp: stamp, hash: hash), for: job.source)
            }
            return hash
        }
        let known = cache.sources[job.source].flatMap { $0.stamp == stamp ? $0.hash : nil }
        var sourceHash: String
        switch known ?? read() {
        case .success(let hash): sourceHash = hash
        case .failure(let error):
            outcome.failure = readFailure(job, error)
            return outcome
        }
        let stale = staleSpecs(
            job, options: options, existing: existing, sourceHash: sourceHash, outcome: &outcome)
        if stale.isEmpty { return outcome }
        do {
            var images: [RunCache.Made?] = stale.map { spec in
                try? cache.rendered[
                    RunCache.key(
                        sourceHash,
                        settings(spec, quality: options.quality, redaction: job.redaction))]?.get()
            }
            if let refusal = cache.rendered[RunCache.key(sourceHash, "")],
                case .failure(let error) = refusal
            {
                throw error
            }
            let missing = stale.indices.filter { images[$0] == nil }
            if !missing.isEmpty {
                if bytes == nil {
                    // Known by its hash, no longer held decoded: read it again, as it is now.
                    switch read() {
                    case .success(let hash): sourceHash = hash
                    case .failure(let error):
                        outcome.failure = readFailure(job, error)
                        return outcome
                    }
                }
                // One decode, at the scale the largest rendition needs, serves them all.
                outcome.decoded = true
                let made = try render(
                    missing.map { stale[$0] }, from: bytes ?? [], sourceHash: sourceHash, job: job,
                    options: options, cache: cache)
                for (index, made) in zip(missing, made) { images[index] = made }
            }
            for (spec, made) in zip(stale, images) {
                guard let made else { continue }
                try write(
                    made, spec: spec, job: job, options: options, sourceHash: sourceHash,
                    cache: cache, outcome: &outcome)
            }
        } catch {
            outcome.made = []
            outcome.smaller = []
            outcome.failure = renderFailure(job, error)
        }
        return outcome
    }

    /// The specs whose rendition is not there as `sourceHash` and the settings make it,
    /// counting the others as unchanged.
    private static func staleSpecs(
        _ job: Job, options: Options, existing: [String: Rendition], sourceHash: String,
        outcome: inout Outcome
    ) -> [RenditionSpec] {
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
        return stale
    }

    /// Renders `specs` from one decode of `source`, each hashed once and kept in the run's
    /// cache; a refusal is kept too, so no other record decodes the content again.
    private static func render(
        _ specs: [RenditionSpec], from source: [UInt8], sourceHash: String, job: Job,
        options: Options, cache: RunCache
    ) throws -> [RunCache.Made] {
        let made: [RenderedImage]
        do {
            made = try Thumbnailer.render(
                source: source,
                renditions: specs.map {
                    RenditionRequest(width: $0.width, height: $0.height, mode: ResizeMode($0.mode))
                }, quality: options.quality, maxPixels: options.maxPixels,
                redaction: RedactionBox.boxes(job.redaction))
        } catch {
            cache.rendered.store(.failure(error), for: RunCache.key(sourceHash, ""))
            throw error
        }
        return zip(specs, made).map { spec, image in
            // Hashed once, however many records share it.
            let made = RunCache.Made(image: image, hash: ContentHash.hex(image.bytes))
            cache.rendered.store(
                .success(made),
                for: RunCache.key(
                    sourceHash,
                    settings(spec, quality: options.quality, redaction: job.redaction)),
                cost: image.bytes.count)
            return made
        }
    }

    /// Places one rendition under the job's key and records it, and whether it came out
    /// smaller than its box.
    private static func write(
        _ made: RunCache.Made, spec: RenditionSpec, job: Job, options: Options,
        sourceHash: String, cache: RunCache, outcome: inout Outcome
    ) throws {
        let (image, hash) = (made.image, made.hash)
        let path =
            "\(job.kind.folder)/\(safePathComponent(job.key))/"
            + "\(spec.name)-\(hash.prefix(8)).\(image.format.fileExtension)"
        try place(
            made, at: (options.outputFolder as NSString).appendingPathComponent(path),
            cache: cache)
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

    /// Why rendering or writing failed, as the run reports it.
    private static func renderFailure(_ job: Job, _ error: any Error) -> RenditionFailure {
        if let error = error as? ImageCodecError {
            return RenditionFailure(
                kind: job.kind, key: job.key, source: job.source, reason: error.description)
        }
        return RenditionFailure(
            kind: job.kind, key: job.key, source: job.source,
            reason: error is FileWriteError
                ? "\(error)" : "cannot write the rendition: \(error)")
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
            // One statement a kind for the batch; a failure forgotten or remembered
            // changes what an export says of it.
            for kind in [RenditionOwner.treasure, .post] {
                let keys = jobs.filter { $0.kind == kind }.map(\.key)
                for key in try store.forgetFailures(of: kind, keys: keys) {
                    workspace.markChanged(kind.record, key)
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
