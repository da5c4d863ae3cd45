extension Schema {
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
}
