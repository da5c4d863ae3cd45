import Foundation
import TroveBase
import TroveSQLite
import TroveStore

/// What a target really holds, read for `publish --refresh`: every path of its database
/// at the layout's shapes (`treasureLocations/KEY`, `users/USER/taggedLocations/KEY`) with
/// a hash of its value as the database stores it, and every object of its bucket under the
/// layout's prefix (`treasures/`, `posts/`) with its download tokens.
///
/// The database is read location by location, a page of children at a time (its REST
/// queries `orderBy="$key"`, `startAt`, `limitToFirst`, pages sized to a few megabytes),
/// never as one answer; the bucket a listing page at a time. Both go into a scratch store
/// as they come, so a million paths cost the same memory as a hundred.
final class LiveTarget {
    let store: LiveStateStore
    /// Paths and objects read.
    private(set) var paths = 0
    private(set) var objects = 0

    /// Reads `target`'s database and bucket.
    ///
    /// - Parameter folder: where the scratch store's file goes (`TMPDIR`).
    /// - Throws: `TransportError`, `PublishError.input` when an answer is not JSON,
    ///   `SQLiteError`, `FileWriteError`.
    init(
        target: PublishTarget, layout: Layout, workspace: Workspace,
        storage: any StorageTransport, database: any DatabaseTransport, folder: String
    ) throws {
        store = try LiveStateStore(workspace, folder: folder)
        // The bucket is listed on a thread of its own while the database is read, its
        // pages waiting in a short queue for this thread to store.
        let listed = BoundedChannel<Result<[StoredObject], TransportError>>(capacity: 16)
        let listing =
            layout.renditionNames.isEmpty
            ? nil
            : Worker<Void> { [prefix = layout.objectPrefix, bucket = target.bucket] in
                defer { listed.close() }
                do {
                    try storage.list(prefix: prefix, bucket: bucket) { page in
                        if !listed.send(.success(page)) { throw Cancelled() }
                    }
                } catch let error as TransportError {
                    _ = listed.send(.failure(error))
                }
            }
        defer {
            listed.cancel()
            _ = try? listing?.wait()
        }
        do {
            var reader = LiveDatabaseReader(transport: database, databaseURL: target.databaseURL)
            try reader.read(shapes: layout.pathShapes) { entries in
                try store.batch {
                    for (path, hash) in entries {
                        try store.addPath(path, hash: hash)
                        paths += 1
                    }
                }
            }
            while let page = try listed.next() {
                let objects = try page.get()
                try store.batch {
                    for object in objects {
                        try store.addObject(object.name, tokens: object.tokens)
                    }
                }
                self.objects += objects.count
            }
        } catch {
            store.detach()
            throw error
        }
    }

    /// Thrown into a listing whose reader stopped.
    private struct Cancelled: Error {}

    func close() { store.detach() }
}

extension Layout {
    /// Each path template as segments: the literal's text, or nil where any key goes.
    var pathShapes: [[String?]] {
        paths.map { template in
            template.segments.map { segment -> String? in
                if case .literal(let text) = segment { return text }
                return nil
            }
        }
    }

    /// Where the objects of the layout's records lie in a bucket (`treasures/`).
    var objectPrefix: String {
        (records == .treasures ? RenditionOwner.treasure : .post).folder + "/"
    }
}

/// Reads the paths of a database at given shapes, a page at a time.
struct LiveDatabaseReader {
    let transport: any DatabaseTransport
    let databaseURL: String
    /// Children asked for in the next page; adapted so a page holds a few megabytes.
    var pageSize = 1000
    /// What a page is sized to hold, from the bytes per child of the page before; nil
    /// keeps `pageSize` as it is.
    var pageBytes: Int? = 1024 * 1024
    static let pageSizes = 10...50_000

    /// Hands `page` every path at one of `shapes` (segments, nil for any key) with the
    /// hash of its value (`CanonicalValue`; paths holding nothing are left out), location
    /// by location, the paths of one answer at a time.
    ///
    /// - Throws: `TransportError`, `PublishError.input`, or what `page` throws.
    mutating func read(shapes: [[String?]], page: ([(String, UInt64)]) throws -> Void) throws {
        try read(at: [], shapes: shapes.map { $0[...] }, page: page)
    }

    private mutating func read(
        at location: [String], shapes: [ArraySlice<String?>],
        page: ([(String, UInt64)]) throws -> Void
    ) throws {
        let path = location.joined(separator: "/")
        if shapes.contains(where: \.isEmpty) {
            // The location is itself a path of the layout.
            let value = try Self.parse(
                try transport.read(DatabaseRead(path: path), databaseURL: databaseURL), path)
            if let hash = CanonicalValue.hash(value) { try page([(path, hash)]) }
            return
        }
        if shapes.allSatisfy({ $0.first! != nil }) {
            // Literal segments: only the children named are read, one by one.
            var literals: [String] = []
            for shape in shapes where !literals.contains(shape.first!!) {
                literals.append(shape.first!!)
            }
            for literal in literals.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
                try read(
                    at: location + [literal],
                    shapes: shapes.filter { $0.first! == literal }.map { $0.dropFirst() },
                    page: page)
            }
            return
        }
        // Some key goes here: the location's children, a page at a time in key order. A
        // thread of its own asks for the pages one after another, reads and hashes each
        // and asks for the next as soon as it knows where that starts, up to a few pages
        // ahead of this thread's storing: the database never waits on trove's bookkeeping.
        let pages = BoundedChannel<Result<[(String, UInt64)], any Error>>(capacity: 4)
        let producer = Worker { [transport, databaseURL, pageSize, pageBytes] () -> Int in
            defer { pages.close() }
            var size = pageSize
            var startAt: String?
            do {
                while true {
                    let answer = try Self.page(
                        path, shapes: shapes, startAt: startAt, limit: size,
                        transport: transport, databaseURL: databaseURL)
                    guard var children = answer.children else { return size }
                    let received = children.count
                    if let startAt { children.removeAll { $0.name == startAt } }
                    let last =
                        received >= answer.asked
                        ? children.lazy.map(\.name).max(by: DatabaseKeyOrder.precedes) : nil
                    if last != nil, let pageBytes {
                        // As many children as fill a page at this page's bytes per child.
                        let wanted = pageBytes / max(answer.bytes / max(received, 1), 1)
                        size = min(
                            max(wanted, Self.pageSizes.lowerBound), Self.pageSizes.upperBound)
                    }
                    if !pages.send(.success(children.flatMap(\.entries))) { return size }
                    guard let last else { return size }
                    startAt = last
                }
            } catch {
                _ = pages.send(.failure(error))
                return size
            }
        }
        defer {
            pages.cancel()
            _ = try? producer.wait()
        }
        while let entries = try pages.next() { try page(entries.get()) }
        pageSize = try producer.wait()
    }

    /// One page of a location's children, read and hashed.
    final class Page: @unchecked Sendable {
        /// The children in the answer's order (the database's own `.` members left out),
        /// each with the paths under it at the shapes; nil when the location holds no
        /// object.
        let children: [Child]?
        let bytes: Int
        let startAt: String?
        let asked: Int

        init(children: [Child]?, bytes: Int, startAt: String?, asked: Int) {
            self.children = children
            self.bytes = bytes
            self.startAt = startAt
            self.asked = asked
        }
    }

    struct Child {
        let name: String
        var entries: [(String, UInt64)] = []
    }

    /// Reads a page of `path`'s children from `startAt` on and hashes the paths under
    /// them at `shapes`.
    private static func page(
        _ path: String, shapes: [ArraySlice<String?>], startAt: String?, limit: Int,
        transport: any DatabaseTransport, databaseURL: String
    ) throws -> Page {
        let asked = limit + (startAt == nil ? 0 : 1)
        let bytes = try transport.read(
            DatabaseRead(path: path, startAt: startAt, limit: asked), databaseURL: databaseURL)
        return Page(
            children: try children(bytes, path, shapes: shapes), bytes: bytes.count,
            startAt: startAt, asked: asked)
    }

    /// The children of an answer with their paths hashed. An object's members are found
    /// in its text and a child that is itself a path is hashed from its own bytes
    /// (`CanonicalText`), so most pages are never read into a tree; anything else (an
    /// array, a name with escapes, a deeper shape) goes through the tree.
    static func children(_ bytes: [UInt8], _ path: String, shapes: [ArraySlice<String?>])
        throws -> [Child]?
    {
        func hashed(_ name: String, value: () throws -> JSONValue, text: ArraySlice<UInt8>?)
            throws -> Child
        {
            var child = Child(name: name)
            let childPath = path.isEmpty ? name : path + "/" + name
            for shape in shapes {
                if let wanted = shape.first!, wanted != name { continue }
                let rest = shape.dropFirst()
                if rest.isEmpty, let text {
                    let hash = text.withUnsafeBufferPointer { text in
                        CanonicalText.canonical(text).map { $0.withUnsafeBufferPointer(valueHash) }
                    }
                    if let hash {
                        child.entries.append((childPath, hash))
                        continue
                    }
                }
                var values: [(String, JSONValue)] = []
                walk(try value(), rest, childPath, into: &values)
                for (path, value) in values {
                    if let hash = CanonicalValue.hash(value) { child.entries.append((path, hash)) }
                }
            }
            return child
        }
        if let members = JSONMembers.split(bytes) {
            var children: [Child] = []
            children.reserveCapacity(members.count)
            for member in members where !member.name.hasPrefix(".") {
                let text = bytes[member.value]
                children.append(
                    try hashed(
                        member.name,
                        value: {
                            var parser = JSONParser(Array(text))
                            guard let value = try? parser.parseValue(), parser.atEnd() else {
                                // Say where, in the answer as a whole.
                                _ = try parse(bytes, path)
                                throw PublishError.input(
                                    "the database's answer for /\(path) is not JSON")
                            }
                            return value
                        }, text: text))
            }
            return children
        }
        guard let members = members(of: try parse(bytes, path)) else { return nil }
        return try members.filter { !$0.name.hasPrefix(".") }.map { member in
            try hashed(member.name, value: { member.value }, text: nil)
        }
    }

    /// The paths under `value` (at `path`) at the rest of a shape.
    private static func walk(
        _ value: JSONValue, _ shape: ArraySlice<String?>, _ path: String,
        into entries: inout [(String, JSONValue)]
    ) {
        guard let segment = shape.first else {
            entries.append((path, value))
            return
        }
        guard let members = Self.members(of: value) else { return }
        for member in members where !member.name.hasPrefix(".") {
            if let segment, segment != member.name { continue }
            walk(member.value, shape.dropFirst(), path + "/" + member.name, into: &entries)
        }
    }

    /// The children of an object, or of an array as the database returns an object whose
    /// keys are indexes; nil for anything else.
    static func members(of value: JSONValue) -> [JSONMember]? {
        switch value {
        case .object(let members): return members
        case .array(let elements):
            return elements.enumerated().compactMap { index, element in
                element == .null ? nil : JSONMember(name: String(index), value: element)
            }
        default: return nil
        }
    }

    private static func parse(_ bytes: [UInt8], _ path: String) throws -> JSONValue {
        var parser = JSONParser(bytes)
        do {
            return try parser.parseValue()
        } catch {
            throw PublishError.input(
                "the database's answer for /\(path) is not JSON (\(error.message) at line "
                    + "\(error.line))")
        }
    }
}

/// A value as the Realtime Database stores it, hashed: the same for a rendered value and
/// for what the database answers with it, whatever the member order, number spelling or
/// array form. Nulls and empty objects are nothing; arrays are the objects of their
/// indexes; numbers are doubles; priorities (`.priority`, and `.value` beside one on a
/// leaf, as `format=export` writes them) are kept.
enum CanonicalValue {
    /// The hash of `value`, or nil when the database would store nothing.
    static func hash(_ value: JSONValue) -> UInt64? {
        var bytes: [UInt8] = []
        guard append(value, to: &bytes) else { return nil }
        return bytes.withUnsafeBufferPointer(valueHash)
    }

    /// The hash of a rendered value's JSON text, or nil when it stores nothing.
    static func hash(json: UnsafeBufferPointer<UInt8>) -> UInt64? {
        if let text = CanonicalText.canonical(json) {
            return text.withUnsafeBufferPointer(valueHash)
        }
        var parser = JSONParser(Array(json))
        guard let value = try? parser.parseValue() else { return nil }
        return hash(value)
    }

    /// Appends the canonical text of `value`; false (nothing appended) when it is nothing.
    private static func append(_ value: JSONValue, to bytes: inout [UInt8]) -> Bool {
        switch value {
        case .null: return false
        case .bool(let flag): bytes.append(contentsOf: flag ? "true".utf8 : "false".utf8)
        case .number(let text):
            guard let number = Double(text) else { return false }
            JSONText.appendNumber(number, to: &bytes)
        case .string(let text): JSONText.appendString(text, to: &bytes)
        case .array(let elements):
            return appendObject(
                elements.enumerated().map {
                    JSONMember(name: String($0.offset), value: $0.element)
                },
                to: &bytes)
        case .object(let members):
            return appendObject(members, to: &bytes)
        }
        return true
    }

    private static func appendObject(_ members: [JSONMember], to bytes: inout [UInt8]) -> Bool {
        // Members in strictly ascending name order (as the database answers, and as trove
        // renders) are taken as they are; others are ordered, the last of a repeated name
        // counting, as the database's parser takes it.
        var ordered = members
        if !zip(members, members.dropFirst()).allSatisfy({
            $0.name.utf8.lexicographicallyPrecedes($1.name.utf8)
        }) {
            var byName: [String: JSONValue] = [:]
            for member in members { byName[member.name] = member.value }
            ordered = byName.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map {
                JSONMember(name: $0, value: byName[$0]!)
            }
        }
        let start = bytes.count
        bytes.append(UInt8(ascii: "{"))
        var written = 0
        var onlyPriority = true
        for member in ordered {
            let name = member.name
            let mark = bytes.count
            if written > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONText.appendString(name, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            if append(member.value, to: &bytes) {
                written += 1
                if name != ".priority" { onlyPriority = false }
            } else {
                bytes.removeLast(bytes.count - mark)
            }
        }
        // An object of nothing but a priority holds no value.
        guard written > 0, !onlyPriority else {
            bytes.removeLast(bytes.count - start)
            return false
        }
        bytes.append(UInt8(ascii: "}"))
        return true
    }
}
