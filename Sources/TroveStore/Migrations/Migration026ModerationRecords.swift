extension Schema {
    /// The audit trail says what kind of entry each is and who made it, and groups the
    /// entries of one action; claims say since when and from which page they are held.
    ///
    /// `decisions` is rebuilt, as SQLite cannot drop a NOT NULL: `moderator` is NULL for
    /// what users and imports did (a withdrawal is the post's user's, in `by_user`; a
    /// reopening after an edit is the import's), so no moderator is credited with them.
    /// The entries earlier imports wrote as moderator 'trove' are read back that way, and
    /// earlier undos (a reversal of the same moderator's decision just before it, noted
    /// 'undo' by the terminal queue and 'undone' by `review serve`) become undos. The
    /// trail stays append-only: its triggers are made again on the new table.
    static let moderationRecords = """
        CREATE TABLE decisions_023 (
            seq         INTEGER PRIMARY KEY AUTOINCREMENT,
            post_id     TEXT NOT NULL REFERENCES posts (id),
            at          TEXT NOT NULL,
            -- decision and undo are a moderator's; withdrawal and restoration the post's
            -- user's (gone from the export, back in it); reopening the import's (the
            -- content changed after a decision).
            kind        TEXT NOT NULL DEFAULT 'decision' CHECK (kind IN
                ('decision', 'undo', 'withdrawal', 'restoration', 'reopening')),
            moderator   TEXT,
            by_user     TEXT,
            from_status TEXT NOT NULL,
            to_status   TEXT NOT NULL,
            reason      TEXT,
            note        TEXT,
            applied_by  TEXT,
            sheet       TEXT,
            decided_at  TEXT,
            version     TEXT,
            -- The entries of one action (a bulk decision, the undo of one) name the seq of
            -- its first entry, which names none: an action is coalesce(batch, seq).
            batch       INTEGER,
            -- An undo names the action it undid.
            undoes      INTEGER,
            CHECK ((moderator IS NOT NULL) = (kind IN ('decision', 'undo'))),
            CHECK ((undoes IS NOT NULL) = (kind = 'undo'))
        );
        INSERT INTO decisions_023 (seq, post_id, at, kind, moderator, by_user, from_status,
                                   to_status, reason, note, applied_by, sheet, decided_at,
                                   version, undoes)
        SELECT seq, post_id, at, kind,
               CASE WHEN kind IN ('decision', 'undo') THEN moderator END,
               CASE WHEN kind IN ('withdrawal', 'restoration')
                    THEN (SELECT user FROM posts WHERE id = post_id) END,
               from_status, to_status, reason, CASE WHEN kind = 'undo' THEN NULL ELSE note END,
               applied_by, sheet, decided_at, version,
               CASE WHEN kind = 'undo' THEN previous_seq END
        FROM (
            SELECT *,
                   CASE
                       WHEN moderator = 'trove' AND to_status = 'withdrawn' THEN 'withdrawal'
                       WHEN moderator = 'trove' AND from_status = 'withdrawn'
                           THEN 'restoration'
                       WHEN moderator = 'trove' AND to_status = 'pending'
                           AND note LIKE 'content changed after it was %' THEN 'reopening'
                       WHEN note IN ('undo', 'undone') AND previous_moderator = moderator
                           AND previous_to = from_status AND previous_from = to_status
                           THEN 'undo'
                       ELSE 'decision'
                   END AS kind
            FROM (
                SELECT *,
                       lag(seq) OVER entries AS previous_seq,
                       lag(moderator) OVER entries AS previous_moderator,
                       lag(from_status) OVER entries AS previous_from,
                       lag(to_status) OVER entries AS previous_to
                FROM decisions
                WINDOW entries AS (PARTITION BY post_id ORDER BY seq)
            )
        )
        ORDER BY seq;
        DROP TABLE decisions;
        ALTER TABLE decisions_023 RENAME TO decisions;
        CREATE INDEX decisions_post ON decisions (post_id);
        CREATE INDEX decisions_sheet ON decisions (sheet, post_id) WHERE sheet IS NOT NULL;
        -- A moderator's entries, newest last: their log, what they can still undo.
        CREATE INDEX decisions_moderator ON decisions (moderator, seq)
            WHERE moderator IS NOT NULL;
        CREATE INDEX decisions_batch ON decisions (batch) WHERE batch IS NOT NULL;
        CREATE TRIGGER decisions_no_update BEFORE UPDATE ON decisions
        BEGIN SELECT RAISE(ABORT, 'the audit trail is append-only'); END;
        CREATE TRIGGER decisions_no_delete BEFORE DELETE ON decisions
        BEGIN SELECT RAISE(ABORT, 'the audit trail is append-only'); END;

        -- When the moderator took the claim (Unix seconds), and the page (a random id per
        -- open tab) holding it: a closing tab releases its own claim, not the one a newer
        -- tab of the same moderator took since.
        ALTER TABLE post_claims ADD COLUMN since REAL;
        ALTER TABLE post_claims ADD COLUMN page TEXT;
        -- Who released the claim for its holder (`review claims --release`): the holder's
        -- page does not renew it; opening the post again claims it afresh.
        ALTER TABLE post_claims ADD COLUMN released_by TEXT;
        """
}
