extension Schema {
    /// The counts `trove status` shows, kept as writes happen so that it never scans.
    static let statusCounters = """
        -- One row of counts, changed in the transaction of every write that changes them,
        -- by the triggers below (one row, so that a trigger seeks once). An import into an
        -- empty table drops the insert trigger while it runs and counts its rows itself:
        -- a first import has no cost to spare beside sqlite3's .import.
        --   treasure_images          treasures with a local image (not http(s)://)
        --   treasure_images_empty    of those, the image ''
        --   posts_STATUS             posts by status
        --   post_photos              posts with a photo; _empty: the photo ''
        --   post_photos_approved     approved posts with a photo
        CREATE TABLE status_counters (
            id                     INTEGER PRIMARY KEY CHECK (id = 1),
            treasures              INTEGER NOT NULL,
            treasure_images        INTEGER NOT NULL,
            treasure_images_empty  INTEGER NOT NULL,
            posts_pending          INTEGER NOT NULL,
            posts_approved         INTEGER NOT NULL,
            posts_rejected         INTEGER NOT NULL,
            posts_flagged          INTEGER NOT NULL,
            posts_withdrawn        INTEGER NOT NULL,
            post_photos            INTEGER NOT NULL,
            post_photos_empty      INTEGER NOT NULL,
            post_photos_approved   INTEGER NOT NULL
        );
        INSERT INTO status_counters
        SELECT 1, t.*, p.* FROM
            (SELECT count(*),
                    count(*) FILTER (WHERE image IS NOT NULL AND image NOT LIKE 'http://%'
                                     AND image NOT LIKE 'https://%'),
                    count(*) FILTER (WHERE image IS '')
             FROM treasures) AS t,
            (SELECT count(*) FILTER (WHERE status = 'pending'),
                    count(*) FILTER (WHERE status = 'approved'),
                    count(*) FILTER (WHERE status = 'rejected'),
                    count(*) FILTER (WHERE status = 'flagged'),
                    count(*) FILTER (WHERE status = 'withdrawn'),
                    count(*) FILTER (WHERE photo IS NOT NULL),
                    count(*) FILTER (WHERE photo IS ''),
                    count(*) FILTER (WHERE photo IS NOT NULL AND status = 'approved')
             FROM posts) AS p;

        \(treasuresCountedInsert);
        CREATE TRIGGER treasures_counted_delete AFTER DELETE ON treasures
        BEGIN
            UPDATE status_counters SET
                treasures = treasures - 1,
                treasure_images = treasure_images - (OLD.image IS NOT NULL
                    AND OLD.image NOT LIKE 'http://%' AND OLD.image NOT LIKE 'https://%'),
                treasure_images_empty = treasure_images_empty - (OLD.image IS '')
            WHERE id = 1;
        END;
        CREATE TRIGGER treasures_counted_update AFTER UPDATE OF image ON treasures
        WHEN OLD.image IS NOT NEW.image
        BEGIN
            UPDATE status_counters SET
                treasure_images = treasure_images
                    + (NEW.image IS NOT NULL AND NEW.image NOT LIKE 'http://%'
                       AND NEW.image NOT LIKE 'https://%')
                    - (OLD.image IS NOT NULL AND OLD.image NOT LIKE 'http://%'
                       AND OLD.image NOT LIKE 'https://%'),
                treasure_images_empty = treasure_images_empty
                    + (NEW.image IS '') - (OLD.image IS '')
            WHERE id = 1;
        END;

        CREATE TRIGGER posts_counted_insert AFTER INSERT ON posts
        BEGIN
            UPDATE status_counters SET
                posts_pending = posts_pending + (NEW.status IS 'pending'),
                posts_approved = posts_approved + (NEW.status IS 'approved'),
                posts_rejected = posts_rejected + (NEW.status IS 'rejected'),
                posts_flagged = posts_flagged + (NEW.status IS 'flagged'),
                posts_withdrawn = posts_withdrawn + (NEW.status IS 'withdrawn'),
                post_photos = post_photos + (NEW.photo IS NOT NULL),
                post_photos_empty = post_photos_empty + (NEW.photo IS ''),
                post_photos_approved = post_photos_approved
                    + (NEW.photo IS NOT NULL AND NEW.status IS 'approved')
            WHERE id = 1;
        END;
        CREATE TRIGGER posts_counted_delete AFTER DELETE ON posts
        BEGIN
            UPDATE status_counters SET
                posts_pending = posts_pending - (OLD.status IS 'pending'),
                posts_approved = posts_approved - (OLD.status IS 'approved'),
                posts_rejected = posts_rejected - (OLD.status IS 'rejected'),
                posts_flagged = posts_flagged - (OLD.status IS 'flagged'),
                posts_withdrawn = posts_withdrawn - (OLD.status IS 'withdrawn'),
                post_photos = post_photos - (OLD.photo IS NOT NULL),
                post_photos_empty = post_photos_empty - (OLD.photo IS ''),
                post_photos_approved = post_photos_approved
                    - (OLD.photo IS NOT NULL AND OLD.status IS 'approved')
            WHERE id = 1;
        END;
        CREATE TRIGGER posts_counted_update AFTER UPDATE OF status, photo ON posts
        WHEN OLD.status IS NOT NEW.status OR OLD.photo IS NOT NEW.photo
        BEGIN
            UPDATE status_counters SET
                posts_pending = posts_pending
                    + (NEW.status IS 'pending') - (OLD.status IS 'pending'),
                posts_approved = posts_approved
                    + (NEW.status IS 'approved') - (OLD.status IS 'approved'),
                posts_rejected = posts_rejected
                    + (NEW.status IS 'rejected') - (OLD.status IS 'rejected'),
                posts_flagged = posts_flagged
                    + (NEW.status IS 'flagged') - (OLD.status IS 'flagged'),
                posts_withdrawn = posts_withdrawn
                    + (NEW.status IS 'withdrawn') - (OLD.status IS 'withdrawn'),
                post_photos = post_photos + (NEW.photo IS NOT NULL) - (OLD.photo IS NOT NULL),
                post_photos_empty = post_photos_empty + (NEW.photo IS '') - (OLD.photo IS ''),
                post_photos_approved = post_photos_approved
                    + (NEW.photo IS NOT NULL AND NEW.status IS 'approved')
                    - (OLD.photo IS NOT NULL AND OLD.status IS 'approved')
            WHERE id = 1;
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
            UPDATE status_counters SET
                treasures = treasures + 1,
                treasure_images = treasure_images + (NEW.image IS NOT NULL
                    AND NEW.image NOT LIKE 'http://%' AND NEW.image NOT LIKE 'https://%'),
                treasure_images_empty = treasure_images_empty + (NEW.image IS '')
            WHERE id = 1;
        END
        """
}
