import TroveBase
import TroveSQLite

extension Schema {
    /// Download tokens of their own for publish targets: a target's image URLs carry the
    /// tokens of its bucket's objects, so a token from a staging build opens nothing in
    /// production's bucket. Targets that share a bucket share its objects, and so the
    /// objects' tokens. `storage_tokens` keeps the tokens of exports without a target.
    ///
    /// Existing targets take over today's token of every object they hold (or an
    /// interrupted publish is putting there): those are the tokens their live URLs carry,
    /// or a rotation the next publish was to send, so that publish re-tokens nothing it
    /// would not have re-tokened anyway. Every other object gets a new token per bucket.
    /// Frozen: it decodes the targets' object blocks itself rather than calling the live
    /// reader.
    static let bucketTokens: @Sendable (Database) throws -> Void = { database in
        try database.execute(
            """
            CREATE TABLE bucket_tokens (
                bucket TEXT NOT NULL,   -- a publish target's bucket, bare
                path   TEXT NOT NULL,   -- the object path, as renditions.path
                token  TEXT NOT NULL,
                PRIMARY KEY (bucket, path)
            ) WITHOUT ROWID;
            """)
        let held = try database.prepare(
            """
            SELECT t.bucket AS bucket, b.entries AS entries FROM publish_state AS s
            JOIN publish_targets AS t ON t.name = s.target
            JOIN state_blocks AS b ON b.id = s.block
            WHERE s.kind = 'objects'
            """)
        let takeOver = try database.prepare(
            """
            INSERT OR IGNORE INTO bucket_tokens (bucket, path, token)
            SELECT ?, path, token FROM storage_tokens WHERE path = ?
            """)
        while let row = try held.next() {
            let bucket = row.text(0) ?? ""
            for path in frozenObjectPaths(row.blob(1) ?? []) {
                try takeOver.run([.text(bucket), .text(path)])
            }
        }
        try database.execute(
            """
            INSERT INTO bucket_tokens (bucket, path, token)
            SELECT b.bucket, r.path, \(randomUUID)
            FROM (SELECT DISTINCT bucket FROM publish_targets) AS b,
                 (SELECT DISTINCT path FROM renditions) AS r
            WHERE NOT EXISTS (
                SELECT 1 FROM bucket_tokens AS k WHERE k.bucket = b.bucket AND k.path = r.path);

            -- Made with the rendition row that first names a path, in every target's
            -- bucket, as storage_tokens' own triggers do.
            CREATE TRIGGER renditions_bucket_token_inserted AFTER INSERT ON renditions
            BEGIN
                INSERT INTO bucket_tokens (bucket, path, token)
                SELECT b.bucket, NEW.path, \(randomUUID)
                FROM (SELECT DISTINCT bucket FROM publish_targets) AS b
                WHERE NOT EXISTS (
                    SELECT 1 FROM bucket_tokens AS k
                    WHERE k.bucket = b.bucket AND k.path = NEW.path);
            END;
            CREATE TRIGGER renditions_bucket_token_moved AFTER UPDATE OF path ON renditions
            BEGIN
                INSERT INTO bucket_tokens (bucket, path, token)
                SELECT b.bucket, NEW.path, \(randomUUID)
                FROM (SELECT DISTINCT bucket FROM publish_targets) AS b
                WHERE NOT EXISTS (
                    SELECT 1 FROM bucket_tokens AS k
                    WHERE k.bucket = b.bucket AND k.path = NEW.path);
            END;

            -- A token is part of its owners' download URLs.
            CREATE TRIGGER bucket_tokens_marked_updated AFTER UPDATE OF token ON bucket_tokens
            BEGIN
                UPDATE change_clock SET seq = seq + 1 WHERE id = 1;
                INSERT INTO record_changes (kind, key, seq)
                    SELECT DISTINCT owner_kind, owner_key, (SELECT seq FROM change_clock WHERE id = 1)
                    FROM renditions WHERE path = NEW.path
                    AND NOT EXISTS (SELECT 1 FROM record_changes AS c
                        WHERE c.kind = renditions.owner_kind AND c.key = renditions.owner_key);
                UPDATE record_changes SET seq = (SELECT seq FROM change_clock WHERE id = 1)
                    WHERE (kind, key) IN (SELECT owner_kind, owner_key FROM renditions WHERE path = NEW.path);
            END;
            """)
    }

    /// The object paths of one block of a target's objects state: each entry is the
    /// length it shares with the path before, the length of the rest and the rest, then
    /// the token's length plus one (0 for none) and the token. Frozen for migration 024.
    static func frozenObjectPaths(_ entries: [UInt8]) -> [String] {
        var offset = 0
        func varint() -> Int? {
            var value = 0
            var shift = 0
            while offset < entries.count, shift < 63 {
                let byte = entries[offset]
                offset += 1
                value |= Int(byte & 0x7F) << shift
                if byte < 0x80 { return value }
                shift += 7
            }
            return nil
        }
        var paths: [String] = []
        var path: [UInt8] = []
        while offset < entries.count {
            guard let shared = varint(), let rest = varint(), shared <= path.count,
                offset + rest <= entries.count
            else { break }
            path.removeLast(path.count - shared)
            path += entries[offset..<offset + rest]
            offset += rest
            guard let token = varint(), offset + max(token - 1, 0) <= entries.count else { break }
            offset += max(token - 1, 0)
            paths.append(String(decoding: path, as: UTF8.self))
        }
        return paths
    }
}
