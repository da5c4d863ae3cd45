extension Schema {
    // The triggers of 007 said INSERT OR IGNORE, but a trigger fired by an upsert's DO UPDATE
    // takes the outer statement's conflict handling (ABORT) instead of its own: rendering a
    // rendition again under a path that already has a token failed with "UNIQUE constraint
    // failed: storage_tokens.path". These skip existing paths without any conflict.
    static let storageTokenTriggersUnderUpsert = """
        DROP TRIGGER renditions_token_inserted;
        DROP TRIGGER renditions_token_moved;
        CREATE TRIGGER renditions_token_inserted AFTER INSERT ON renditions
        BEGIN
            INSERT INTO storage_tokens (path, token) SELECT NEW.path, \(randomUUID)
                WHERE NOT EXISTS (SELECT 1 FROM storage_tokens WHERE path = NEW.path);
        END;
        CREATE TRIGGER renditions_token_moved AFTER UPDATE OF path ON renditions
        BEGIN
            INSERT INTO storage_tokens (path, token) SELECT NEW.path, \(randomUUID)
                WHERE NOT EXISTS (SELECT 1 FROM storage_tokens WHERE path = NEW.path);
        END;
        """
}
