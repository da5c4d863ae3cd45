extension Schema {
    /// Redaction: the boxes a moderator approved a post with, hidden in what is published.
    ///
    /// Each holds the boxes as `x,y,w,h` fractions of the upright photo, sorted and joined
    /// by `;` (`RedactionBox.canonical`), NULL for none. `posts.redaction` is what the
    /// renditions hide now; `redacted_version` is the post's version with them (the hash
    /// of the content's and the boxes), so other boxes make another version, and NULL
    /// keeps the content's version. The decision that set them records them, and so does
    /// the version they made in `post_versions`.
    static let redaction = """
        ALTER TABLE posts ADD COLUMN redaction TEXT;
        ALTER TABLE posts ADD COLUMN redacted_version TEXT;
        ALTER TABLE decisions ADD COLUMN redaction TEXT;
        ALTER TABLE post_versions ADD COLUMN redaction TEXT;
        """
}
