extension Schema {
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
}
