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
    public var pageSize = 1000
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
    private var counts = PullProgress()
    private var lastScan = Date()

    /// A pull of `location` into `workspace`, with the credentials and endpoints of
    /// `environment` (`GCLOUD`, `CLOUDSDK_API_ENDPOINT_OVERRIDES_STORAGE`,
    /// `CLOUDSDK_AUTH_DISABLE_CREDENTIALS`).
    ///
    /// - Throws: `PullError` when the Storage endpoint is not a URL.
    public init(
        workspace: Workspace, location: LiveLocation, environment: [String: String],
        now: @escaping () -> Date = Date.init
    ) throws(PullError) {
        self.workspace = workspace
        self.location = location
        let token = AccessToken.gcloud(environment: environment)
        reader = LiveReader(location: location, accessToken: token)
        folder = PhotoFolder(workspacePath: workspace.path)
        do {
            photos = try StoragePhotoFetcher(environment: environment, folder: folder)
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
        reader.client.interrupter.interrupt()
        photos.client.interrupter.interrupt()
    }

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
        let origin = location.origin
        let pull = try workspace.write {
            try PostStore(workspace).startPull(origin: origin, at: timestamp(now()))
        }
        try folder.prepare()
        try revalidatePhotos()
        try readPages { file in try ingest(file, pull: pull) }
        // The whole location was read: what it no longer holds is gone upstream.
        let importer = PostImporter(
            workspace: workspace, photos: nil, inspector: inspector, now: now())
        let due = try PostStore(workspace).pull(origin: origin)?.signalsDue ?? false
        try workspace.write {
            let store = PostStore(workspace)
            let gone = try store.unseenPosts(pull: pull.id, origin: origin)
            try importer.withdraw(gone, note: "no longer in \(origin)", summary: &summary)
            if due || !gone.isEmpty {
                try SignalScanner(workspace: workspace, now: now()).scan()
            }
            try store.completePull(pull.id, at: timestamp(now()))
        }
        committed = true
        return summary
    }

    // MARK: - Pages

    /// Reads the location a page at a time, in key order, handing each page's posts to
    /// `body`.
    private func readPages(_ body: (PostFile) throws -> Void) throws {
        switch location.shape {
        case .flat:
            try readChildren([], size: pageSize) { page in
                try body(try self.posts(in: page, wrapper: "Locations"))
            } tooLarge: { key in
                self.skip(key, "the record is larger than trove reads (32 MiB)")
            }
        case .nested:
            try readChildren([], size: max(1, pageSize / 10)) { page in
                try body(try self.posts(in: page, wrapper: "Users"))
            } tooLarge: { user in
                try self.readUserInParts(user, body)
            }
        }
    }

    /// Reads the children of `relative` in pages ordered by key (`orderBy="$key"`,
    /// `startAt`, `limitToFirst`), each a JSON object of at most `size` children; a page
    /// too large to hold is asked for again in halves, and a child too large alone goes to
    /// `tooLarge` by its key.
    ///
    /// Each page starts after the last key of the one before: at the smallest key that can
    /// follow it (`DatabaseKeyOrder.successor`), so no child is read twice. (A location
    /// holding both `5` and `05`, which the database orders as one number, would lose the
    /// second: no app writes such keys.)
    private func readChildren(
        _ relative: [String], size initial: Int,
        page body: (JSONValue) throws -> Void, tooLarge: (String) throws -> Void
    ) throws {
        let initial = max(1, initial)
        var size = initial
        var start: String?
        while true {
            var items = [URLQueryItem(name: "orderBy", value: "\"$key\"")]
            if let start {
                items.append(URLQueryItem(name: "startAt", value: jsonString(start)))
            }
            items.append(URLQueryItem(name: "limitToFirst", value: String(size)))
            switch try reader.get(relative, items) {
            case .tooLarge(let head):
                if size > 1 {
                    size = max(1, size / 2)
                    continue
                }
                guard let key = Self.firstKey(head) else {
                    throw PullError(
                        "cannot read \(location.origin): a record after "
                            + (start.map { "'\(printable($0))'" } ?? "the start")
                            + " is larger than trove reads, and its key cannot be told")
                }
                try tooLarge(key)
                start = DatabaseKeyOrder.successor(key)
            case .value(let bytes):
                var parser = JSONParser(bytes)
                guard let value = try? parser.parseValue() else {
                    throw PullError("cannot read \(location.origin): the answer is not JSON")
                }
                let children = Self.children(value)
                if !children.isEmpty { try body(.object(children)) }
                guard children.count >= size,
                    let last = children.map(\.name).max(by: DatabaseKeyOrder.precedes)
                else { return }
                start = DatabaseKeyOrder.successor(last)
                // After a page too large, pages that come back small grow again.
                if size < initial, bytes.count < reader.maxResponseBytes / 8 {
                    size = min(initial, size * 2)
                }
            }
        }
    }

    /// The children of a page: an object's members, or an array's non-null items under
    /// their indexes (the database answers keys 0…n as an array).
    static func children(_ value: JSONValue) -> [JSONMember] {
        switch value {
        case .object(let members): return members
        case .array(let items):
            return items.enumerated().compactMap { index, item in
                item == .null ? nil : JSONMember(name: String(index), value: item)
            }
        default: return []
        }
    }

    /// The first key in the start of a JSON object (`{"KEY":…`).
    static func firstKey(_ head: [UInt8]) -> String? {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        var index = head.firstIndex { !isSpace($0) } ?? head.endIndex
        guard index < head.endIndex, head[index] == 0x7B else { return nil }
        index = head[(index + 1)...].firstIndex { !isSpace($0) } ?? head.endIndex
        guard index < head.endIndex, head[index] == 0x22 else { return nil }
        // The key's closing quote: the first one no backslash escapes.
        var end = index + 1
        var escaped = false
        while end < head.endIndex {
            if escaped {
                escaped = false
            } else if head[end] == 0x5C {
                escaped = true
            } else if head[end] == 0x22 {
                break
            }
            end += 1
        }
        guard end < head.endIndex else { return nil }
        var parser = JSONParser(Array(head[index...end]))
        guard case .string(let key)? = try? parser.parseValue() else { return nil }
        return key
    }

    /// A page's posts, read as a file import reads an export holding `wrapper`.
    func posts(in page: JSONValue, wrapper: String) throws -> PostFile {
        let root = JSONValue.object([JSONMember(name: wrapper, value: page)])
        var file: PostFile
        do {
            file = try PostReader.readTree(root, name: location.parentName, skipInvalid: true)
        } catch {
            throw PullError("cannot read \(location.origin): \(error)")
        }
        // Messages name the location as it is called, not as an export would be.
        if location.name != wrapper {
            let from = ": \(wrapper)/"
            let to = ": \(location.name)/"
            for index in file.posts.indices {
                file.posts[index].source = file.posts[index].source.replacingOccurrences(
                    of: from, with: to)
            }
            for index in file.rejects.indices {
                file.rejects[index].location = file.rejects[index].location
                    .replacingOccurrences(of: from, with: to)
            }
        }
        return file
    }

    /// A user too large to read whole: the names of their fields (to count the private
    /// ones without reading them), then their tagged locations in pages.
    func readUserInParts(_ user: String, _ body: (PostFile) throws -> Void) throws {
        guard
            case .value(let bytes) = try reader.get(
                [user], [URLQueryItem(name: "shallow", value: "true")])
        else {
            skip(user, "the user's field names are more than trove reads")
            return
        }
        var parser = JSONParser(bytes)
        guard case .object(let fields)? = try? parser.parseValue() else { return }
        var counted = PostFile()
        for field in fields {
            if Privacy.isPasswordField(field.name) {
                counted.droppedPasswords += 1
            } else if Privacy.isEmailField(field.name) {
                counted.droppedEmails += 1
            } else if Privacy.isDisplayNameField(field.name) {
                counted.droppedNames += 1
            }
        }
        try body(counted)
        for field in fields where field.name.lowercased() == "taggedlocations" {
            try readChildren([user, field.name], size: pageSize) { page in
                let node = JSONValue.object([
                    JSONMember(
                        name: user, value: .object([JSONMember(name: field.name, value: page)]))
                ])
                try body(try self.posts(in: node, wrapper: "Users"))
            } tooLarge: { key in
                self.skip(key, "the record is larger than trove reads (32 MiB)")
            }
        }
    }

    /// A record that is not read: reported as skipped, and kept from being withdrawn.
    func skip(_ key: String, _ reason: String) {
        let where_ = "\(location.parentName): \(location.name)/\(key)"
        rejects.append(
            PostReject(
                file: location.origin, record: "\(location.name)/\(key)", id: key,
                location: where_, reason: reason))
        summary.skipped += 1
        pendingSeen.append(key)
    }

    /// Keys to record as read with the next batch (records skipped whole).
    private var pendingSeen: [String] = []

    // MARK: - Batches

    /// Stores a page's posts a batch at a time, each batch with the photos it needs.
    ///
    /// - Parameter pull: the run whose reads are recorded, for the withdrawals at its
    ///   end; nil for posts taken one by one (a follow's events).
    func ingest(_ file: PostFile, pull: PulledLocation?) throws {
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
            try storeBatch(Array(file.posts[start..<end]), seen: seen, pull: pull)
            seen = []
            start = end
        } while start < file.posts.count
    }

    /// One batch: photos checked and fetched, then the posts stored in one transaction.
    private func storeBatch(_ inputs: [PostInput], seen: [String], pull: PulledLocation?) throws {
        let store = PostStore(workspace)
        let lookup = try store.photoObjectLookup()
        let statements = try PostStore.ImportStatements(store)
        // 1. Which photos are held as they are now, and which must be looked at.
        var posts = inputs
        var objects: [StorageObjectName?] = []
        var known: [StorageObjectName: PhotoObject] = [:]
        var check: [StorageObjectName] = []
        for index in posts.indices {
            guard let reference = posts[index].photo,
                let object = StorageObjectName(reference: reference)
            else {
                objects.append(nil)
                continue
            }
            posts[index].photo = object.reference
            objects.append(object)
            if known[object] != nil || check.contains(object) { continue }
            if let record = try lookup(object.bucket, object.name) {
                known[object] = record
                if !record.stale, folder.holds(record.file, bytes: record.bytes) { continue }
            }
            check.append(object)
        }
        var fetched: [StorageObjectName: StoragePhotoFetcher.Fetched] = [:]
        if !check.isEmpty {
            fetched = try photos.fetch(check, known: known)
        }
        var current: [StorageObjectName: PhotoObject] = [:]
        var saved: [PhotoObject] = []
        for (object, record) in known where !record.stale && !check.contains(object) {
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
        // 2. Which posts changed: their hash, with the photo's fingerprint, against the
        // stored one. Only those have their photos inspected.
        var incoming: [IncomingPost?] = []
        var inspect: [Int] = []
        var refused: [String] = []
        for (index, post) in posts.enumerated() {
            var item = IncomingPost(input: post, contentHash: "")
            if let object = objects[index] {
                switch fetched[object] {
                case .failed(let reason)?:
                    summary.refusedPosts.append((post.id, "cannot download its photo \(reason)"))
                    refused.append(post.id)
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
                    let stored = try statements.stored(post.id)
                    if stored?.contentHash != item.contentHash {
                        inspect.append(index)
                    }
                }
            } else if let reference = post.photo {
                item.problem = "\(reference) is not a Cloud Storage URL: not downloaded"
            }
            if item.contentHash.isEmpty {
                item.contentHash = PostImporter.contentHash(post, photoHash: nil)
            }
            incoming.append(item)
        }
        // 3. The photos of changed posts, on every core.
        if !inspect.isEmpty {
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
        let at = timestamp(now())
        try workspace.write {
            for object in saved { try store.savePhotoObject(object, at: at) }
            try importer.store(
                incoming.compactMap { $0 }, origin: location.origin, precision: precision,
                summary: &summary)
            if let pull {
                let markSeen = try store.seenWriter(pull: pull.id)
                for post in posts { try markSeen(post.id) }
                for id in seen { try markSeen(id) }
            }
            if let pull, summary.new + summary.updated + summary.returned.count > before {
                try store.setSignalsDue(pull.id, true)
            }
        }
        committed = true
        _ = refused
        progress(counts)
    }

    // MARK: - Photos changed in place

    /// Lists each bucket the workspace holds photos from (once, under the prefix its
    /// objects share), and marks an object whose generation or MD5 differs, or that is
    /// gone, to be looked at again: a photo replaced in the bucket under the same name is
    /// noticed without asking for every object's metadata.
    private func revalidatePhotos() throws {
        let store = PostStore(workspace)
        for (bucket, first, last) in try store.photoObjectRanges() {
            let prefix = String(
                decoding: zip(first.utf8, last.utf8).prefix { $0 == $1 }.map(\.0), as: UTF8.self)
            let next = try store.photoObjectCursor(in: bucket, prefix: prefix)
            var recorded = try next()
            var stale: [String] = []
            var previous: [UInt8]?
            var ordered = true
            var failure: String?
            let listed = Result { () throws(PullError) in
                try photos.list(bucket: bucket, prefix: prefix) { name, generation, md5 in
                    let listed = Array(name.utf8)
                    if let previous, !previous.lexicographicallyPrecedes(listed) { ordered = false }
                    previous = listed
                    guard ordered, failure == nil else { return }
                    do {
                        // Recorded objects before this one are not in the bucket any more.
                        while let object = recorded,
                            Array(object.name.utf8).lexicographicallyPrecedes(listed)
                        {
                            stale.append(object.name)
                            recorded = try next()
                        }
                        if let object = recorded, object.name == name {
                            if object.generation != generation || object.md5 != md5 {
                                stale.append(object.name)
                            }
                            recorded = try next()
                        }
                    } catch {
                        failure = "\(error)"
                    }
                }
            }
            if case .failure(let error) = listed {
                notes.append(
                    "\(error.description); photos replaced in gs://\(bucket) under the same "
                        + "name are not noticed by this run")
                continue
            }
            if let failure {
                throw PullError("cannot read the workspace's photo records: \(failure)")
            }
            guard ordered else {
                notes.append(
                    "gs://\(bucket) listed its objects out of order; photos replaced under the "
                        + "same name are not noticed by this run")
                continue
            }
            while let object = recorded {
                stale.append(object.name)
                recorded = try next()
            }
            if !stale.isEmpty {
                try workspace.write {
                    try store.markPhotoObjectsStale(bucket: bucket, names: stale)
                }
            }
        }
    }
}
