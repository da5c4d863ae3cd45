extension Schema {
    /// The treasures of one source file found through an index, not a scan of them all: a
    /// file of 3 rows read again into a million treasures reads its own 3 (the index holds
    /// the key too, so they come in key order).
    static let treasuresBySource = """
        CREATE INDEX treasures_source ON treasures (source);
        """
}
