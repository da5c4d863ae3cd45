extension Schema {
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
}
