extension Schema {
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
}
