import Foundation
import Testing
import TroveBase
import TroveImaging
@_spi(Testing) import TroveStore

@testable import TroveCLI
@testable import TroveKit

/// A workspace published for real: treasures with PNG artwork and posts with JPEG photos,
/// rendered by `trove images`, a target `game` (flatirongo) on a database stand-in and a
/// bucket of fake-gcs-server, reached through trove's own transports (the Storage JSON
/// API, the database's REST API); the real `gcloud` changes and checks the bucket by hand.
final class LivePublish {
    let sandbox: Sandbox
    let emulator: StorageEmulator
    let database: DatabaseStandIn
    static let bucket = "trove-live"
    static let stageBucket = "trove-stage"

    /// Whether the services can run here, and why not.
    static var isAvailable: Bool { StorageEmulator.isAvailable && DatabaseStandIn.isAvailable }
    static var skipReason: Comment {
        Comment(
            rawValue: StorageEmulator.unavailable
                ?? "python3 is not installed (the database stand-in needs it)")
    }

    /// The workspace, published once to `game`.
    init(treasures: Int = 4) throws {
        sandbox = try Sandbox()
        emulator = try StorageEmulator(buckets: [Self.bucket, Self.stageBucket])
        database = try DatabaseStandIn()
        var rows = "key,name,lat,lon,image\n"
        for index in 1...treasures {
            let key = Self.key(index)
            try sandbox.write("art/\(key).png", Data(Self.png(seed: index)))
            rows +=
                "\(key),Treasure \(index),\(40.7 + Double(index) / 100),-74.0\(index),art/\(key).png\n"
        }
        try sandbox.write("treasures.csv", rows)
        for (step, arguments) in [
            ["init"], ["import", "treasures", "treasures.csv"], ["geohash"], ["images"],
            [
                "publish", "target", "add", "game", "--database", database.url, "--bucket",
                "gs://\(Self.bucket)", "--layout", "flatirongo",
            ],
        ].enumerated() {
            let result = run(arguments)
            #expect(result.status == 0, "step \(step): \(result.stderr)")
        }
        publish()
    }

    static func key(_ index: Int) -> String { String(format: "lx-%03d", index) }

    /// A 300×280 RGB PNG that differs with `seed`.
    static func png(seed: Int) throws -> [UInt8] {
        try PNG.encode(PostPhotos.bitmap(width: 300, height: 280, seed: seed))
    }

    /// What points trove's transports and gcloud at the services.
    var environment: [String: String] {
        emulator.environment.merging(database.environment) { $1 }
    }

    /// Runs trove in-process against the services.
    @discardableResult
    func run(_ arguments: String...) -> RunResult { run(arguments) }

    func run(_ arguments: [String]) -> RunResult {
        sandbox.run(arguments, environment: environment)
    }

    /// `trove publish` (with `arguments`), expected to succeed.
    @discardableResult
    func publish(
        _ arguments: String..., sourceLocation: SourceLocation = #_sourceLocation
    ) -> RunResult {
        let result = run(["publish"] + arguments)
        #expect(result.status == 0, "\(result.stderr)", sourceLocation: sourceLocation)
        return result
    }

    /// The object path of a record's rendition `name`.
    func object(_ kind: String, _ key: String, _ name: String = "full") throws -> String {
        let workspace = try Workspace(path: sandbox.workspace)
        return try workspace.testDatabase.scalar(
            "SELECT path FROM renditions WHERE owner_kind = ? AND owner_key = ? AND name = ?",
            [.text(kind), .text(key), .text(name)])?.string ?? ""
    }

    /// The database at `path` of `database` (this one unless given), parsed.
    func value(at path: String, in database: DatabaseStandIn? = nil) throws -> Any? {
        var node = try (database ?? self.database).tree()
        for segment in path.split(separator: "/") {
            node = (node as? [String: Any])?[String(segment)]
        }
        return node
    }

    /// The token the tree's URL at `path` carries.
    func token(at path: String, in database: DatabaseStandIn? = nil) throws -> String? {
        guard let url = try value(at: path, in: database) as? String else { return nil }
        return URLComponents(string: url)?.queryItems?.first { $0.name == "token" }?.value
    }

    /// Runs the real gcloud against the emulator, expected to succeed.
    func gcloud(_ arguments: String..., sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        let result = try runTool(
            StorageEmulator.gcloud ?? "gcloud", arguments, environment: emulator.environment)
        #expect(
            result.status == 0, "gcloud \(arguments): \(result.stderr)",
            sourceLocation: sourceLocation)
    }

    /// Deletes an object with `gcloud storage rm`, as someone at a terminal would, and
    /// checks it is gone. (gcloud exits 1 against fake-gcs-server after the deletion, on a
    /// reply it does not parse, so the listing is what is checked.)
    func removeByHand(_ object: String, sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        _ = try runTool(
            StorageEmulator.gcloud ?? "gcloud",
            ["storage", "rm", "gs://\(Self.bucket)/\(object)"], environment: emulator.environment)
        #expect(try listing(Self.bucket)[object] == nil, sourceLocation: sourceLocation)
    }

    /// Every URL in the tree resolves to an object of the bucket holding its token, as
    /// the bucket's own listing (through the JSON API) shows it.
    func expectURLsResolve(
        in database: DatabaseStandIn? = nil, bucket: String = LivePublish.bucket,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let tree = try (database ?? self.database).tree()
        var urls: [String] = []
        func walk(_ node: Any?) {
            if let object = node as? [String: Any] {
                object.values.forEach(walk)
            } else if let array = node as? [Any] {
                array.forEach(walk)
            } else if let text = node as? String, text.hasPrefix("https://firebasestorage") {
                urls.append(text)
            }
        }
        walk(tree)
        let listed = try listing(bucket)
        for url in urls {
            let components = URLComponents(string: url)
            let parts = components?.percentEncodedPath.split(separator: "/") ?? []
            let name = parts.count == 5 ? String(parts[4]).removingPercentEncoding ?? "" : ""
            let token = components?.queryItems?.first { $0.name == "token" }?.value ?? ""
            #expect(
                parts.count == 5 && String(parts[2]) == bucket, "\(url)",
                sourceLocation: sourceLocation)
            #expect(
                listed[name]?.split(separator: ",").contains(Substring(token)) == true,
                "\(url): \(listed[name] ?? "no object")", sourceLocation: sourceLocation)
        }
    }

    /// The bucket's objects and their tokens, through trove's Storage transport.
    func listing(_ bucket: String) throws -> [String: String] {
        var objects: [String: String] = [:]
        let transport = try Transports.storage(CloudEnvironment(reading: emulator.environment))
        for prefix in ["treasures/", "posts/", ""] where objects.isEmpty || !prefix.isEmpty {
            try transport.list(prefix: prefix, bucket: bucket) { page in
                for object in page { objects[object.name] = object.tokens ?? "" }
            }
        }
        return objects
    }
}
