extension Schema {
    /// Which records changed and when, so that exports, publishes and checks can take in
    /// what changed instead of the whole workspace.
    static let changeTracking = """
        -- Advanced by every write transaction that marks a change; a consumer that has
        -- taken in everything up to a value records that value.
        CREATE TABLE change_clock (
            id  INTEGER PRIMARY KEY CHECK (id = 1),
            seq INTEGER NOT NULL
        );
        INSERT INTO change_clock (id, seq) VALUES (1, 0);

        -- The latest change of each record, written in the same transaction as the change.
        -- The key '' stands for every record of its kind (a bulk write such as a first
        -- import): a consumer older than it takes in everything.
        CREATE TABLE record_changes (
            kind TEXT NOT NULL CHECK (kind IN ('treasure', 'post')),
            key  TEXT NOT NULL,
            seq  INTEGER NOT NULL,
            PRIMARY KEY (kind, key)
        ) WITHOUT ROWID;
        CREATE INDEX record_changes_seq ON record_changes (kind, seq);

        -- Consumers outside exports and publishes (validate, status): the clock value they
        -- last took in, and a fingerprint of the settings their work depends on.
        CREATE TABLE change_consumers (
            name   TEXT PRIMARY KEY NOT NULL,
            seq    INTEGER NOT NULL,
            inputs TEXT
        ) WITHOUT ROWID;

        -- What an export or a publish took in: the clock, and a fingerprint of its layout
        -- and the settings that feed it (a different one means every record is rendered).
        ALTER TABLE export_log ADD COLUMN change_seq INTEGER;
        ALTER TABLE export_log ADD COLUMN inputs TEXT;
        ALTER TABLE publish_targets ADD COLUMN change_seq INTEGER;
        ALTER TABLE publish_targets ADD COLUMN inputs TEXT;
        ALTER TABLE publish_plans ADD COLUMN change_seq INTEGER;
        ALTER TABLE publish_plans ADD COLUMN inputs TEXT;
        """
}
