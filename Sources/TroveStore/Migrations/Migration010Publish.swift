extension Schema {
    /// Publish targets and what each one holds, recorded apart from exports: only a
    /// completed publish (or `publish --mark-applied`) changes it.
    static let publishTargets = """
        -- Where a layout's tree goes: a Realtime Database and a Storage bucket.
        CREATE TABLE publish_targets (
            name         TEXT PRIMARY KEY NOT NULL,
            database_url TEXT NOT NULL,
            bucket       TEXT NOT NULL,
            layout       TEXT NOT NULL,   -- a built-in layout's name or a layout file's path
            is_default   INTEGER NOT NULL DEFAULT 0,
            added_at     TEXT NOT NULL,
            published_at TEXT              -- when its last publish completed
        ) WITHOUT ROWID;
        CREATE UNIQUE INDEX publish_targets_default ON publish_targets (is_default)
            WHERE is_default = 1;

        -- What a target holds: its database paths with a hash of each value, and its
        -- Storage objects with their tokens, front-coded in blocks in path order.
        -- planned = 0 is what the target holds now; planned = 1 what it holds once the
        -- publish in progress completes.
        CREATE TABLE publish_state (
            target  TEXT NOT NULL REFERENCES publish_targets (name) ON DELETE CASCADE,
            kind    TEXT NOT NULL CHECK (kind IN ('paths', 'objects')),
            planned INTEGER NOT NULL CHECK (planned IN (0, 1)),
            seq     INTEGER NOT NULL,
            data    BLOB NOT NULL,
            PRIMARY KEY (target, kind, planned, seq)
        ) WITHOUT ROWID;

        -- The publish in progress, at most one per target, and its steps in the order
        -- they run: uploads, new tokens added beside the old, database requests,
        -- deletions, old tokens revoked. A step is marked done as soon as it is, so a run
        -- stopped anywhere resumes after it.
        CREATE TABLE publish_plans (
            target     TEXT PRIMARY KEY NOT NULL
                REFERENCES publish_targets (name) ON DELETE CASCADE,
            planned_at TEXT NOT NULL,
            images     TEXT NOT NULL,     -- the renditions folder uploads read from
            paths      INTEGER NOT NULL,  -- database paths the target holds afterwards
            objects    INTEGER NOT NULL,  -- Storage objects it holds afterwards
            changed    INTEGER NOT NULL,  -- paths set
            removed    INTEGER NOT NULL   -- paths set to null
        ) WITHOUT ROWID;
        CREATE TABLE publish_steps (
            target TEXT NOT NULL REFERENCES publish_plans (target) ON DELETE CASCADE,
            seq    INTEGER NOT NULL,
            kind   TEXT NOT NULL
                CHECK (kind IN ('upload', 'token', 'update', 'delete', 'revoke')),
            name   TEXT,                  -- the object (all but update)
            token  TEXT,                  -- its download tokens (upload, token, revoke)
            body   BLOB,                  -- the multi-path update (update)
            done   INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (target, seq)
        ) WITHOUT ROWID;

        -- Every completed publish, and every plan marked applied.
        CREATE TABLE publish_log (
            id        INTEGER PRIMARY KEY,
            target    TEXT NOT NULL,
            at        TEXT NOT NULL,
            kind      TEXT NOT NULL CHECK (kind IN ('publish', 'mark-applied')),
            paths     INTEGER NOT NULL,
            changed   INTEGER NOT NULL,
            removed   INTEGER NOT NULL,
            uploaded  INTEGER NOT NULL,
            retokened INTEGER NOT NULL,
            deleted   INTEGER NOT NULL,
            source    TEXT               -- the plan file, for mark-applied
        );
        """
}
