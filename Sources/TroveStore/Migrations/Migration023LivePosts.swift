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

        -- The posts the run in progress has read, so that withdrawing the posts gone
        -- upstream after a complete read holds no list in memory; emptied by that step,
        -- and when a run starts again.
        CREATE TABLE post_pull_seen (
            pull INTEGER NOT NULL REFERENCES post_pulls (id) ON DELETE CASCADE,
            id   TEXT NOT NULL,
            PRIMARY KEY (pull, id)
        ) WITHOUT ROWID;
        """
}
