extension Schema {
    /// Moderators of the served queue, their browser sessions and their claims on posts.
    package static let serve = """
        -- Who may sign in to 'trove review serve': the SHA-256 (hex) of each moderator's
        -- secret sign-in token; the token itself is never stored.
        CREATE TABLE moderators (
            name       TEXT PRIMARY KEY NOT NULL,
            token_hash TEXT NOT NULL UNIQUE,
            added_at   TEXT NOT NULL
        ) WITHOUT ROWID;

        -- Signed-in browsers: the SHA-256 (hex) of the session cookie. Removing a moderator
        -- ends their sessions.
        CREATE TABLE moderator_sessions (
            id_hash    TEXT PRIMARY KEY NOT NULL,
            moderator  TEXT NOT NULL REFERENCES moderators (name) ON DELETE CASCADE,
            created_at TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX moderator_sessions_moderator ON moderator_sessions (moderator);

        -- A post a moderator has open: others' queues skip it until `until` (Unix seconds)
        -- or until it is decided, skipped or released.
        CREATE TABLE post_claims (
            post_id   TEXT PRIMARY KEY NOT NULL,
            moderator TEXT NOT NULL,
            until     REAL NOT NULL
        ) WITHOUT ROWID;
        """
}
