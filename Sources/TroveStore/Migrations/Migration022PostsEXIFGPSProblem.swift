extension Schema {
    /// Why a photo's EXIF GPS position could not be read, when it has one: the signal says
    /// so rather than "no GPS position".
    static let postsEXIFGPSProblem = """
        ALTER TABLE posts ADD COLUMN exif_gps_problem TEXT;
        """
}
