extension Schema {
    static let postsReviewColumns = """
        ALTER TABLE posts ADD COLUMN photo_ref TEXT;      -- the photo reference as written
        ALTER TABLE posts ADD COLUMN photo_problem TEXT;  -- why the photo could not be used
        ALTER TABLE posts ADD COLUMN source TEXT;         -- file:line or file: JSON path
        -- Signal names joined by ',', so listing and filtering need no JSON parsing.
        ALTER TABLE posts ADD COLUMN signal_names TEXT NOT NULL DEFAULT '';

        -- The review queue is read in date order per status. The index also holds every
        -- column `review list` prints, so listing reads it in order and never the table.
        CREATE INDEX posts_review_queue
            ON posts (status, date, id, user, lat, lon, description, signal_names);
        CREATE INDEX posts_date ON posts (date, id);
        """
}
