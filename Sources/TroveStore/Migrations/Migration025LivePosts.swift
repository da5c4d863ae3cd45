import TroveBase

extension Schema {
    /// Posts pulled from a live database location (`import posts --from URL`): the Storage
    /// objects their photos were downloaded from, each pull's progress, and the posts a
    /// pull in progress has read.
    static let livePosts = """
        -- A Storage object downloaded as a post's photo: kept in the workspace's photo
        -- folder under the SHA-256 of its bytes, with the generation and MD5 it had, so a
        -- later pull downloads it again only when the object changed.
        CREATE TABLE post_photo_objects (
            bucket      TEXT NOT NULL,
            name        TEXT NOT NULL,
            generation  TEXT,             -- Cloud Storage's generation (an int64, as text)
            md5         TEXT,             -- its md5Hash (base64), when the object has one
            fingerprint TEXT NOT NULL,    -- ContentHash of the bytes, as posts.photo_hash
            file        TEXT NOT NULL,    -- the file in the photo folder: SHA-256 hex + extension
            bytes       INTEGER NOT NULL,
            fetched_at  TEXT NOT NULL,
            -- A listing found it changed or gone: look at its metadata again before use.
            stale       INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (bucket, name)
        ) WITHOUT ROWID;

        -- Each location posts are pulled from, by its URL (the source's identity).
        CREATE TABLE post_pulls (
            id           INTEGER PRIMARY KEY,
            origin       TEXT NOT NULL UNIQUE,
            started_at   TEXT,            -- the run in progress, or the last one started
            completed_at TEXT,            -- the last read of the whole location
            -- Posts were stored since the signals were last computed (a run was killed
            -- before its end).
            signals_due  INTEGER NOT NULL DEFAULT 0
        );

        -- Each page of a flat location's last whole read, by where it starts (the key it
        -- starts after, '' for the first; '<KEY' for a page read backward, ending before
        -- KEY): the SHA-256 of what the database answered and of the ids, content hashes
        -- and photos the workspace stored from it, and the private fields it dropped. A
        -- page that comes back the same, whose posts are still stored so, is passed over
        -- by the next read.
        CREATE TABLE post_pull_pages (
            pull      INTEGER NOT NULL REFERENCES post_pulls (id) ON DELETE CASCADE,
            start     TEXT NOT NULL,
            hash      TEXT NOT NULL,
            digest    TEXT NOT NULL,
            passwords INTEGER NOT NULL,
            emails    INTEGER NOT NULL,
            names     INTEGER NOT NULL,
            -- post_pull_clock when its posts were last seen stored so: while it has not
            -- moved, they need not be looked at again.
            clock     INTEGER NOT NULL,
            read_at   TEXT NOT NULL,      -- the run that last read it (started_at)
            PRIMARY KEY (pull, start)
        ) WITHOUT ROWID;

        -- Moves whenever a post's id, content hash, photo or source changes, or it is
        -- withdrawn, returned or deleted: what a page's digest covers. (Decisions leave
        -- it alone, so moderators at work do not make every page be looked at again.)
        CREATE TABLE post_pull_clock (
            id  INTEGER PRIMARY KEY CHECK (id = 1),
            seq INTEGER NOT NULL
        );
        INSERT INTO post_pull_clock (id, seq) VALUES (1, 0);
        CREATE TRIGGER posts_pull_clock_updated
        AFTER UPDATE OF id, content_hash, photo, origin, status ON posts
        WHEN OLD.id IS NOT NEW.id OR OLD.content_hash IS NOT NEW.content_hash
            OR OLD.photo IS NOT NEW.photo OR OLD.origin IS NOT NEW.origin
            OR (OLD.status = 'withdrawn') IS NOT (NEW.status = 'withdrawn')
        BEGIN
            UPDATE post_pull_clock SET seq = seq + 1 WHERE id = 1;
        END;
        CREATE TRIGGER posts_pull_clock_deleted AFTER DELETE ON posts
        BEGIN
            UPDATE post_pull_clock SET seq = seq + 1 WHERE id = 1;
        END;

        -- The posts the run in progress has read, so that withdrawing the posts gone
        -- upstream after a complete read holds no list in memory; emptied by that step,
        -- and when a run starts again. (A flat location's pages are counted instead, and
        -- its keys recorded here only when the count tells that some post is gone.)
        CREATE TABLE post_pull_seen (
            pull INTEGER NOT NULL REFERENCES post_pulls (id) ON DELETE CASCADE,
            id   TEXT NOT NULL,
            PRIMARY KEY (pull, id)
        ) WITHOUT ROWID;
        """
}
