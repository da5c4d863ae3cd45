import Foundation
import Testing

@_spi(Testing) @testable import TroveStore

/// Builds small export workspaces and applies multi-path updates the way Firebase does.
enum ExportSupport {
    /// A workspace with three treasures (local image with a rendition, remote image, no
    /// image) and four posts (two approved, one pending, one rejected), geohashed.
    static func makeWorkspace(_ sandbox: Sandbox) throws {
        #expect(sandbox.run("init").status == 0)
        #expect(
            sandbox.run("config", "set", "storage.bucket", "flatiron-go.appspot.com").status == 0)
        // Tokens are random per workspace; the golden trees show the URLs without them
        // (StorageTests covers tokens).
        #expect(sandbox.run("config", "set", "storage.tokens", "off").status == 0)
        let fixture = try Workspace(path: sandbox.workspace).fixture
        try fixture.addTreasure(
            "hairy-harry", name: "Hairy Harry", lat: 40.7128, lon: -74.006,
            description: "A bull", image: "/art/harry.png", extra: #"{"points":"10"}"#)
        try fixture.addTreasure(
            "bull", name: "Bull", lat: 40.70553, lon: -74.01339,
            image: "https://example.com/bull.jpg")
        try fixture.addTreasure("plain", name: #"Plain "quoted" ✓"#, lat: 0.5, lon: 41.0)
        try fixture.setRendition(
            "treasure", "hairy-harry", "full", source: "/art/harry.png",
            path: "treasures/hairy-harry/full-3fa2c9e1.png", width: 1024, height: 768,
            bytes: 1000, hash: "hh")
        try fixture.setRendition(
            "post", "p1", "full", source: "/photos/p1.jpg", path: "posts/p1/full-0badf00d.jpg",
            width: 1600, height: 1200, bytes: 2000, hash: "pp")
        try fixture.addPost(
            "p1", user: "alice", lat: 40.7, lon: -74.0, description: "Bottles",
            date: "2024-01-24T10:00:00Z", photo: "/photos/p1.jpg", status: "approved")
        try fixture.addPost(
            "p2", user: "bob", lat: 40.71, lon: -74.01, description: "Secret",
            date: "2024-01-25T10:00:00Z", status: "pending")
        try fixture.addPost(
            "p3", user: "alice", lat: 40.72, lon: -74.02, description: "Spam",
            date: "2024-01-26T10:00:00Z", status: "rejected")
        try fixture.addPost(
            "p4", user: "bob", lat: 51.5, lon: -0.125, date: "2024-02-01T08:30:00Z",
            status: "approved")
        #expect(sandbox.run("geohash").status == 0)
    }

    static func read(_ path: String) throws -> String {
        String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
    }

    static func parse(_ text: String) throws -> ExportJSON {
        try ExportJSON(parsing: text)
    }

    /// Applies a multi-path update: each key is a path; its value replaces what is there,
    /// `null` deletes, and objects left empty disappear.
    static func apply(_ update: ExportJSON, to tree: ExportJSON) -> ExportJSON {
        guard let members = update.objectValue else { return tree }
        var result = tree
        for (path, value) in members {
            let segments = path.split(separator: "/").map(String.init)
            result = set(value, at: segments[...], in: result) ?? .object([:])
        }
        return result
    }

    private static func set(_ value: ExportJSON, at path: ArraySlice<String>, in tree: ExportJSON)
        -> ExportJSON?
    {
        guard let first = path.first else {
            return value == .null ? nil : value
        }
        var members = tree.objectValue ?? [:]
        members[first] = set(value, at: path.dropFirst(), in: members[first] ?? .null)
        return members.isEmpty ? nil : .object(members)
    }
}
