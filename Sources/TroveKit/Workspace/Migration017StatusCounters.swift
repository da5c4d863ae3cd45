extension Schema {
    /// The counts `trove status` shows, kept as writes happen so that it never scans.
    static let statusCounters = """
        -- One row per count, changed in the transaction of every write that changes it,
        -- by the triggers below. An import into an empty table drops the insert trigger
        -- while it runs and counts its rows itself: a trigger per inserted row would
        -- double the cost of a first import.
        --   treasures               every treasure
        --   treasure_images         treasures with a local image (not http(s)://)
        --   treasure_images_empty   of those, the image ''
        --   posts:STATUS            posts by status
        --   post_photos             posts with a photo
        --   post_photos_empty       of those, the photo ''
        --   post_photos_approved    approved posts with a photo
        CREATE TABLE status_counters (
            name TEXT PRIMARY KEY NOT NULL,
            n    INTEGER NOT NULL
        ) WITHOUT ROWID;
        INSERT INTO status_counters (name, n)
        SELECT 'treasures', count(*) FROM treasures
        UNION ALL
        SELECT 'treasure_images', count(*) FROM treasures
        WHERE image IS NOT NULL AND image NOT LIKE 'http://%' AND image NOT LIKE 'https://%'
        UNION ALL
        SELECT 'treasure_images_empty', count(*) FROM treasures WHERE image = ''
        UNION ALL
        SELECT 'posts:' || s.status, (SELECT count(*) FROM posts WHERE status = s.status)
        FROM (SELECT 'pending' AS status UNION ALL SELECT 'approved' UNION ALL SELECT 'rejected'
              UNION ALL SELECT 'flagged' UNION ALL SELECT 'withdrawn') AS s
        UNION ALL
        SELECT 'post_photos', count(*) FROM posts WHERE photo IS NOT NULL
        UNION ALL
        SELECT 'post_photos_empty', count(*) FROM posts WHERE photo = ''
        UNION ALL
        SELECT 'post_photos_approved', count(*) FROM posts
        WHERE photo IS NOT NULL AND status = 'approved';

        \(treasuresCountedInsert);
        CREATE TRIGGER treasures_counted_delete AFTER DELETE ON treasures
        BEGIN
            UPDATE status_counters SET n = n - 1 WHERE name IN ('treasures',
                CASE WHEN OLD.image IS NOT NULL AND OLD.image NOT LIKE 'http://%'
                      AND OLD.image NOT LIKE 'https://%' THEN 'treasure_images' END,
                CASE WHEN OLD.image = '' THEN 'treasure_images_empty' END);
        END;
        CREATE TRIGGER treasures_counted_update AFTER UPDATE OF image ON treasures
        WHEN OLD.image IS NOT NEW.image
        BEGIN
            UPDATE status_counters SET n = n - 1 WHERE name IN (
                CASE WHEN OLD.image IS NOT NULL AND OLD.image NOT LIKE 'http://%'
                      AND OLD.image NOT LIKE 'https://%' THEN 'treasure_images' END,
                CASE WHEN OLD.image = '' THEN 'treasure_images_empty' END);
            UPDATE status_counters SET n = n + 1 WHERE name IN (
                CASE WHEN NEW.image IS NOT NULL AND NEW.image NOT LIKE 'http://%'
                      AND NEW.image NOT LIKE 'https://%' THEN 'treasure_images' END,
                CASE WHEN NEW.image = '' THEN 'treasure_images_empty' END);
        END;

        CREATE TRIGGER posts_counted_insert AFTER INSERT ON posts
        BEGIN
            UPDATE status_counters SET n = n + 1 WHERE name IN ('posts:' || NEW.status,
                CASE WHEN NEW.photo IS NOT NULL THEN 'post_photos' END,
                CASE WHEN NEW.photo = '' THEN 'post_photos_empty' END,
                CASE WHEN NEW.photo IS NOT NULL AND NEW.status = 'approved'
                     THEN 'post_photos_approved' END);
        END;
        CREATE TRIGGER posts_counted_delete AFTER DELETE ON posts
        BEGIN
            UPDATE status_counters SET n = n - 1 WHERE name IN ('posts:' || OLD.status,
                CASE WHEN OLD.photo IS NOT NULL THEN 'post_photos' END,
                CASE WHEN OLD.photo = '' THEN 'post_photos_empty' END,
                CASE WHEN OLD.photo IS NOT NULL AND OLD.status = 'approved'
                     THEN 'post_photos_approved' END);
        END;
        CREATE TRIGGER posts_counted_update AFTER UPDATE OF status, photo ON posts
        WHEN OLD.status IS NOT NEW.status OR OLD.photo IS NOT NEW.photo
        BEGIN
            UPDATE status_counters SET n = n - 1 WHERE name IN ('posts:' || OLD.status,
                CASE WHEN OLD.photo IS NOT NULL THEN 'post_photos' END,
                CASE WHEN OLD.photo = '' THEN 'post_photos_empty' END,
                CASE WHEN OLD.photo IS NOT NULL AND OLD.status = 'approved'
                     THEN 'post_photos_approved' END);
            UPDATE status_counters SET n = n + 1 WHERE name IN ('posts:' || NEW.status,
                CASE WHEN NEW.photo IS NOT NULL THEN 'post_photos' END,
                CASE WHEN NEW.photo = '' THEN 'post_photos_empty' END,
                CASE WHEN NEW.photo IS NOT NULL AND NEW.status = 'approved'
                     THEN 'post_photos_approved' END);
        END;

        -- The records that were stale (`what`: 'geohash' or 'images') when the consumer of
        -- that name in change_consumers last took everything in: a count now checks only
        -- them and the records marked since.
        CREATE TABLE stale_records (
            what TEXT NOT NULL CHECK (what IN ('geohash', 'images')),
            kind TEXT NOT NULL CHECK (kind IN ('treasure', 'post')),
            key  TEXT NOT NULL,
            PRIMARY KEY (what, kind, key)
        ) WITHOUT ROWID;
        """

    /// Counts each inserted treasure. `TreasureImporter` drops it while it fills an empty
    /// table and creates it again from this text, so this text, like the migration, never
    /// changes.
    static let treasuresCountedInsert = """
        CREATE TRIGGER treasures_counted_insert AFTER INSERT ON treasures
        BEGIN
            UPDATE status_counters SET n = n + 1 WHERE name IN ('treasures',
                CASE WHEN NEW.image IS NOT NULL AND NEW.image NOT LIKE 'http://%'
                      AND NEW.image NOT LIKE 'https://%' THEN 'treasure_images' END,
                CASE WHEN NEW.image = '' THEN 'treasure_images_empty' END);
        END
        """
}
