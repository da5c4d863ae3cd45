import Foundation
import TroveBase
import TroveStore

/// What `import posts` did.
public struct PostImportSummary: Equatable, Sendable {
    /// Posts that were not in the workspace.
    public var new = 0
    /// Posts whose content changed.
    public var updated = 0
    /// Posts already stored exactly so.
    public var unchanged = 0
    /// Decided posts whose content changed and that went back to pending.
    public var reopened: [String] = []
    /// Posts whose photo reference was refused (it leads outside the photos folder),
    /// with the reason.
    public var refusedPhotos: [(id: String, reason: String)] = []
    /// Posts whose photo was not found or could not be read, with the reason.
    public var photoProblems: [(id: String, reason: String)] = []
    /// Password fields seen in the input and not stored.
    public var droppedPasswords = 0
    /// E-mail addresses seen in the input and not stored.
    public var droppedEmails = 0
    /// Display names seen in the input and not stored.
    public var droppedNames = 0
    /// Posts an earlier import of the same file held and this one does not: withdrawn by
    /// their users, with the status each had.
    public var withdrawn: [(id: String, from: PostStatus)] = []
    /// Withdrawn posts that are back in the file, pending again.
    public var returned: [String] = []
    /// Records that could not become posts (`--skip-invalid`).
    public var skipped = 0
    /// Whether the run stopped early when asked to (a signal): what it stored is kept,
    /// nothing was withdrawn, and the next run goes on.
    public var interrupted = false
    /// Posts left as they were (or out of the workspace, when new) because their photo
    /// could not be downloaded, with the reason (`import posts --from`).
    public var refusedPosts: [(id: String, reason: String)] = []
    /// Photos downloaded from Storage, and their bytes (`import posts --from`).
    public var downloadedPhotos = 0
    public var downloadedBytes = 0

    /// Every post in the file.
    public var imported: Int { new + updated + unchanged }

    /// Compares the counts and the ids named.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.new == rhs.new && lhs.updated == rhs.updated && lhs.unchanged == rhs.unchanged
            && lhs.reopened == rhs.reopened
            && lhs.refusedPhotos.map(\.id) == rhs.refusedPhotos.map(\.id)
            && lhs.droppedPasswords == rhs.droppedPasswords
            && lhs.droppedEmails == rhs.droppedEmails && lhs.droppedNames == rhs.droppedNames
            && lhs.withdrawn.map(\.id) == rhs.withdrawn.map(\.id) && lhs.returned == rhs.returned
            && lhs.skipped == rhs.skipped
            && lhs.refusedPosts.map(\.id) == rhs.refusedPosts.map(\.id)
            && lhs.downloadedPhotos == rhs.downloadedPhotos
    }
}

/// Imports posts a batch at a time: resolves every photo reference, then, batch after
/// batch, inspects the photo files the batch reaches first and stores its posts in one
/// transaction; the withdrawals and the signals come last, in a transaction of their own.
///
/// A run that is killed keeps its finished batches, and the next run of the same file
/// goes on: what is stored as the file has it is not written again, and a photo file whose
/// stamp is as when it was read (`photo_files`) is not read again. Nothing is withdrawn
/// before the whole file was stored. Every file import ends with a scan of every post's
/// signals, so a run killed after its last batch and before that scan leaves the signals
/// to the next one.
public struct PostImporter {
    let workspace: Workspace
    /// Where photo references are looked up; nil when the posts come with their photos
    /// (a pull).
    let resolver: PhotoResolver?
    let inspector: any PhotoInspecting
    let now: Date
    /// `now` as the workspace records times.
    let at: String
    /// Posts stored per transaction, at most.
    public var batchSize = 10_000
    /// Photo files read per transaction, at most: what a kill can cost.
    public var batchFiles = 256

    /// - Parameter photos: the folder photo references are resolved in.
    public init(workspace: Workspace, photos: PhotoResolver, now: Date = Date()) {
        self.init(workspace: workspace, photos: photos, inspector: PhotoInspector(), now: now)
    }

    init(
        workspace: Workspace, photos: PhotoResolver?, inspector: any PhotoInspecting,
        now: Date
    ) {
        self.workspace = workspace
        self.resolver = photos
        self.inspector = inspector
        self.now = now
        at = timestamp(now)
    }

    /// Imports `file`, a batch at a time.
    ///
    /// - Parameter origin: the file's `SourceIdentity`, when the posts come from a file:
    ///   the posts an earlier import of it held and this one does not are withdrawn (those
    ///   of its records set aside as invalid are not).
    /// - Parameter formerOrigin: the identity the workspace recorded the same file under
    ///   before it moved (`MovedSource`): its posts are the file's from now on.
    /// - Parameter isCancelled: asked after each batch; when true, the run stops there
    ///   with `interrupted` set: the batches stored are kept, nothing is withdrawn and the
    ///   signals are left to the next run.
    /// - Parameter progress: hears how many of the file's posts are stored after each
    ///   batch.
    /// - Throws: `InputError` for two posts with one id (before anything is written),
    ///   `WorkspaceError` or `SQLiteError` from the workspace.
    public func run(
        _ file: PostFile, origin: String? = nil, formerOrigin: String? = nil,
        isCancelled: () -> Bool = { false }, progress: (Int) -> Void = { _ in }
    ) throws -> PostImportSummary {
        var summary = PostImportSummary()
        summary.droppedPasswords = file.droppedPasswords
        summary.droppedEmails = file.droppedEmails
        summary.droppedNames = file.droppedNames
        summary.skipped = file.rejects.count
        var seen: [String: String] = [:]
        for post in file.posts {
            if let first = seen[post.id] {
                throw InputError(post.source, "post id '\(post.id)' appears twice (also \(first))")
            }
            seen[post.id] = post.source
        }
        seen = [:]
        let posts = file.posts
        var photos = try PhotoSet(posts, resolver: resolver, workspace: workspace)
        let precision = try workspace.geohashPrecision()
        var moved = formerOrigin == nil || origin == nil
        var start = 0
        while start < posts.count {
            // A batch ends at `batchSize` posts, or before the post that would make it
            // read more than `batchFiles` photo files.
            var end = start
            var toRead: [Int] = []
            var reading: Set<Int> = []
            while end < posts.count, end - start < max(1, batchSize) {
                if let number = photos.file[end], photos.outcome[number] == nil,
                    !reading.contains(number)
                {
                    if toRead.count >= max(1, batchFiles) { break }
                    toRead.append(number)
                    reading.insert(number)
                }
                end += 1
            }
            let fresh = photos.read(toRead, inspector: inspector)
            let prepared = Self.prepare(posts, start..<end, photos)
            for item in prepared {
                guard let problem = item.problem else { continue }
                if problem.hasPrefix("refused: ") {
                    summary.refusedPhotos.append((item.input.id, String(problem.dropFirst(9))))
                } else {
                    summary.photoProblems.append((item.input.id, problem))
                }
            }
            try workspace.write {
                if !moved, let origin, let formerOrigin {
                    try PostStore(workspace).moveOrigin(formerOrigin, to: origin)
                    moved = true
                }
                try photos.save(fresh, in: workspace)
                try store(prepared, origin: origin, precision: precision, summary: &summary)
            }
            start = end
            progress(end)
            if isCancelled() {
                summary.interrupted = true
                return summary
            }
        }
        try workspace.write {
            if !moved, let origin, let formerOrigin {
                try PostStore(workspace).moveOrigin(formerOrigin, to: origin)
            }
            if let origin {
                var present = Set(posts.map(\.id))
                for reject in file.rejects { if let id = reject.id { present.insert(id) } }
                let gone = try PostStore(workspace).posts(from: origin).filter {
                    !present.contains($0.id)
                }
                let name = (origin as NSString).lastPathComponent
                try withdraw(gone, note: "no longer in \(name)", summary: &summary)
            }
            try SignalScanner(workspace: workspace, now: now).scan()
        }
        return summary
    }

    // MARK: - Photos

    /// Posts `range` ready to store, their photos' facts from `photos`. Their hashes are
    /// computed on every core: at a few microseconds a post, they are much of an
    /// import's own work.
    private static func prepare(
        _ posts: [PostInput], _ range: Range<Int>, _ photos: PhotoSet
    ) -> [IncomingPost] {
        let chunk = 256
        let pieces = parallelMap(
            count: (range.count + chunk - 1) / chunk,
            threads: ProcessInfo.processInfo.activeProcessorCount
        ) { number -> [IncomingPost] in
            let first = range.lowerBound + number * chunk
            return (first..<min(range.upperBound, first + chunk)).map {
                prepare(posts[$0], $0, photos)
            }
        }
        return Array(pieces.joined())
    }

    /// Post `index` (`post`) ready to store, its photo's facts from `photos`.
    private static func prepare(_ post: PostInput, _ index: Int, _ photos: PhotoSet)
        -> IncomingPost
    {
        var item = IncomingPost(input: post, contentHash: "")
        switch photos.resolution[index] {
        case .none: break
        case .refused(let why): item.problem = "refused: " + why
        case .missing(let why): item.problem = why
        case .file(let path):
            item.photoPath = path
            switch photos.file[index].flatMap({ photos.outcome[$0] }) {
            case .success(let facts)?:
                item.facts = facts
                item.problem = facts.problem
            case .failure(let failure)?:
                item.problem = "cannot read \(path): \(failure)"
            case nil:
                item.problem = "cannot read \(path)"
            }
        }
        item.contentHash = contentHash(post, photoHash: item.facts?.fingerprint)
        return item
    }

    /// A hash of everything a moderator judged: text, position, date, photo bytes.
    static func contentHash(_ post: PostInput, photoHash: String?) -> String {
        let parts: [String] = [
            post.id, post.user ?? "", String(post.latitude), String(post.longitude),
            post.description ?? "", post.date ?? "", post.photo ?? "", photoHash ?? "",
        ]
        return SHA256.hex(Array(parts.joined(separator: "\u{1F}").utf8))
    }

    // MARK: - Storing

    /// Stores prepared posts (new, changed, back after a withdrawal; unchanged ones are
    /// counted), reopening decided posts whose content changed. Call inside
    /// `Workspace.write`.
    ///
    /// - Throws: `SQLiteError`.
    func store(
        _ posts: [IncomingPost], origin: String?, precision: Int, summary: inout PostImportSummary
    ) throws {
        let store = try PostStore.ImportStatements(PostStore(workspace))
        for post in posts {
            let input = post.input
            let previous = try store.stored(input.id)
            let newVersion = PostVersion.of(contentHash: post.contentHash)
            if let previous, previous.status == PostStatus.withdrawn.rawValue {
                // Back in the export after it was gone: the user restored it.
                let note = "back in \(input.source) after it was withdrawn"
                try store.reopen(input.id, note: note)
                workspace.markChanged(.post, input.id)
                // Its user's doing, as the withdrawal was.
                try store.trail.append(
                    Decision(
                        postID: input.id, at: at, kind: .restoration, moderator: nil,
                        byUser: input.user, from: .withdrawn, to: .pending, note: note,
                        version: newVersion))
                summary.returned.append(input.id)
            }
            if let previous, previous.contentHash == post.contentHash {
                summary.unchanged += 1
                if let origin { try store.adopt(input.id, origin: origin) }
                // The same photo in a folder that moved.
                if let path = post.photoPath, previous.photo != path {
                    try store.relocate(input.id, photo: path)
                }
                continue
            }
            let geohash = Geohash.encode(
                latitude: input.latitude, longitude: input.longitude, precision: precision)
            try store.store(post, geohash: geohash, at: at, origin: origin)
            workspace.markChanged(.post, input.id)
            try store.recordVersion(post, version: newVersion, at: at)
            guard let previous else {
                summary.new += 1
                continue
            }
            summary.updated += 1
            guard previous.status != "pending", previous.status != PostStatus.withdrawn.rawValue
            else { continue }
            let changed = Self.changedFields(previous.judged, post)
            let note =
                "content changed after it was \(previous.status) (\(changed)); "
                + "re-imported from \(input.source)"
            try store.reopen(input.id, note: note)
            // The import's doing, not a moderator's.
            try store.trail.append(
                Decision(
                    postID: input.id, at: at, kind: .reopening, moderator: nil,
                    from: PostStatus(rawValue: previous.status) ?? .pending, to: .pending,
                    note: note, version: newVersion))
            summary.reopened.append(input.id)
        }
    }

    /// Withdraws posts gone from their source, each with `note` in the trail. Call inside
    /// `Workspace.write`.
    ///
    /// - Throws: `SQLiteError`.
    func withdraw(
        _ gone: [PostStore.LivePost], note: String,
        summary: inout PostImportSummary
    ) throws {
        guard !gone.isEmpty else { return }
        let store = PostStore(workspace)
        let withdraw = try store.withdrawer()
        let trail = try PostStore.TrailWriter(store)
        for (id, user, status, version) in gone {
            try withdraw(id, note, at)
            workspace.markChanged(.post, id)
            // The user deleted it in the app: theirs, not a moderator's.
            try trail.append(
                Decision(
                    postID: id, at: at, kind: .withdrawal, moderator: nil, byUser: user,
                    from: status, to: .withdrawn, note: note, version: version))
            summary.withdrawn.append((id, status))
        }
    }

    /// Names the fields that differ from what was stored, e.g. `description, photo`.
    private static func changedFields(_ old: [String?], _ post: IncomingPost) -> String {
        let input = post.input
        let new: [String?] = [
            input.user, String(input.latitude), String(input.longitude), input.description,
            input.date, input.photo, post.facts?.fingerprint,
        ]
        let names = ["user", "lat", "lon", "description", "date", "photo", "photo"]
        var changed: [String] = []
        for index in names.indices where old[index] != new[index] {
            if !changed.contains(names[index]) { changed.append(names[index]) }
        }
        return changed.isEmpty ? "content" : changed.joined(separator: ", ")
    }
}
