import Foundation
import Testing
import TroveSQLite

@testable import TroveCLI
@_spi(Testing) @testable import TroveStore

/// Migration 011 on a workspace made before it: posts, decisions and indexes are kept,
/// every post gets its first version, and `withdrawn` becomes a status the table takes.
@Suite struct ModerationMigrationTests {
    @Test func aWorkspaceBeforeVersionsKeepsItsPostsAndTakesWithdrawn() throws {
        let sandbox = try Sandbox()
        let database = try Workspace.testDatabase(at: sandbox.workspace)
        let before = Array(Schema.migrator.migrations.prefix { !$0.name.hasPrefix("011-") })
        try Migrator(before).migrate(database)
        // SQL: rows in the schema before 011, and its status check, which no command reaches.
        try database.execute(
            """
            INSERT INTO posts (id, user, lat, lon, description, content_hash, status,
                               imported_at, updated_at)
            VALUES ('p1', 'u1', 40.7, -74, 'cans', 'abcdef0123456789', 'approved',
                    '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z');
            INSERT INTO decisions (post_id, at, moderator, from_status, to_status)
            VALUES ('p1', '2026-01-01T00:00:00Z', 'ann', 'pending', 'approved');
            """)
        #expect(throws: SQLiteError.self) {
            try database.execute("UPDATE posts SET status = 'withdrawn'")
        }
        let indexes = try database.query(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'posts' ORDER BY name"
        ) { $0.text(0) ?? "" }
        for _ in 1...2 {
            let shown = sandbox.run("review", "show", "p1")
            #expect(shown.status == 0, "\(shown.stderr)")
            #expect(shown.stdout.contains("version:     abcdef012345"))
            #expect(sandbox.run("review", "log").stdout.contains("p1  ann  pending → approved"))
        }
        let migrated = try Workspace.testDatabase(at: sandbox.workspace)
        // The writes under test: the migrated table's status check, which SQL alone can probe.
        try migrated.execute("UPDATE posts SET status = 'withdrawn' WHERE id = 'p1'")
        #expect(throws: SQLiteError.self) {
            try migrated.execute("UPDATE posts SET status = 'gone' WHERE id = 'p1'")
        }
        #expect(
            try migrated.query(
                "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'posts' "
                    + "AND name <> 'posts_origin' ORDER BY name"
            ) { $0.text(0) ?? "" } == indexes)
        #expect(try migrated.scalar("PRAGMA integrity_check") == .text("ok"))
        #expect(
            try migrated.scalar("SELECT version FROM post_versions WHERE post_id = 'p1'")
                == .text("abcdef012345"))
    }

    /// Migration 026 on a trail written before entries had kinds: what imports recorded
    /// as moderator 'trove' is credited to the post's user (a withdrawal, a return) or to
    /// the import (a reopening), an undo written as a reversal noted 'undo' or 'undone'
    /// is an undo of the decision before it, and the trail stays append-only.
    @Test func anOlderTrailCreditsUsersAndTheImportAndKnowsItsUndos() throws {
        let sandbox = try Sandbox()
        let database = try Workspace.testDatabase(at: sandbox.workspace)
        let before = Array(Schema.migrator.migrations.prefix { !$0.name.hasPrefix("026-") })
        try Migrator(before).migrate(database)
        // SQL: a trail as trove wrote it before 026, which no command writes now.
        try database.execute(
            """
            INSERT INTO posts (id, user, lat, lon, description, content_hash, status,
                               imported_at, updated_at)
            VALUES ('p1', 'u1', 40.7, -74, 'cans', 'abcdef0123456789', 'pending',
                    '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z'),
                   ('p2', 'u2', 40.7, -74, 'cans', 'bbcdef0123456789', 'approved',
                    '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z');
            INSERT INTO decisions (post_id, at, moderator, from_status, to_status, note, version)
            VALUES ('p1', '2026-01-02T00:00:00Z', 'ann', 'pending', 'approved', NULL, 'abcdef012345'),
                   ('p1', '2026-01-03T00:00:00Z', 'trove', 'approved', 'withdrawn',
                    'no longer in export.json', 'abcdef012345'),
                   ('p1', '2026-01-04T00:00:00Z', 'trove', 'withdrawn', 'pending',
                    'back in export.json:3 after it was withdrawn', 'abcdef012345'),
                   ('p1', '2026-01-05T00:00:00Z', 'bob', 'pending', 'rejected', NULL, 'abcdef012345'),
                   ('p1', '2026-01-05T00:01:00Z', 'bob', 'rejected', 'pending', 'undone', 'abcdef012345'),
                   ('p2', '2026-01-02T00:00:00Z', 'kim', 'pending', 'flagged', 'look', 'bbcdef012345'),
                   ('p2', '2026-01-02T00:01:00Z', 'kim', 'flagged', 'pending', 'undo', 'bbcdef012345'),
                   ('p2', '2026-01-03T00:00:00Z', 'kim', 'pending', 'approved', NULL, 'bbcdef012345'),
                   ('p2', '2026-01-04T00:00:00Z', 'trove', 'approved', 'pending',
                    'content changed after it was approved (description); re-imported from a.csv:2',
                    'bbcdef012345'),
                   ('p2', '2026-01-05T00:00:00Z', 'lea', 'pending', 'approved', 'undo', 'bbcdef012345');
            """)
        let shown = sandbox.run("review", "log", "--format", "json")
        #expect(shown.status == 0, "\(shown.stderr)")
        let entries =
            try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [[String: Any]]
            ?? []
        #expect(
            entries.map { $0["kind"] as? String } == [
                "decision", "withdrawal", "restoration", "decision", "undo", "decision", "undo",
                "decision", "reopening", "decision",
            ])
        #expect(
            entries.map { $0["moderator"] as? String } == [
                "ann", nil, nil, "bob", "bob", "kim", "kim", "kim", nil, "lea",
            ])
        #expect(
            entries.map { $0["by_user"] as? String } == [
                nil, "u1", "u1", nil, nil, nil, nil, nil, nil, nil,
            ])
        // An undo names the decision it undid and keeps no note; a reopen noted 'undo'
        // that undid nothing stays a decision with its note.
        #expect(entries[4]["undoes"] as? Int == entries[3]["seq"] as? Int)
        #expect(entries[6]["undoes"] as? Int == entries[5]["seq"] as? Int)
        #expect(entries[4]["note"] is NSNull && entries[9]["note"] as? String == "undo")
        #expect(entries.map { $0["seq"] as? Int } == Array(1...10))
        let text = sandbox.run("review", "log", "p1").stdout
        #expect(text.contains("p1  (user u1)  withdrawal  approved → withdrawn"), "\(text)")
        #expect(text.contains("p1  bob  undo  rejected → pending"), "\(text)")
        #expect(!text.contains("trove"))
        // Still append-only (only SQL can try to rewrite it); the next entry follows the last.
        let migrated = try Workspace.testDatabase(at: sandbox.workspace)
        #expect(throws: SQLiteError.self) {
            try migrated.execute("UPDATE decisions SET moderator = 'x'")
        }
        #expect(throws: SQLiteError.self) { try migrated.execute("DELETE FROM decisions") }
        #expect(sandbox.run("review", "approve", "p1", "--as", "ann").status == 0)
        #expect(
            try migrated.scalar("SELECT max(seq) FROM decisions") == .integer(11))
        #expect(try migrated.scalar("PRAGMA integrity_check") == .text("ok"))
    }
}
