import TroveSQLite

/// The workspace schema, as named forward migrations. Never edit a shipped migration:
/// append a new one.
package enum Schema {
    package static let migrator = Migrator([
        .init("001-treasures", sql: treasures),
        .init("002-posts-and-review", sql: postsAndReview),
        .init("003-renditions-and-exports", sql: renditionsAndExports),
        .init("004-posts-review-columns", sql: postsReviewColumns),
        .init("005-source-names-and-export-log", sql: sourceNamesAndExportLog),
        .init("006-review-sheet-credits", sql: reviewSheetCredits),
        .init("007-storage-tokens-and-plans", sql: storageTokensAndPlans),
        .init("008-storage-token-triggers-under-upsert", sql: storageTokenTriggersUnderUpsert),
        .init("009-storage-plan-blocks-and-rendition-paths", apply: storagePlanBlocks),
        .init("010-publish-targets", sql: publishTargets),
        .init("011-post-versions-signed-sheets-withdrawn", apply: moderation),
        .init("012-source-columns-and-rendition-failures", sql: sourceColumnsAndDecimalComma),
        .init("015-moderators-sessions-claims", sql: serve),
        .init("016-change-tracking", sql: changeTracking),
        .init("017-status-counters", sql: statusCounters),
        .init("018-shared-state-blocks", apply: stateBlocks),
        .init("019-change-triggers", sql: changeTriggers),
        .init("020-export-objects", apply: exportObjects),
        .init("021-published-counts", sql: publishedCounts),
        .init("022-posts-exif-gps-problem", sql: postsEXIFGPSProblem),
        .init("023-trail-kinds-actions-and-claim-pages", sql: moderationRecords),
    ])

    /// Why a photo's EXIF GPS position could not be read, when it has one: the signal says
    /// so rather than "no GPS position".
    static let postsEXIFGPSProblem = """
        ALTER TABLE posts ADD COLUMN exif_gps_problem TEXT;
        """

    package static let treasures = """
        CREATE TABLE settings (
            key   TEXT PRIMARY KEY NOT NULL,
            value TEXT NOT NULL
        ) WITHOUT ROWID;

        -- The files treasures were imported from, so rows point at them by number.
        CREATE TABLE sources (
            id   INTEGER PRIMARY KEY,
            path TEXT NOT NULL UNIQUE
        );

        -- Keyed by the Firebase key itself: one B-tree, in the order exports write.
        CREATE TABLE treasures (
            key         TEXT PRIMARY KEY NOT NULL,
            name        TEXT NOT NULL,
            lat         REAL NOT NULL,
            lon         REAL NOT NULL,
            description TEXT,
            image       TEXT,            -- absolute path, or an http(s) URL kept as given
            extra       TEXT,            -- JSON object of the extra columns, in file order
            source      INTEGER REFERENCES sources (id),  -- the file it was last imported from
            source_line INTEGER          -- and the line (or GeoJSON feature) there
        ) WITHOUT ROWID;
        -- GeoFire geohashes, apart from the rows they index: `trove geohash` rewrites only
        -- this narrow table, and the range scans of `near` read only its index. A geohash
        -- that no longer matches its treasure's position is stale, never silently wrong:
        -- status, validate and export compare it with the position.
        CREATE TABLE treasure_geohashes (
            key     TEXT PRIMARY KEY NOT NULL,
            geohash TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX treasure_geohashes_geohash ON treasure_geohashes (geohash);
        CREATE TRIGGER treasures_deleted AFTER DELETE ON treasures
        BEGIN DELETE FROM treasure_geohashes WHERE key = OLD.key; END;
        """

    static let postsAndReview = """
        CREATE TABLE posts (
            id           TEXT PRIMARY KEY NOT NULL,
            user         TEXT,
            lat          REAL,
            lon          REAL,
            description  TEXT,
            date         TEXT,           -- ISO 8601
            photo        TEXT,           -- absolute path inside --photos
            photo_hash   TEXT,           -- fingerprint of the photo bytes (ContentHash)
            photo_phash  INTEGER,        -- 64-bit perceptual hash
            photo_width  INTEGER,
            photo_height INTEGER,
            exif_lat     REAL,
            exif_lon     REAL,
            exif_time    TEXT,
            content_hash TEXT NOT NULL,  -- of the imported fields, to notice changes
            status       TEXT NOT NULL DEFAULT 'pending'
                CHECK (status IN ('pending', 'approved', 'rejected', 'flagged')),
            status_note  TEXT,           -- why it is in this state (e.g. changed after a decision)
            geohash      TEXT,
            signals      TEXT NOT NULL DEFAULT '[]', -- JSON array of {"name", "detail"}
            imported_at  TEXT NOT NULL,
            updated_at   TEXT NOT NULL
        );
        CREATE INDEX posts_geohash ON posts (geohash) WHERE geohash IS NOT NULL;
        CREATE INDEX posts_status ON posts (status);
        CREATE INDEX posts_user ON posts (user);
        CREATE INDEX posts_photo_hash ON posts (photo_hash);

        -- The audit trail: append-only, enforced here rather than trusted to code.
        CREATE TABLE decisions (
            seq       INTEGER PRIMARY KEY AUTOINCREMENT,
            post_id   TEXT NOT NULL REFERENCES posts (id),
            at        TEXT NOT NULL,
            moderator TEXT NOT NULL,
            from_status TEXT NOT NULL,
            to_status   TEXT NOT NULL,
            reason    TEXT,
            note      TEXT
        );
        CREATE INDEX decisions_post ON decisions (post_id);
        CREATE TRIGGER decisions_no_update BEFORE UPDATE ON decisions
        BEGIN SELECT RAISE(ABORT, 'the audit trail is append-only'); END;
        CREATE TRIGGER decisions_no_delete BEFORE DELETE ON decisions
        BEGIN SELECT RAISE(ABORT, 'the audit trail is append-only'); END;
        """

    static let renditionsAndExports = """
        -- Image renditions made by `trove images`, per owner and rendition name.
        CREATE TABLE renditions (
            owner_kind  TEXT NOT NULL CHECK (owner_kind IN ('treasure', 'post')),
            owner_key   TEXT NOT NULL,
            name        TEXT NOT NULL,
            source      TEXT NOT NULL,   -- the source image path
            source_hash TEXT NOT NULL,   -- fingerprint of the source bytes (ContentHash)
            settings    TEXT NOT NULL,   -- the settings it was made with
            path        TEXT NOT NULL,   -- relative to the output folder
            width       INTEGER NOT NULL,
            height      INTEGER NOT NULL,
            bytes       INTEGER NOT NULL,
            hash        TEXT NOT NULL,   -- of the output bytes
            made_at     TEXT NOT NULL,
            PRIMARY KEY (owner_kind, owner_key, name)
        ) WITHOUT ROWID;

        -- What each layout last exported, for `export --update` deltas.
        CREATE TABLE exports (
            layout      TEXT PRIMARY KEY NOT NULL,
            at          TEXT NOT NULL,
            out         TEXT
        ) WITHOUT ROWID;
        -- The delta state: a 64-bit hash per exported path, front-coded in blocks, written
        -- as a new generation while the previous one is read.
        CREATE TABLE export_state (
            layout     TEXT NOT NULL,
            generation INTEGER NOT NULL,
            seq        INTEGER NOT NULL,   -- block order within the generation
            entries    BLOB NOT NULL,      -- (path, hash) pairs in database order
            PRIMARY KEY (layout, generation, seq)
        ) WITHOUT ROWID;
        """

    static let postsReviewColumns = """
        ALTER TABLE posts ADD COLUMN photo_ref TEXT;      -- the photo reference as written
        ALTER TABLE posts ADD COLUMN photo_problem TEXT;  -- why the photo could not be used
        ALTER TABLE posts ADD COLUMN source TEXT;         -- file:line or file: JSON path
        -- Signal names joined by ',', so listing and filtering need no JSON parsing.
        ALTER TABLE posts ADD COLUMN signal_names TEXT NOT NULL DEFAULT '';

        -- The review queue is read in date order per status. The index also holds every
        -- column `review list` prints, so listing reads it in order and never the table.
        CREATE INDEX posts_review_queue
            ON posts (status, date, id, user, lat, lon, description, signal_names);
        CREATE INDEX posts_date ON posts (date, id);
        """

    static let sourceNamesAndExportLog = """
        -- A source's `path` becomes the file's absolute path, so an import from another
        -- folder finds the same source; `name` is how it was last typed, for messages.
        ALTER TABLE sources ADD COLUMN name TEXT;

        -- Every export written to a file, the base of later `--update`s. `generation`
        -- names its state in export_state while that is kept (the last few per layout).
        CREATE TABLE export_log (
            id         INTEGER PRIMARY KEY,
            layout     TEXT NOT NULL,
            at         TEXT NOT NULL,
            out        TEXT NOT NULL,
            kind       TEXT NOT NULL CHECK (kind IN ('full', 'update')),
            base       INTEGER,          -- the export an update was relative to
            generation INTEGER NOT NULL,
            records    INTEGER NOT NULL,
            paths      INTEGER NOT NULL,
            changed    INTEGER NOT NULL,
            removed    INTEGER NOT NULL
        );
        CREATE INDEX export_log_layout ON export_log (layout, id);
        """

    static let reviewSheetCredits = """
        -- Decisions recorded from a review sheet: who ran `review apply` (when not the
        -- moderator who decided), the sheet they came from and when the moderator decided
        -- in the page, so applying the same file again is recognised and does nothing.
        ALTER TABLE decisions ADD COLUMN applied_by TEXT;
        ALTER TABLE decisions ADD COLUMN sheet TEXT;
        ALTER TABLE decisions ADD COLUMN decided_at TEXT;
        CREATE INDEX decisions_sheet ON decisions (sheet, post_id) WHERE sheet IS NOT NULL;

        -- This workspace's own id, so a decisions file is applied only where its sheet
        -- was made. One row, made once.
        CREATE TABLE workspace_identity (
            id TEXT NOT NULL PRIMARY KEY
        ) WITHOUT ROWID;
        INSERT INTO workspace_identity (id) VALUES (lower(hex(randomblob(16))));
        """

    /// A random version-4 UUID from SQLite's generator (seeded by the OS), for download
    /// tokens: never derived from content, so it cannot be guessed from the object.
    static let randomUUID = """
        lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4'
          || substr(hex(randomblob(2)), 2) || '-' || substr('89ab', 1 + abs(random() % 4), 1)
          || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))
        """

    static let storageTokensAndPlans = """
        -- A Firebase Storage download token per stored object, made when a rendition first
        -- names the object (whoever writes the row) and kept until rotated.
        CREATE TABLE storage_tokens (
            path  TEXT PRIMARY KEY NOT NULL,  -- the object path, as renditions.path
            token TEXT NOT NULL
        ) WITHOUT ROWID;
        INSERT OR IGNORE INTO storage_tokens (path, token)
            SELECT path, \(randomUUID) FROM renditions;
        CREATE TRIGGER renditions_token_inserted AFTER INSERT ON renditions
        BEGIN
            INSERT OR IGNORE INTO storage_tokens (path, token) VALUES (NEW.path, \(randomUUID));
        END;
        CREATE TRIGGER renditions_token_moved AFTER UPDATE OF path ON renditions
        BEGIN
            INSERT OR IGNORE INTO storage_tokens (path, token) VALUES (NEW.path, \(randomUUID));
        END;

        -- The objects the last export to each output file planned for Storage, with the
        -- token they were planned with: the next plan of that file deletes what is gone and
        -- re-tokens what was rotated.
        CREATE TABLE storage_plan (
            output TEXT NOT NULL,   -- the export's --out path
            path   TEXT NOT NULL,
            token  TEXT,
            PRIMARY KEY (output, path)
        ) WITHOUT ROWID;
        """

    // The triggers of 007 said INSERT OR IGNORE, but a trigger fired by an upsert's DO UPDATE
    // takes the outer statement's conflict handling (ABORT) instead of its own: rendering a
    // rendition again under a path that already has a token failed with "UNIQUE constraint
    // failed: storage_tokens.path". These skip existing paths without any conflict.
    static let storageTokenTriggersUnderUpsert = """
        DROP TRIGGER renditions_token_inserted;
        DROP TRIGGER renditions_token_moved;
        CREATE TRIGGER renditions_token_inserted AFTER INSERT ON renditions
        BEGIN
            INSERT INTO storage_tokens (path, token) SELECT NEW.path, \(randomUUID)
                WHERE NOT EXISTS (SELECT 1 FROM storage_tokens WHERE path = NEW.path);
        END;
        CREATE TRIGGER renditions_token_moved AFTER UPDATE OF path ON renditions
        BEGIN
            INSERT INTO storage_tokens (path, token) SELECT NEW.path, \(randomUUID)
                WHERE NOT EXISTS (SELECT 1 FROM storage_tokens WHERE path = NEW.path);
        END;
        """

    /// The planned objects as front-coded blocks (as `PlannedObjectEncoder` wrote them) instead of a row
    /// per object: a plan of a million objects is recorded in a few hundred rows. The
    /// plans recorded so far are carried over. Renditions get an index in path order, from
    /// which the next plan reads its objects sorted without sorting them.
    static let storagePlanBlocks: @Sendable (Database) throws -> Void = { database in
        try database.execute(
            """
            -- The objects the last export to each output file planned for Storage, with the
            -- token they were planned with, in path order, front-coded in blocks: the next
            -- plan of that file deletes what is gone and re-tokens what was rotated.
            CREATE TABLE storage_plan_blocks (
                output TEXT NOT NULL,     -- the export's --out path
                seq    INTEGER NOT NULL,  -- block order
                data   BLOB NOT NULL,
                PRIMARY KEY (output, seq)
            ) WITHOUT ROWID;
            -- Covers what a plan reads of each rendition (the key is in every index entry).
            CREATE INDEX renditions_path ON renditions (path, name, source);
            """)
        let insert = try database.prepare(
            "INSERT INTO storage_plan_blocks (output, seq, data) VALUES (?, ?, ?)")
        let outputs = try database.query("SELECT DISTINCT output FROM storage_plan") {
            $0.text(0) ?? ""
        }
        let rows = try database.prepare(
            "SELECT path, token FROM storage_plan WHERE output = ? ORDER BY path")
        // Frozen here rather than calling the live encoder: blocks of 2048 objects, each
        // its path front-coded against the one before (shared length, rest length, rest)
        // and its token as length plus one (0 for none) and bytes.
        func varint(_ value: Int, into bytes: inout [UInt8]) {
            var value = value
            while value >= 0x80 {
                bytes.append(UInt8(value & 0x7F) | 0x80)
                value >>= 7
            }
            bytes.append(UInt8(value))
        }
        for output in outputs {
            var seq: Int64 = 0
            var block: [UInt8] = []
            var entries = 0
            var previous: [UInt8] = []
            func flush() throws {
                guard entries > 0 else { return }
                try insert.run([.text(output), .integer(seq), .blob(block)])
                seq += 1
                block = []
                entries = 0
            }
            try rows.bind([.text(output)])
            while let row = try rows.next() {
                let path = row.withUTF8(0) { Array($0) } ?? []
                var shared = 0
                if entries > 0 {
                    while shared < min(previous.count, path.count)
                        && previous[shared] == path[shared]
                    {
                        shared += 1
                    }
                }
                varint(shared, into: &block)
                varint(path.count - shared, into: &block)
                block += path[shared...]
                if let token = row.withUTF8(1, { Array($0) }) {
                    varint(token.count + 1, into: &block)
                    block += token
                } else {
                    varint(0, into: &block)
                }
                previous = path
                entries += 1
                if entries == 2048 { try flush() }
            }
            try flush()
        }
        try database.execute("DROP TABLE storage_plan")
    }
}
