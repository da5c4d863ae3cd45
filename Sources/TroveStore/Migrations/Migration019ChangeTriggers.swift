extension Schema {
    /// Every update or deletion of what an export renders marks its record, whoever
    /// writes it: writers mark what they insert (a bulk insert as one mark, which a
    /// trigger per inserted row would cost a third of an import to do), and these
    /// triggers catch every change of a row that exists. Each advances the clock first,
    /// so the mark is newer than anything a consumer has taken in.
    ///
    /// A trigger is quiet while a mark of every record of its kind holds the clock's
    /// current value: a writer that changes most rows marks them all at once first.
    static let changeTriggers: String = {
        /// Whether no mark of every record of `kind` covers this moment.
        func unmarked(_ kind: String) -> String {
            """
            WHEN NOT EXISTS (SELECT 1 FROM record_changes WHERE kind = \(kind) AND key = ''
                AND seq = (SELECT seq FROM change_clock WHERE id = 1))
            """
        }
        /// Marks `key` (an expression) of `kind`.
        func mark(_ kind: String, _ key: String) -> String {
            """
                UPDATE change_clock SET seq = seq + 1 WHERE id = 1;
                UPDATE record_changes SET seq = (SELECT seq FROM change_clock WHERE id = 1)
                    WHERE kind = \(kind) AND key = \(key);
                INSERT INTO record_changes (kind, key, seq)
                    SELECT \(kind), \(key), (SELECT seq FROM change_clock WHERE id = 1)
                    WHERE NOT EXISTS (
                        SELECT 1 FROM record_changes WHERE kind = \(kind) AND key = \(key));
            """
        }
        return """
            CREATE TRIGGER treasures_marked_updated
            AFTER UPDATE OF key, name, lat, lon, description, image, extra ON treasures
            \(unmarked("'treasure'"))
            BEGIN
            \(mark("'treasure'", "NEW.key"))
            \(mark("'treasure'", "OLD.key"))
            END;
            CREATE TRIGGER treasures_marked_deleted AFTER DELETE ON treasures
            \(unmarked("'treasure'"))
            BEGIN
            \(mark("'treasure'", "OLD.key"))
            END;
            CREATE TRIGGER treasure_geohashes_marked_updated
            AFTER UPDATE OF geohash ON treasure_geohashes
            \(unmarked("'treasure'"))
            BEGIN
            \(mark("'treasure'", "NEW.key"))
            END;
            CREATE TRIGGER treasure_geohashes_marked_deleted AFTER DELETE ON treasure_geohashes
            \(unmarked("'treasure'"))
            BEGIN
            \(mark("'treasure'", "OLD.key"))
            END;
            CREATE TRIGGER posts_marked_updated
            AFTER UPDATE OF id, user, lat, lon, description, date, photo, status, geohash ON posts
            \(unmarked("'post'"))
            BEGIN
            \(mark("'post'", "NEW.id"))
            \(mark("'post'", "OLD.id"))
            END;
            CREATE TRIGGER posts_marked_deleted AFTER DELETE ON posts
            \(unmarked("'post'"))
            BEGIN
            \(mark("'post'", "OLD.id"))
            END;
            CREATE TRIGGER renditions_marked_updated AFTER UPDATE ON renditions
            \(unmarked("NEW.owner_kind"))
            BEGIN
            \(mark("NEW.owner_kind", "NEW.owner_key"))
            END;
            CREATE TRIGGER renditions_marked_deleted AFTER DELETE ON renditions
            \(unmarked("OLD.owner_kind"))
            BEGIN
            \(mark("OLD.owner_kind", "OLD.owner_key"))
            END;
            -- A token is part of its owners' download URLs.
            CREATE TRIGGER storage_tokens_marked_updated AFTER UPDATE OF token ON storage_tokens
            BEGIN
                UPDATE change_clock SET seq = seq + 1 WHERE id = 1;
                INSERT INTO record_changes (kind, key, seq)
                    SELECT DISTINCT owner_kind, owner_key, (SELECT seq FROM change_clock WHERE id = 1)
                    FROM renditions WHERE path = NEW.path
                    AND NOT EXISTS (SELECT 1 FROM record_changes AS c
                        WHERE c.kind = renditions.owner_kind AND c.key = renditions.owner_key);
                UPDATE record_changes SET seq = (SELECT seq FROM change_clock WHERE id = 1)
                    WHERE (kind, key) IN (SELECT owner_kind, owner_key FROM renditions WHERE path = NEW.path);
            END;
            """
    }()
}
