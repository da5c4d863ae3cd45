extension Schema {
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
}
