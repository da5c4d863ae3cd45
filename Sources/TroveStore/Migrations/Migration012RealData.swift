extension Schema {
    /// What a file's last import read, beside the file: its columns, to say which one an
    /// import no longer finds, and whether its comma is a decimal comma, for `:number`.
    /// And the images `trove images` could not read, so that an export names the reason
    /// instead of advising to run it again.
    static let sourceColumnsAndDecimalComma = """
        ALTER TABLE sources ADD COLUMN columns TEXT;        -- JSON array of the header names
        ALTER TABLE sources ADD COLUMN decimal_comma INTEGER NOT NULL DEFAULT 0;
        CREATE TABLE rendition_failures (
            owner_kind TEXT NOT NULL CHECK (owner_kind IN ('treasure', 'post')),
            owner_key  TEXT NOT NULL,
            source     TEXT NOT NULL,   -- the image path that failed
            reason     TEXT NOT NULL,
            PRIMARY KEY (owner_kind, owner_key)
        ) WITHOUT ROWID;
        """
}
