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
        let before = Schema.migrator.migrations.filter { !$0.name.hasPrefix("011-") }
        try Migrator(before).migrate(database)
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
}
