import Foundation
import Testing
import TroveSQLite

@testable import TroveBase
@testable import TroveCLI
@testable import TroveCommandLine
@_spi(Testing) @testable import TroveKit
@_spi(Testing) @testable import TroveStore

/// Migration 024 on a workspace whose targets were published with the tokens of exports
/// (every target sharing them): each target takes over today's token of every object it
/// holds, so the first publish after the upgrade re-tokens only what a rotation had
/// already changed; objects no target holds get tokens of their own per bucket.
@Suite struct TargetTokensMigrationTests {
    @Test func targetsKeepTheTokensTheirLiveURLsCarry() throws {
        let fixture = try PublishFixture()
        fixture.publish("game")
        fixture.publish("litter")
        let workspace = try Workspace(path: fixture.sandbox.workspace)
        let database = workspace.testDatabase
        // As before 024: the targets published the tokens of exports, and a rotation of
        // b waits for the next publish; post 'wait' is held by no target. SQL: no command
        // writes the schema or the tokens as they were before 024.
        try database.execute(
            """
            UPDATE storage_tokens SET token = (SELECT k.token FROM bucket_tokens AS k
                WHERE k.bucket = 'trove-test' AND k.path = storage_tokens.path);
            """)
        #expect(fixture.run("storage", "rotate", "treasure:b").status == 0)
        let rotated = try fixture.renditionPath("treasure", "b")
        let unheld = try fixture.renditionPath("post", "wait")
        let expected = try database.query("SELECT path, token FROM storage_tokens ORDER BY path") {
            ($0.text(0) ?? "", $0.text(1) ?? "")
        }
        try database.execute(
            """
            DROP TRIGGER renditions_bucket_token_inserted;
            DROP TRIGGER renditions_bucket_token_moved;
            DROP TRIGGER bucket_tokens_marked_updated;
            DROP TABLE bucket_tokens;
            DELETE FROM schema_migrations WHERE name = '024-bucket-download-tokens';
            PRAGMA user_version = 20;
            """)

        for run in 0..<2 {
            // The upgrade runs at the first command.
            let status = fixture.run("status")
            #expect(status.status == 0, "\(status.stderr)")
            let migrated = try Workspace(path: fixture.sandbox.workspace).testDatabase
            let tokens = try migrated.query(
                "SELECT path, token FROM bucket_tokens WHERE bucket = 'trove-test' ORDER BY path"
            ) { ($0.text(0) ?? "", $0.text(1) ?? "") }
            for (path, token) in expected where path != unheld {
                #expect(tokens.contains { $0 == (path, token) }, "\(path)")
            }
            let fresh = tokens.first { $0.0 == unheld }?.1
            #expect(fresh != nil)
            #expect(fresh != expected.first { $0.0 == unheld }?.1)
            let game = fixture.publish("game")
            #expect(
                game.stderr.contains(
                    run == 0
                        ? "published to game: 1 path set and 0 removed in 1 request; 0 objects uploaded, 1 re-tokened, 0 deleted"
                        : "game is up to date: nothing to publish"), "\(game.stderr)")
            #expect(fixture.publish("litter").stderr.contains("litter is up to date"))
        }
        #expect(fixture.cloud.tokened == [rotated, rotated])
    }
}
