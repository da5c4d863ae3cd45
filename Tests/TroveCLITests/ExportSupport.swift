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
        let workspace = try Workspace(path: sandbox.workspace)
        try workspace.testDatabase.execute(
            """
            INSERT INTO treasures (key, name, lat, lon, description, image, extra) VALUES
              ('hairy-harry', 'Hairy Harry', 40.7128, -74.006, 'A bull', '/art/harry.png',
               '{"points":"10"}'),
              ('bull', 'Bull', 40.70553, -74.01339, NULL, 'https://example.com/bull.jpg', NULL),
              ('plain', 'Plain "quoted" ✓', 0.5, 41.0, NULL, NULL, NULL);
            INSERT INTO renditions VALUES
              ('treasure', 'hairy-harry', 'full', '/art/harry.png', 'h', 's',
               'treasures/hairy-harry/full-3fa2c9e1.png', 1024, 768, 1000, 'hh', 'x'),
              ('post', 'p1', 'full', '/photos/p1.jpg', 'h', 's',
               'posts/p1/full-0badf00d.jpg', 1600, 1200, 2000, 'pp', 'x');
            INSERT INTO posts (id, user, lat, lon, description, date, photo, content_hash,
                               status, imported_at, updated_at) VALUES
              ('p1', 'alice', 40.7, -74.0, 'Bottles', '2024-01-24T10:00:00Z', '/photos/p1.jpg',
               'c', 'approved', 'x', 'x'),
              ('p2', 'bob', 40.71, -74.01, 'Secret', '2024-01-25T10:00:00Z', NULL, 'c',
               'pending', 'x', 'x'),
              ('p3', 'alice', 40.72, -74.02, 'Spam', '2024-01-26T10:00:00Z', NULL, 'c',
               'rejected', 'x', 'x'),
              ('p4', 'bob', 51.5, -0.125, NULL, '2024-02-01T08:30:00Z', NULL, 'c',
               'approved', 'x', 'x');
            """)
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
