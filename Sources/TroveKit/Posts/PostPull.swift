import Foundation
import TroveBase
import TroveHTTP
import TroveStore

/// How far a pull has come, for a progress line.
public struct PullProgress: Sendable, Equatable {
    /// Records read from the location so far.
    public var read = 0
    /// Photos downloaded so far.
    public var downloaded = 0
}

/// `trove import posts --from URL`: the posts of a live database location, read in pages,
/// their photos from Cloud Storage, stored by the rules of a file import.
///
/// Work is committed a batch at a time (`batchSize` posts, with the photos they needed),
/// so a run that is killed keeps what it finished and the next one goes on: a post stored
/// unchanged is not written again and a photo held is not downloaded again. The posts
/// gone from the location are withdrawn only after the whole location was read, in the
/// same transaction that records the read complete, so an interrupted run never
/// withdraws anything. Memory stays flat in the number of posts: a page is held at a
/// time, and what the run has read is kept in the workspace (`post_pull_seen`).
///
/// One pull owns its workspace connection and HTTP clients: use it from one thread.
public final class PostPull {
    public let location: LiveLocation
    let workspace: Workspace
    let reader: LiveReader
    let photos: StoragePhotoFetcher
    let folder: PhotoFolder
    let inspector: any PhotoInspecting
    let now: () -> Date
    /// Posts stored per transaction.
    public var batchSize = 250
    /// Records asked for per page (halved for a page too large to hold).
    public var pageSize = 10_000
    /// Called after each batch.
    public var progress: (PullProgress) -> Void = { _ in }
    /// What the last `run` or `refresh` did.
    public internal(set) var summary = PostImportSummary()
    /// Records set aside this run (`--rejects`).
    public internal(set) var rejects: [PostReject] = []
    /// Things said once, beside the summary (a listing that could not be read, links).
    public internal(set) var notes: [String] = []
    /// Whether the last run committed anything.
    public internal(set) var committed = false
    var counts = PullProgress()
    /// Keys to record as read with the next batch (records skipped whole).
    var pendingSeen: [String] = []
    /// Posts of a flat location read by this run that the workspace holds from it.
    var readStored = 0

    /// A pull of `location` into `workspace`, with the credentials and endpoints of
    /// `cloud`, as a publish has them.
    ///
    /// - Throws: `PullError` when the Storage endpoint is not a URL.
    public init(
        workspace: Workspace, location: LiveLocation, cloud: CloudEnvironment,
        now: @escaping () -> Date = Date.init
    ) throws(PullError) {
        self.workspace = workspace
        self.location = location
        let token = AccessToken.gcloud(cloud)
        reader = LiveReader(location: location, accessToken: token)
        folder = PhotoFolder(workspacePath: workspace.path)
        do {
            photos = try StoragePhotoFetcher(cloud: cloud, folder: folder)
        } catch {
            throw PullError("\(error)")
        }
        inspector = PhotoInspector()
        self.now = now
    }

    /// The credentials every request of this pull carries.
    var accessToken: AccessToken { reader.accessToken }

    /// Abandons the requests in flight, from any thread (a follow stopping): they fail,
    /// and the run with them; a batch being written completes or rolls back whole.
    func interrupt() {
        interrupted.withLock { $0 = true }
        reader.client.interrupter.interrupt()
        photos.client.interrupter.interrupt()
        for fetcher in fetchers.withLock({ $0 }) { fetcher.interrupt() }
    }

    /// The page fetchers at work, for `interrupt`.
    let fetchers = LockedValue<[HTTPInterrupter]>([])
    let interrupted = LockedValue(false)

    // MARK: - A whole read

    /// Reads the whole location and brings the workspace in step with it.
    ///
    /// - Throws: `PullError` when the database or a listing cannot be read (what was
    ///   committed stays), `WorkspaceError` or `SQLiteError` from the workspace.
    @discardableResult
    public func run() throws -> PostImportSummary {
        summary = PostImportSummary()
        rejects = []
        notes = []
        committed = false
        counts = PullProgress()
        pendingSeen = []
        readStored = 0
        let origin = location.origin
        let started = timestamp(now())
        let pull = try workspace.write {
            try PostStore(workspace).startPull(origin: origin, at: started)
        }
        try folder.prepare()
        // A photo changed upstream may be behind any page: none is passed over.
        let photosChanged = try revalidatePhotos()
        let known = photosChanged ? nil : try PostStore(workspace).pages(pull: pull.id)
        try readPages(pull: pull, known: known, at: started)
        // The whole location was read: what it no longer holds is gone upstream. A flat
        // location's pages are counted, not recorded key by key: when the count is every
        // post stored from it, none is gone; else its keys are listed to tell which.
        let store = PostStore(workspace)
        var listed = location.shape == .nested
        if location.shape == .flat, try store.countPosts(from: origin) != readStored {
            try recordEveryKey(pull: pull)
            listed = true
        }
        let importer = PostImporter(
            workspace: workspace, photos: nil, inspector: inspector, now: now())
        let due = try store.pull(origin: origin)?.signalsDue ?? false
        try workspace.write {
            let gone = listed ? try store.unseenPosts(pull: pull.id, origin: origin) : []
            try importer.withdraw(gone, note: "no longer in \(origin)", summary: &summary)
            if due || !gone.isEmpty {
                try SignalScanner(workspace: workspace, now: now()).scan()
            }
            try store.prunePages(pull: pull.id, keeping: started)
            try store.completePull(pull.id, at: timestamp(now()))
        }
        committed = true
        return summary
    }

    // MARK: - Batches

    /// Stores a page's posts a batch at a time, each batch with the photos it needs.
    ///
    /// - Parameter pull: the run the posts are read by (which computes the signals at its
    ///   end); nil for posts taken one by one (a follow's events).
    /// - Parameter markSeen: record each post as read by `pull`, for the withdrawals at
    ///   its end (a nested location's; a flat one's pages are counted).
    func ingest(_ file: PostFile, pull: PulledLocation?, markSeen: Bool = true) throws {
        summary.droppedPasswords += file.droppedPasswords
        summary.droppedEmails += file.droppedEmails
        summary.droppedNames += file.droppedNames
        summary.skipped += file.rejects.count
        rejects += file.rejects
        counts.read += file.posts.count + file.rejects.count
        var seen = file.rejects.compactMap(\.id) + pendingSeen
        pendingSeen = []
        var start = 0
        repeat {
            let end = min(file.posts.count, start + max(1, batchSize))
            try storeBatch(
                Array(file.posts[start..<end]), seen: seen, pull: pull, markSeen: markSeen)
            seen = []
            start = end
        } while start < file.posts.count
    }

    /// One batch: photos checked and fetched, then the posts stored in one transaction.
    private func storeBatch(
        _ inputs: [PostInput], seen: [String], pull: PulledLocation?, markSeen: Bool
    ) throws {
        let store = PostStore(workspace)
        let lookup = try store.photoObjectLookup()
        let statements = try PostStore.ImportStatements(store)
        let origin = location.origin
        // 1. Which photos are held as they are now, and which must be looked at.
        var posts = inputs
        var objects: [StorageObjectName?] = []
        var known: [StorageObjectName: PhotoObject] = [:]
        var check: [StorageObjectName] = []
        var checking: Set<StorageObjectName> = []
        // One read transaction for the batch's look-ups: one lock, not one a statement.
        let storedPosts = try workspace.read {
            for index in posts.indices {
                guard let reference = posts[index].photo,
                    let object = StorageObjectName(reference: reference)
                else {
                    objects.append(nil)
                    continue
                }
                posts[index].photo = object.reference
                objects.append(object)
                if known[object] != nil || checking.contains(object) { continue }
                if let record = try lookup(object.bucket, object.name) {
                    known[object] = record
                    if !record.stale, folder.holds(record.file, bytes: record.bytes) { continue }
                }
                check.append(object)
                checking.insert(object)
            }
            return try posts.map { try statements.stored($0.id) }
        }
        var fetched: [StorageObjectName: StoragePhotoFetcher.Fetched] = [:]
        if !check.isEmpty {
            fetched = try photos.fetch(check, known: known)
        }
        let (current, saved) = currentPhotos(known: known, checking: checking, fetched: fetched)
        // 2. Which posts changed: their hash, with the photo's fingerprint, against the
        // stored one. Only those have their photos inspected.
        let changes = changedPosts(
            posts, objects: objects, fetched: fetched, current: current, stored: storedPosts)
        var incoming = changes.incoming
        let inspect = changes.inspect
        // 3. The photos of changed posts, on every core.
        if !inspect.isEmpty {
            inspectPhotos(of: inspect, in: &incoming, objects: objects, current: current)
        }
        for item in incoming.compactMap({ $0 }) where item.problem != nil {
            if !summary.photoProblems.contains(where: { $0.id == item.input.id }) {
                summary.photoProblems.append((item.input.id, item.problem ?? ""))
            }
        }
        // 4. One transaction: the objects, the posts, what was read.
        let importer = PostImporter(
            workspace: workspace, photos: nil, inspector: inspector, now: now())
        let precision = try workspace.geohashPrecision()
        let before = summary.new + summary.updated + summary.returned.count
        let changed = incoming.compactMap { $0 }
        let at = saved.isEmpty ? "" : timestamp(now())
        guard !saved.isEmpty || !changed.isEmpty || (pull != nil && markSeen) else {
            progress(counts)
            return
        }
        try workspace.write {
            for object in saved { try store.savePhotoObject(object, at: at) }
            if !changed.isEmpty {
                try importer.store(
                    changed, origin: origin, precision: precision, summary: &summary)
            }
            if let pull, markSeen {
                let markSeen = try store.seenWriter(pull: pull.id)
                for post in posts { try markSeen(post.id) }
                for id in seen { try markSeen(id) }
            }
            if let pull, summary.new + summary.updated + summary.returned.count > before {
                try store.setSignalsDue(pull.id, true)
            }
        }
        committed = true
        progress(counts)
    }

    /// The photo records that hold now: those known and not stale, unless they were
    /// checked again, and those `fetched` found current (saved with the batch), counting
    /// the downloads.
    private func currentPhotos(
        known: [StorageObjectName: PhotoObject], checking: Set<StorageObjectName>,
        fetched: [StorageObjectName: StoragePhotoFetcher.Fetched]
    ) -> (current: [StorageObjectName: PhotoObject], saved: [PhotoObject]) {
        var current: [StorageObjectName: PhotoObject] = [:]
        var saved: [PhotoObject] = []
        for (object, record) in known where !record.stale && !checking.contains(object) {
            current[object] = record
        }
        for (object, outcome) in fetched {
            if case .current(let record, let downloaded) = outcome {
                current[object] = record
                saved.append(record)
                if downloaded {
                    summary.downloadedPhotos += 1
                    summary.downloadedBytes += record.bytes
                    counts.downloaded += 1
                }
            }
        }
        return (current, saved)
    }

    /// The posts of a batch to write (nil for one refused or stored as it is), and the
    /// indexes of those whose photo must be inspected.
    private func changedPosts(
        _ posts: [PostInput], objects: [StorageObjectName?],
        fetched: [StorageObjectName: StoragePhotoFetcher.Fetched],
        current: [StorageObjectName: PhotoObject], stored storedPosts: [PostStore.StoredPost?]
    ) -> (incoming: [IncomingPost?], inspect: [Int]) {
        let origin = location.origin
        var incoming: [IncomingPost?] = []
        var inspect: [Int] = []
        for (index, post) in posts.enumerated() {
            var item = IncomingPost(input: post, contentHash: "")
            if let object = objects[index] {
                switch fetched[object] {
                case .failed(let reason)?:
                    summary.refusedPosts.append((post.id, "cannot download its photo \(reason)"))
                    incoming.append(nil)
                    continue
                case .tooLarge(let bytes)?:
                    item.problem =
                        "the photo \(object.reference) is \(bytes >> 20) MiB, more than trove "
                        + "downloads (\(StoragePhotoFetcher.maxPhotoBytes >> 20) MiB)"
                case .current?, nil:
                    guard let record = current[object] else {
                        item.problem = "the photo \(object.reference) was not read"
                        break
                    }
                    item.photoPath = folder.path(of: record.file)
                    item.contentHash = PostImporter.contentHash(post, photoHash: record.fingerprint)
                }
            } else if let reference = post.photo {
                item.problem = "\(reference) is not a Cloud Storage URL: not downloaded"
            }
            if item.contentHash.isEmpty {
                item.contentHash = PostImporter.contentHash(post, photoHash: nil)
            }
            let stored = storedPosts[index]
            if let stored, stored.contentHash == item.contentHash,
                stored.status != PostStatus.withdrawn.rawValue, stored.origin == origin,
                stored.photo == item.photoPath
            {
                // As stored, from here: nothing to write but that it was read.
                summary.unchanged += 1
                incoming.append(nil)
                continue
            }
            if item.photoPath != nil, stored?.contentHash != item.contentHash {
                inspect.append(index)
            }
            incoming.append(item)
        }
        return (incoming, inspect)
    }

    /// Reads and inspects the photos of the posts at `inspect`, on every core.
    private func inspectPhotos(
        of inspect: [Int], in incoming: inout [IncomingPost?], objects: [StorageObjectName?],
        current: [StorageObjectName: PhotoObject]
    ) {
        let inspector = self.inspector
        let paths = inspect.map { incoming[$0]?.photoPath ?? "" }
        let facts = parallelMap(
            count: paths.count, threads: ProcessInfo.processInfo.activeProcessorCount
        ) { index -> (PhotoFacts?, String?) in
            switch PhotoResolver.read(paths[index]) {
            case .success(let bytes):
                let facts = inspector.inspect(bytes)
                return (facts, facts.problem)
            case .failure(let failure):
                return (nil, "cannot read the photo: \(failure)")
            }
        }
        for (slot, index) in inspect.enumerated() {
            guard var item = incoming[index] else { continue }
            item.facts = facts[slot].0
            item.problem = facts[slot].1
            if let object = objects[index], let record = current[object], item.facts == nil {
                // Not an image: its bytes still tell whether it changed.
                item.facts = PhotoFacts(fingerprint: record.fingerprint, problem: item.problem)
            }
            incoming[index] = item
        }
    }
}
