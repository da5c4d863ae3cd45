import Foundation
import TroveBase
import TroveHTTP
import TroveStore

/// Reading a location in pages.
///
/// A page of a flat location that comes back byte for byte as the last whole read had it
/// (its SHA-256, with the key it starts after and the number asked for), whose posts the
/// workspace still holds as that read stored them (a digest of their ids and content
/// hashes), and with no photo of the workspace's changed in the bucket since, is passed
/// over: its posts are only recorded as read. The rest of a pull with nothing changed is
/// then the database's answers and a look-up per post.
extension PostPull {
    /// What a page is, beside its posts: where it starts, its bytes' hash, its keys.
    struct PageFacts: Sendable {
        /// The key the page starts after (`""` for the first page).
        var start: String
        var hash: String
        var keys: [String]
    }

    /// What the fetching thread hands over.
    enum PageItem: Sendable {
        /// A page read into posts (`facts` when pages of this read may be passed over).
        case posts(PostFile, PageFacts?)
        /// A page whose bytes are the last whole read's: its children, unread, in case
        /// the workspace no longer holds what that read stored.
        case same(PageFacts, PageChildren)
        case tooLarge(String)
        case failed(PullError)
    }

    /// The children of a page passed as the same, still as the database answered them:
    /// read only if the page cannot be passed over after all.
    struct PageChildren: Sendable {
        let bytes: [UInt8]
        /// A key the answer holds that is not the page's (a backward page's bound).
        let excluding: String?

        /// The page's children.
        ///
        /// - Throws: `JSONSyntaxError`, which bytes a whole read parsed cannot raise.
        func value() throws -> JSONValue {
            var parser = JSONParser(bytes)
            var children = PostPull.children(try parser.parseValue())
            if let excluding { children.removeAll { $0.name == excluding } }
            return .object(children)
        }
    }

    /// An answer's children, each with its value, or, when the answer's bytes are those
    /// the last whole read had for the page (`same`), only their keys (values `null`):
    /// such a page is mostly passed over, and reading it into values costs more than
    /// anything else about it.
    struct Answer {
        var children: [JSONMember]
        /// The SHA-256 of the number asked for and the bytes, when pages may be passed over.
        var hash: String?
        var same = false
        var keysOnly = false
    }

    // MARK: - The location

    /// Reads the location a page at a time, in key order, and stores each page's posts.
    ///
    /// - Parameter known: the pages of the last whole read by where they start, which
    ///   may be passed over; nil when no page may be (its photos changed). Pages are
    ///   not recorded for a nested location.
    func readPages(pull: PulledLocation, known: [String: PulledPage]?, at: String) throws {
        let location = self.location
        switch location.shape {
        case .flat:
            let hashes = (known ?? [:]).mapValues(\.hash)
            try readChildren(
                [], size: pageSize, known: hashes,
                read: { try Self.posts(in: $0, wrapper: "Locations", location: location) }
            ) { item in
                switch item {
                case .posts(let file, let facts):
                    try ingestPage(file, facts, pull: pull, at: at)
                case .same(let facts, let children):
                    if let page = known?[facts.start],
                        try passOver(facts, page, pull: pull, at: at)
                    {
                        return
                    }
                    let file = try Self.posts(
                        in: try children.value(), wrapper: "Locations", location: location)
                    try ingestPage(file, facts, pull: pull, at: at)
                default: break
                }
            } tooLarge: { key in
                self.skip(key, "the record is larger than trove reads (32 MiB)")
            }
        case .nested:
            try readChildren(
                [], size: max(1, pageSize / 20), known: nil,
                read: { try Self.posts(in: $0, wrapper: "Users", location: location) }
            ) { item in
                if case .posts(let file, _) = item { try ingest(file, pull: pull) }
            } tooLarge: { user in
                try self.readUserInParts(user) { try self.ingest($0, pull: pull) }
            }
        }
    }

    /// Stores a page's posts, then, when every record of it became a post stored from
    /// here, records the page so that the next read may pass it over.
    ///
    /// What was read is counted, not recorded key by key: `readStored` posts of the
    /// location are stored from it (see `run`).
    private func ingestPage(
        _ file: PostFile, _ facts: PageFacts?, pull: PulledLocation, at: String
    ) throws {
        let refused = summary.refusedPosts.count
        let clean = pendingSeen.isEmpty && file.rejects.isEmpty
        let ids = file.posts.map(\.id) + file.rejects.compactMap(\.id) + pendingSeen
        try ingest(file, pull: pull, markSeen: false)
        let store = PostStore(workspace)
        let origin = location.origin
        let (stored, clock) = try workspace.read {
            (try store.storedContent(ids, origin: origin), try store.pullClock())
        }
        readStored += stored.count
        guard let facts, clean, summary.refusedPosts.count == refused,
            stored.count == facts.keys.count
        else { return }
        let page = PulledPage(
            start: facts.start, hash: facts.hash, digest: Self.digest(stored),
            passwords: file.droppedPasswords, emails: file.droppedEmails,
            names: file.droppedNames, clock: clock)
        try workspace.write { try store.savePage(page, pull: pull.id, at: at) }
    }

    /// Passes over a page that came back as the last whole read had it, when the
    /// workspace still holds its posts as that read stored them.
    ///
    /// - Returns: false when it does not, and the page is to be read.
    private func passOver(
        _ facts: PageFacts, _ page: PulledPage, pull: PulledLocation, at: String
    ) throws -> Bool {
        let store = PostStore(workspace)
        let origin = location.origin
        let clock = try workspace.read { () throws -> Int64? in
            // Nothing in the workspace changed since its posts were seen stored so.
            let clock = try store.pullClock()
            if clock == page.clock { return clock }
            let stored = try store.storedContent(facts.keys, origin: origin)
            guard stored.count == facts.keys.count, Self.digest(stored) == page.digest else {
                return nil
            }
            return clock
        }
        guard let clock else { return false }
        try workspace.write {
            try store.touchPage(pull: pull.id, start: facts.start, clock: clock, at: at)
        }
        readStored += facts.keys.count
        summary.unchanged += facts.keys.count
        summary.droppedPasswords += page.passwords
        summary.droppedEmails += page.emails
        summary.droppedNames += page.names
        counts.read += facts.keys.count
        progress(counts)
        return true
    }

    /// What the workspace stored from a page: its posts' ids, content hashes and photo
    /// paths (a photo folder that moved with the workspace is then no longer the same).
    static func digest(_ stored: [(id: String, contentHash: String, photo: String?)]) -> String {
        var text: [UInt8] = []
        for (id, content, photo) in stored.sorted(by: { $0.id < $1.id }) {
            text += Array(id.utf8) + [0x1F] + Array(content.utf8) + [0x1F]
            text += Array((photo ?? "").utf8) + [0x0A]
        }
        return SHA256.hex(text)
    }

    // MARK: - Every key

    /// Records every key of the location as read, from one `shallow=true` listing read as
    /// it arrives (a thousand keys at a time, never the whole listing in memory): for the
    /// withdrawals of a read whose pages were counted rather than recorded key by key.
    func recordEveryKey(pull: PulledLocation) throws {
        let store = PostStore(workspace)
        try workspace.write { try store.forgetSeen(pull: pull.id) }
        var failure: Error?
        let listing = KeyListing { keys in
            do {
                try self.workspace.write {
                    let markSeen = try store.seenWriter(pull: pull.id)
                    for key in keys { try markSeen(key) }
                }
                return true
            } catch {
                failure = error
                return false
            }
        }
        try reader.stream([], [URLQueryItem(name: "shallow", value: "true")], to: listing)
        if let failure { throw failure }
        guard listing.finish() else {
            throw PullError("cannot read \(location.origin): its key listing is not JSON")
        }
    }

    // MARK: - Pages by key

    /// Reads the children of `relative` in pages ordered by key (`orderBy="$key"`,
    /// `startAt`, `limitToFirst`), each a JSON object of at most `size` children; a page
    /// too large to hold is asked for again in halves, and a child too large alone goes to
    /// `tooLarge` by its key.
    ///
    /// The pages are fetched and read into posts (`read`) on a thread of their own, with
    /// a connection of its own, while the posts before are stored: at most two pages wait,
    /// so memory stays flat. With `known`, each page comes with its facts, and one whose
    /// hash is the one `known` holds for where it starts comes as `.same`, not read.
    func readChildren(
        _ relative: [String], size initial: Int, known: [String: String]? = nil,
        read: @escaping @Sendable (JSONValue) throws -> PostFile,
        page body: (PageItem) throws -> Void, tooLarge: (String) throws -> Void
    ) throws {
        let channel = BoundedChannel<PageItem>(capacity: 2)
        let (location, token, limit) = (location, reader.accessToken, reader.maxResponseBytes)
        let (fetchers, interrupted) = (self.fetchers, self.interrupted)
        let meeting = Meeting(channel: channel)
        for backward in [false, true] {
            let thread = Thread {
                let fetcher = LiveReader(
                    location: location, accessToken: token, maxResponseBytes: limit)
                let interrupter = fetcher.client.interrupter
                fetchers.withLock { $0.append(interrupter) }
                if interrupted.withLock({ $0 }) { interrupter.interrupt() }
                if backward {
                    Self.fetchPagesBackward(
                        fetcher, relative, size: initial, known: known, read: read,
                        meeting: meeting)
                } else {
                    Self.fetchPages(
                        fetcher, relative, size: initial, known: known, read: read,
                        meeting: meeting)
                }
                fetchers.withLock { $0.removeAll { $0 === interrupter } }
                meeting.finished()
            }
            thread.start()
        }
        defer { channel.cancel() }
        while let item = try channel.next() {
            switch item {
            case .tooLarge(let key): try tooLarge(key)
            case .failed(let error): throw error
            default: try body(item)
            }
        }
    }

    /// Where the two ends of a read have got to: the forward one claims the keys before
    /// the backward one's first, the backward one those after the forward one's last, so
    /// no key is read twice and none is missed; the channel closes when both ended. The
    /// backward read starts only once the forward one's first page came back full: a
    /// location that fits in a page is asked for once.
    final class Meeting: @unchecked Sendable {
        let channel: BoundedChannel<PageItem>
        private let lock = NSCondition()
        /// The forward read claimed its first page, or ended.
        private var begun = false
        private var forwardLast: String?
        private var backwardFirst: String?
        /// The forward read reached the end, or the backward one the start: all is read.
        private var done = false
        private var running = 2

        init(channel: BoundedChannel<PageItem>) { self.channel = channel }

        var isDone: Bool { lock.withLock { done } }

        /// The forward read's page: the children the backward read has not taken, and
        /// whether the forward read is to stop (it met the backward one). `last` says
        /// the page reached the end of the location.
        func claimForward(_ children: [JSONMember], last: Bool) -> (
            kept: [JSONMember], stop: Bool
        ) {
            lock.withLock {
                var kept = children
                if let first = backwardFirst {
                    kept = children.filter { DatabaseKeyOrder.precedes($0.name, first) }
                }
                if let top = kept.map(\.name).max(by: DatabaseKeyOrder.precedes) {
                    forwardLast = top
                }
                let stop = done || last || kept.count < children.count
                if stop { done = true }
                if !begun {
                    begun = true
                    lock.broadcast()
                }
                return (kept, stop)
            }
        }

        /// Waits for the forward read's first page; false when that page was the whole
        /// location (or the forward read ended), and the backward read is not needed.
        func awaitForward() -> Bool {
            lock.withLock {
                while !begun { lock.wait() }
                return !done
            }
        }

        /// The backward read's page, likewise; `last` says it reached the start.
        func claimBackward(_ children: [JSONMember], last: Bool) -> (
            kept: [JSONMember], stop: Bool
        ) {
            lock.withLock {
                guard !done else { return ([], true) }
                var kept = children
                if let top = forwardLast {
                    kept = children.filter { DatabaseKeyOrder.precedes(top, $0.name) }
                }
                if let first = kept.map(\.name).min(by: DatabaseKeyOrder.precedes) {
                    backwardFirst = first
                }
                let stop = last || kept.count < children.count
                if stop { done = true }
                return (kept, stop)
            }
        }

        /// One read ended; the second closes the channel.
        func finished() {
            let last = lock.withLock {
                running -= 1
                if !begun {
                    begun = true
                    lock.broadcast()
                }
                return running == 0
            }
            if last { channel.close() }
        }
    }

    /// The children of an answer for the page at `place`: only their keys when its bytes
    /// are those `known` holds for it, else each with its value.
    ///
    /// - Returns: nil when the answer is not JSON.
    private static func answer(
        _ bytes: [UInt8], place: String, size: Int, known: [String: String]?
    ) -> Answer? {
        var hash: String?
        if let known {
            let digest = SHA256.hex(Array("\(size)\n".utf8) + bytes)
            hash = digest
            if known[place] == digest, let keys = topLevelKeys(bytes) {
                return Answer(
                    children: keys.map { JSONMember(name: $0, value: .null) }, hash: digest,
                    same: true, keysOnly: true)
            }
        }
        var parser = JSONParser(bytes)
        guard let value = try? parser.parseValue() else { return nil }
        return Answer(
            children: children(value), hash: hash, same: hash != nil && known?[place] == hash)
    }

    /// A page as the fetching thread hands it on: read into posts, or passed as the same
    /// when its bytes are the last whole read's (whole pages only).
    private static func item(
        _ kept: [JSONMember], whole: Bool, place: String, answer: Answer, bytes: [UInt8],
        excluding: String?, read: (JSONValue) throws -> PostFile
    ) throws -> PageItem {
        guard whole, let hash = answer.hash else {
            guard answer.keysOnly else { return .posts(try read(.object(kept)), nil) }
            // Part of a page the last read had whole: its claimed children, read now.
            let names = Set(kept.map(\.name))
            var parser = JSONParser(bytes)
            let children = Self.children(try parser.parseValue()).filter {
                names.contains($0.name)
            }
            return .posts(try read(.object(children)), nil)
        }
        let facts = PageFacts(start: place, hash: hash, keys: kept.map(\.name))
        if answer.same { return .same(facts, PageChildren(bytes: bytes, excluding: excluding)) }
        return .posts(try read(.object(kept)), facts)
    }

    /// The keys of a JSON object's members, in the order written, its values stepped over
    /// unread; nil for anything but an object written as JSON.
    static func topLevelKeys(_ bytes: [UInt8]) -> [String]? {
        let count = bytes.count
        var index = 0
        func skipSpace() {
            while index < count,
                bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D
                    || bytes[index] == 0x09
            {
                index += 1
            }
        }
        /// The end of the string starting at `index` (past its closing quote), and
        /// whether it holds an escape.
        func stringEnd() -> (end: Int, escaped: Bool)? {
            var position = index + 1
            var escaped = false
            while position < count {
                switch bytes[position] {
                case 0x5C:
                    escaped = true
                    position += 2
                case 0x22: return (position + 1, escaped)
                default: position += 1
                }
            }
            return nil
        }
        var keys: [String] = []
        skipSpace()
        guard index < count, bytes[index] == 0x7B else { return nil }
        index += 1
        skipSpace()
        if index < count, bytes[index] == 0x7D {
            index += 1
            skipSpace()
            return index == count ? [] : nil
        }
        while true {
            skipSpace()
            guard index < count, bytes[index] == 0x22, let (end, escaped) = stringEnd() else {
                return nil
            }
            if escaped {
                var parser = JSONParser(Array(bytes[index..<end]))
                guard case .string(let key)? = try? parser.parseValue() else { return nil }
                keys.append(key)
            } else {
                keys.append(String(decoding: bytes[(index + 1)..<(end - 1)], as: UTF8.self))
            }
            index = end
            skipSpace()
            guard index < count, bytes[index] == 0x3A else { return nil }
            index += 1
            // The value, to the comma or brace that ends it.
            var depth = 0
            scan: while index < count {
                switch bytes[index] {
                case 0x22:
                    guard let (end, _) = stringEnd() else { return nil }
                    index = end
                    continue scan
                case 0x7B, 0x5B: depth += 1
                case 0x7D, 0x5D:
                    if depth == 0 { break scan }
                    depth -= 1
                case 0x2C where depth == 0: break scan
                default: break
                }
                index += 1
            }
            guard index < count else { return nil }
            if bytes[index] == 0x2C {
                index += 1
                continue
            }
            guard bytes[index] == 0x7D else { return nil }
            index += 1
            skipSpace()
            return index == count ? keys : nil
        }
    }

    /// The forward read of `readChildren`, on a fetching thread, from the start. Each page
    /// starts after the last key of the one before: at the smallest key that can follow
    /// it (`DatabaseKeyOrder.successor`), so no child is read twice. (A location holding
    /// both `5` and `05`, which the database orders as one number, would lose the
    /// second: no app writes such keys.) A page too large is asked for in halves, a child
    /// too large alone is named and stepped over.
    private static func fetchPages(
        _ reader: LiveReader, _ relative: [String], size initial: Int, known: [String: String]?,
        read: (JSONValue) throws -> PostFile, meeting: Meeting
    ) {
        let channel = meeting.channel
        let initial = max(1, initial)
        var size = initial
        var start: String?
        do {
            while !meeting.isDone {
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
                    guard let key = firstKey(head) else {
                        throw PullError(
                            "cannot read \(reader.location.origin): a record after "
                                + (start.map { "'\(printable($0))'" } ?? "the start")
                                + " is larger than trove reads, and its key cannot be told")
                    }
                    let (kept, stop) = meeting.claimForward(
                        [JSONMember(name: key, value: .null)], last: false)
                    if !kept.isEmpty { guard channel.send(.tooLarge(key)) else { return } }
                    if stop { return }
                    start = DatabaseKeyOrder.successor(key)
                case .value(let bytes):
                    let place = start ?? ""
                    guard let answer = answer(bytes, place: place, size: size, known: known)
                    else {
                        throw PullError(
                            "cannot read \(reader.location.origin): the answer is not JSON")
                    }
                    let children = answer.children
                    let last = children.map(\.name).max(by: DatabaseKeyOrder.precedes)
                    let (kept, stop) = meeting.claimForward(
                        children, last: children.count < size)
                    if !kept.isEmpty {
                        let item = try item(
                            kept, whole: kept.count == children.count, place: place,
                            answer: answer, bytes: bytes, excluding: nil, read: read)
                        guard channel.send(item) else { return }
                    }
                    guard !stop, let last else { return }
                    start = DatabaseKeyOrder.successor(last)
                    // After a page too large, pages that come back small grow again.
                    if size < initial, bytes.count < reader.maxResponseBytes / 8 {
                        size = min(initial, size * 2)
                    }
                }
            }
        } catch let error as PullError {
            _ = channel.send(.failed(error))
        } catch {
            _ = channel.send(.failed(PullError("\(error)")))
        }
    }

    /// The backward read of `readChildren`, on the other fetching thread, from the end
    /// (`endAt`, `limitToLast`), so that two answers are on their way at once and a
    /// large location takes half the round trips. It only helps: at the first page too
    /// large or the first failure it stops, and the forward read goes on to the end.
    private static func fetchPagesBackward(
        _ reader: LiveReader, _ relative: [String], size initial: Int, known: [String: String]?,
        read: (JSONValue) throws -> PostFile, meeting: Meeting
    ) {
        let channel = meeting.channel
        let size = max(1, initial)
        guard meeting.awaitForward() else { return }
        // The first key of the page before (inclusive: there is no key just before it).
        var end: String?
        while !meeting.isDone {
            var items = [URLQueryItem(name: "orderBy", value: "\"$key\"")]
            if let end { items.append(URLQueryItem(name: "endAt", value: jsonString(end))) }
            items.append(
                URLQueryItem(name: "limitToLast", value: String(size + (end == nil ? 0 : 1))))
            guard case .value(let bytes)? = try? reader.get(relative, items) else { return }
            let place = "<" + (end ?? "")
            guard let answer = answer(bytes, place: place, size: size, known: known) else {
                return
            }
            var children = answer.children
            if let end { children.removeAll { $0.name == end } }
            let first = children.map(\.name).min(by: DatabaseKeyOrder.precedes)
            let (kept, stop) = meeting.claimBackward(children, last: children.count < size)
            if !kept.isEmpty {
                guard
                    let item = try? item(
                        kept, whole: kept.count == children.count, place: place,
                        answer: answer, bytes: bytes, excluding: end, read: read),
                    channel.send(item)
                else { return }
            }
            guard !stop, let first else { return }
            end = first
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

    // MARK: - Records into posts

    /// A page's posts, read as a file import reads an export holding `wrapper`.
    func posts(in page: JSONValue, wrapper: String) throws -> PostFile {
        try Self.posts(in: page, wrapper: wrapper, location: location)
    }

    static func posts(in page: JSONValue, wrapper: String, location: LiveLocation) throws
        -> PostFile
    {
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
            let (location, name) = (self.location, field.name)
            try readChildren(
                [user, field.name], size: pageSize,
                read: { page in
                    let node = JSONValue.object([
                        JSONMember(
                            name: user, value: .object([JSONMember(name: name, value: page)]))
                    ])
                    return try Self.posts(in: node, wrapper: "Users", location: location)
                }
            ) { item in
                if case .posts(let file, _) = item { try body(file) }
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
}

/// The keys of a `shallow=true` answer (`{"KEY":true,…}`), read as they arrive and handed
/// on a thousand at a time.
final class KeyListing: HTTPResponseHandler {
    private let take: ([String]) -> Bool
    private var status = 0
    private var keys: [String] = []
    /// Where in the text the scan is.
    private enum State {
        case open, beforeKey, key, afterKey, value
    }
    private var state = State.open
    private var key: [UInt8] = []
    private var escaped = false
    private var broken = false
    private var ended = false

    init(_ take: @escaping ([String]) -> Bool) { self.take = take }

    func head(_ head: HTTPResponseHead) -> Bool {
        status = head.status
        keys = []
        state = .open
        key = []
        broken = false
        ended = false
        return true
    }

    func body(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard (200..<300).contains(status) else { return true }
        for byte in bytes where !broken {
            switch state {
            case .open:
                if byte == 0x7B {
                    state = .beforeKey
                } else if byte == 0x6E {
                    // `null`: an empty location.
                    ended = true
                    state = .value
                } else if !Self.isSpace(byte) {
                    broken = true
                }
            case .beforeKey:
                if byte == 0x22 {
                    state = .key
                    key = [0x22]
                } else if byte == 0x7D {
                    ended = true
                } else if !Self.isSpace(byte) && byte != 0x2C {
                    broken = true
                }
            case .key:
                key.append(byte)
                if escaped {
                    escaped = false
                } else if byte == 0x5C {
                    escaped = true
                } else if byte == 0x22 {
                    var parser = JSONParser(key)
                    guard let text = (try? parser.parseValue())?.stringValue else {
                        broken = true
                        break
                    }
                    keys.append(text)
                    state = .afterKey
                }
            case .afterKey:
                if byte == 0x3A { state = .value } else if !Self.isSpace(byte) { broken = true }
            case .value:
                if byte == 0x2C {
                    state = .beforeKey
                } else if byte == 0x7D {
                    ended = true
                }
            }
            if keys.count >= 1000 {
                guard take(keys) else { return false }
                keys.removeAll(keepingCapacity: true)
            }
        }
        return !broken
    }

    /// Hands on the last keys; false when the answer was not a listing.
    func finish() -> Bool {
        guard !broken, ended else { return false }
        if !keys.isEmpty { return take(keys) }
        return true
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}
