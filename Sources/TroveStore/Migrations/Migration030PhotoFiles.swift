extension Schema {
    /// What post imports learned of each photo file they read, so that the next import
    /// (an unchanged file imported again, or a run going on after a kill) does not read,
    /// hash and decode the file again while it is as it was.
    static let photoFiles = """
        -- A photo file by its real path; `stamp` is its device, inode, size and
        -- modification and status-change times when it was read (a rewrite changes it).
        CREATE TABLE photo_files (
            path             TEXT PRIMARY KEY,
            stamp            TEXT NOT NULL,
            fingerprint      TEXT NOT NULL,
            phash            INTEGER,
            width            INTEGER,
            height           INTEGER,
            exif_lat         REAL,
            exif_lon         REAL,
            exif_time        TEXT,
            exif_gps_problem TEXT,
            problem          TEXT
        ) WITHOUT ROWID;
        """
}
