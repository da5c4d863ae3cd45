import Foundation
import Testing

@testable import TroveCLI
@testable import TroveCommandLine
@_spi(Testing) @testable import TroveKit
@_spi(Testing) @testable import TroveStore

/// A Storage bucket and a Realtime Database in memory, as a publish sees them: the
/// bucket keeps each object's bytes and download tokens, and the database stand-in
/// applies multi-path updates the way the Realtime Database does (a null deletes, and a
/// parent left empty vanishes). After every change it checks that each download URL in
/// the tree resolves to an object holding its token.
final class FakeCloud: StorageTransport, DatabaseTransport, @unchecked Sendable {
    struct Object: Equatable {
        var bytes: Data
        var contentType: String
        var cacheControl: String
        /// `firebaseStorageDownloadTokens`, comma-separated as Firebase keeps several.
        var tokens: String?
    }

    private let lock = NSLock()
    /// Objects by `bucket/name`.
    private(set) var objects: [String: Object] = [:]
    /// The database tree.
    private(set) var tree: [String: Any] = [:]
    /// Every object name uploaded, token-updated and deleted, in order.
    private(set) var uploaded: [String] = []
    private(set) var tokened: [String] = []
    private(set) var deleted: [String] = []
    /// Each transport call's object count, and each database request's size in bytes.
    private(set) var objectCalls: [Int] = []
    private(set) var requestSizes: [Int] = []
    /// URLs that did not resolve at some point, with what had just happened.
    private(set) var broken: [String] = []
    /// The operation (object or request, counted from 0) that fails, once.
    var failAt: Int?
    private(set) var operations = 0
    /// Called before each operation with its number, outside the lock.
    var beforeOperation: ((Int) -> Void)?

    private func operation() throws {
        let number = lock.withLock { () -> Int in
            defer { operations += 1 }
            return operations
        }
        beforeOperation?(number)
        if number == failAt {
            failAt = nil
            throw TransportError("connection reset (operation \(number))")
        }
    }

    func upload(_ objects: [StorageUpload], bucket: String, done: (String) -> Void) throws {
        lock.withLock { objectCalls.append(objects.count) }
        for object in objects {
            try operation()
            guard let bytes = FileManager.default.contents(atPath: object.file) else {
                throw TransportError("\(object.file): no such file")
            }
            lock.withLock {
                self.objects["\(bucket)/\(object.name)"] = Object(
                    bytes: bytes, contentType: object.contentType,
                    cacheControl: object.cacheControl, tokens: object.token)
                uploaded.append(object.name)
                check("after uploading \(object.name)")
            }
            done(object.name)
        }
    }

    func setTokens(
        _ tokens: [(name: String, token: String?)], bucket: String, done: (String) -> Void,
        missing: (String) -> Void
    ) throws {
        lock.withLock { objectCalls.append(tokens.count) }
        for (name, token) in tokens {
            try operation()
            let found = lock.withLock {
                guard objects["\(bucket)/\(name)"] != nil else { return false }
                objects["\(bucket)/\(name)"]?.tokens = token
                tokened.append(name)
                check("after setting the token of \(name)")
                return true
            }
            if found { done(name) } else { missing(name) }
        }
    }

    /// Every listing and database read, in order.
    private(set) var reads: [String] = []

    func list(prefix: String, bucket: String, page: ([StoredObject]) throws -> Void) throws {
        let listed = lock.withLock { () -> [StoredObject] in
            reads.append("list gs://\(bucket)/\(prefix)")
            return objects.filter { $0.key.hasPrefix("\(bucket)/\(prefix)") }.map {
                StoredObject(
                    name: String($0.key.dropFirst(bucket.count + 1)), tokens: $0.value.tokens)
            }.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        }
        // Pages of two, so that paging is exercised.
        var start = 0
        while start < listed.count {
            try page(Array(listed[start..<min(start + 2, listed.count)]))
            start += 2
        }
    }

    /// Reads as the REST API answers with `format=export`: keys ordered as the database
    /// orders them (here the stored keys are never integers), pages from `startAt`.
    func read(_ read: DatabaseRead, databaseURL: String) throws -> [UInt8] {
        let value = lock.withLock { () -> Any? in
            reads.append("read /\(read.path) \(read.startAt ?? "-") \(read.limit ?? 0)")
            var node: Any = tree
            for segment in read.path.split(separator: "/") {
                guard let object = node as? [String: Any], let next = object[String(segment)]
                else { return nil }
                node = next
            }
            guard let limit = read.limit else { return node }
            guard let object = node as? [String: Any] else { return nil }
            let keys = object.keys.filter { !$0.hasPrefix(".") }.sorted {
                $0.utf16.lexicographicallyPrecedes($1.utf16)
            }.filter { key in
                read.startAt.map { !key.utf16.lexicographicallyPrecedes($0.utf16) } ?? true
            }
            var page: [String: Any] = [:]
            for key in keys.prefix(limit) { page[key] = object[key] }
            return page.isEmpty ? nil : page
        }
        guard let value else { return Array("null".utf8) }
        return Array(
            try JSONSerialization.data(
                withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed]))
    }

    func delete(_ names: [String], bucket: String, done: (String) -> Void) throws {
        lock.withLock { objectCalls.append(names.count) }
        for name in names {
            try operation()
            lock.withLock {
                // One already gone counts as deleted.
                objects["\(bucket)/\(name)"] = nil
                deleted.append(name)
                check("after deleting \(name)")
            }
            done(name)
        }
    }

    func update(_ body: [UInt8], databaseURL: String) throws {
        try operation()
        let update = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
        guard let update else { throw TransportError("the body is not a JSON object") }
        lock.withLock {
            requestSizes.append(body.count)
            // One request applies atomically.
            for (path, value) in update {
                tree = Self.set(tree, path.split(separator: "/").map(String.init)[...], value)
            }
            check("after a database request")
        }
    }

    /// Removes an object behind the publish's back (a console delete).
    func remove(bucket: String, name: String) {
        lock.withLock { _ = objects.removeValue(forKey: "\(bucket)/\(name)") }
    }

    /// Applies an update file as firebase-tools would, for plans applied by hand.
    func apply(updateFile path: String) throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        try update(Array(bytes), databaseURL: "")
    }

    /// Puts an object in place directly, as another tool would.
    func put(bucket: String, name: String, file: String, tokens: String?) throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        lock.withLock {
            objects["\(bucket)/\(name)"] = Object(
                bytes: bytes, contentType: "", cacheControl: StoragePlan.cacheControl,
                tokens: tokens)
        }
    }

    /// The tree as sorted JSON text, to compare.
    var treeText: String {
        lock.withLock {
            let data = try? JSONSerialization.data(
                withJSONObject: tree, options: [.sortedKeys, .fragmentsAllowed])
            return data.map { String(decoding: $0, as: UTF8.self) } ?? ""
        }
    }

    /// The objects as `bucket/name tokens`, sorted, to compare.
    var objectList: [String] {
        lock.withLock {
            objects.map { "\($0.key) \($0.value.tokens ?? "-") \($0.value.bytes.count)" }.sorted()
        }
    }

    /// The value at `path` (segments joined by `/`), or nil.
    func value(at path: String) -> Any? {
        lock.withLock {
            var node: Any = tree
            for segment in path.split(separator: "/") {
                guard let object = node as? [String: Any], let next = object[String(segment)]
                else { return nil }
                node = next
            }
            return node
        }
    }

    private static func set(_ tree: [String: Any], _ path: ArraySlice<String>, _ value: Any)
        -> [String: Any]
    {
        var tree = tree
        guard let key = path.first else { return tree }
        if path.count == 1 {
            tree[key] = pruned(value)
        } else {
            let child = set(tree[key] as? [String: Any] ?? [:], path.dropFirst(), value)
            tree[key] = child.isEmpty ? nil : child
        }
        return tree
    }

    /// Nulls and empty objects are not stored.
    private static func pruned(_ value: Any) -> Any? {
        if value is NSNull { return nil }
        if let object = value as? [String: Any] {
            var kept: [String: Any] = [:]
            for (key, member) in object { kept[key] = pruned(member) }
            return kept.isEmpty ? nil : kept
        }
        return value
    }

    /// Every download URL in the tree must name an object holding its token.
    private func check(_ moment: String) {
        var strings: [String] = []
        func walk(_ node: Any) {
            if let object = node as? [String: Any] {
                object.values.forEach(walk)
            } else if let array = node as? [Any] {
                array.forEach(walk)
            } else if let text = node as? String {
                strings.append(text)
            }
        }
        walk(tree)
        for url in strings where url.hasPrefix("https://firebasestorage.googleapis.com/v0/b/") {
            guard let components = URLComponents(string: url) else { continue }
            let parts = components.percentEncodedPath.split(separator: "/")
            guard parts.count == 5,
                let name = String(parts[4]).removingPercentEncoding
            else {
                broken.append("\(url) (\(moment): unreadable)")
                continue
            }
            let key = "\(parts[2])/\(name)"
            let token = components.queryItems?.first { $0.name == "token" }?.value
            guard let object = objects[key] else {
                broken.append("\(url) (\(moment): no object)")
                continue
            }
            if let token,
                !(object.tokens ?? "").split(separator: ",").contains(Substring(token))
            {
                broken.append("\(url) (\(moment): the object lacks its token)")
            }
        }
    }
}

/// A workspace with treasures and posts whose renditions are files under build/images,
/// and two targets: `game` (flatirongo) and `litter` (trashmapper), in one bucket.
struct PublishFixture {
    let sandbox: Sandbox
    let cloud = FakeCloud()
    static let bucket = "trove-test"

    init() throws {
        sandbox = try Sandbox()
        #expect(sandbox.run("init").status == 0)
        // Exports name the same bucket as the targets.
        #expect(sandbox.run("config", "set", "storage.bucket", "gs://\(Self.bucket)").status == 0)
        let fixture = try Workspace(path: sandbox.workspace).fixture
        for (key, lat, lon) in [
            ("a", 40.70, -74.00), ("b", 40.71, -74.01), ("c", 40.72, -74.02), ("d", 40.73, -74.03),
        ] {
            try fixture.addTreasure(
                key, name: key.uppercased(), lat: lat, lon: lon, image: "/art/\(key).png")
        }
        for (id, user, lat, lon, description, date, status) in [
            ("ok", "ann", 40.7, -74.0, "Cans", "2024-01-24", "approved"),
            ("fine", "bob", 40.8, -74.1, "Bags", "2024-01-25", "approved"),
            ("wait", "bob", 40.7, -74.0, "Wait", "2024-01-26", "pending"),
        ] {
            try fixture.addPost(
                id, user: user, lat: lat, lon: lon, description: description, date: date,
                photo: "/p/\(id).jpg", status: status)
        }
        for key in ["a", "b", "c", "d"] {
            try setRendition("treasure", key, "full", source: "/art/\(key).png", version: 1)
        }
        for id in ["ok", "fine", "wait"] {
            try setRendition("post", id, "full", source: "/p/\(id).jpg", version: 1)
        }
        #expect(sandbox.run("geohash").status == 0)
        let game = sandbox.run(
            "publish", "target", "add", "game", "--database", "https://game-test.firebaseio.com",
            "--bucket", "gs://\(Self.bucket)", "--layout", "flatirongo")
        #expect(game.status == 0, "\(game.stderr)")
        let litter = sandbox.run(
            "publish", "target", "add", "litter", "--database",
            "https://litter-test.firebaseio.com/", "--bucket", "gs://\(Self.bucket)", "--layout",
            "trashmapper")
        #expect(litter.status == 0, "\(litter.stderr)")
    }

    /// Makes (or remakes) a rendition: its file under build/images, named by a hash of
    /// its content as `trove images` names them.
    func setRendition(
        _ kind: String, _ key: String, _ name: String, source: String, version: Int
    ) throws {
        let folder = kind == "treasure" ? "treasures" : "posts"
        let path =
            "\(folder)/\(key)/\(name)-\(String(format: "%08x", version * 7919 + key.count)).jpg"
        try sandbox.write("build/images/\(path)", "\(kind) \(key) \(name) v\(version)")
        try Workspace(path: sandbox.workspace).fixture.setRendition(
            kind, key, name, source: source, path: path, hash: "v\(version)")
    }

    /// The object path of a rendition now.
    func renditionPath(_ kind: String, _ key: String) throws -> String {
        let workspace = try Workspace(path: sandbox.workspace)
        return try workspace.testDatabase.scalar(
            "SELECT path FROM renditions WHERE owner_kind = ? AND owner_key = ?",
            [.text(kind), .text(key)])?.string ?? ""
    }

    /// Runs trove with the fake cloud as its transports.
    @discardableResult
    func run(_ arguments: String...) -> RunResult {
        run(arguments)
    }

    func run(_ arguments: [String]) -> RunResult {
        let out = CommandOutput(capturingAsTerminal: false)
        let err = CommandOutput(capturingAsTerminal: false)
        var context = Context(
            standardOutput: out, standardError: err, environment: ["USER": "tester"],
            currentDirectory: sandbox.folder.path)
        let cloud = self.cloud
        context.publishTransports = { _ in PublishTransports(storage: cloud, database: cloud) }
        let status = TroveCLI.run(arguments, context: context)
        return RunResult(status: status, stdout: out.text, stderr: err.text)
    }

    /// `trove publish` for a target, expected to succeed.
    @discardableResult
    func publish(_ target: String, sourceLocation: SourceLocation = #_sourceLocation)
        -> RunResult
    {
        let result = run("publish", "--target", target)
        #expect(result.status == 0, "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(cloud.broken.isEmpty, "\(cloud.broken)", sourceLocation: sourceLocation)
        return result
    }

    /// The objects the bucket holds, by name (without the bucket).
    var objectNames: Set<String> {
        Set(
            cloud.objectList.map {
                String($0.split(separator: " ")[0].dropFirst(Self.bucket.count + 1))
            })
    }
}
