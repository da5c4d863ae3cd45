extension Schema {
    /// How many paths and objects each target holds, beside the clock value and inputs it
    /// took in, so that a publish of a few changed records starts from them.
    static let publishedCounts = """
        ALTER TABLE publish_targets ADD COLUMN paths INTEGER;
        ALTER TABLE publish_targets ADD COLUMN objects INTEGER;
        """
}
