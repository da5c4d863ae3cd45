extension Schema {
    /// A sign-in link works once and until a time; a session remembers when it was last
    /// used, so that an idle one ends.
    ///
    /// Links made before this migration could be used any number of times, and nobody
    /// knows who holds them: they are spent (the moderator's lead gives a new one with
    /// `review moderators link NAME`). Browsers signed in stay signed in, seen now.
    static let signInLinksAndIdleSessions = """
        -- Unix seconds until which the link may sign in; when it did, and so never again.
        ALTER TABLE moderators ADD COLUMN link_until REAL NOT NULL DEFAULT 0;
        ALTER TABLE moderators ADD COLUMN link_used_at TEXT;
        -- Unix seconds of the session's last request (kept to the minute).
        ALTER TABLE moderator_sessions ADD COLUMN seen_at REAL NOT NULL DEFAULT 0;
        UPDATE moderator_sessions SET seen_at = CAST(strftime('%s', 'now') AS REAL);
        """
}
