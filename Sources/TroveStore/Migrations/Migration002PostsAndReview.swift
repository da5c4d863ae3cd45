extension Schema {
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
}
