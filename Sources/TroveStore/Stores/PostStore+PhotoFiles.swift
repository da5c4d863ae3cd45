import TroveSQLite

// The facts of photo files post imports read, kept so that a file unchanged since is not
// read again.

extension PostStore {
    /// A look-up of a photo file's stored facts by its path, prepared once for many:
    /// the stamp the file had when it was read, and what it held.
    ///
    /// - Throws: `SQLiteError`.
    package func photoFileLookup() throws -> (String) throws -> (stamp: String, facts: PhotoFacts)?
    {
        let statement = try database.prepare(
            """
            SELECT stamp, fingerprint, phash, width, height, exif_lat, exif_lon, exif_time,
                   exif_gps_problem, problem
            FROM photo_files WHERE path = ?
            """)
        return { path in try statement.first([.text(path)], Self.decodePhotoFile) }
    }

    private static func decodePhotoFile(_ row: Row) throws -> (stamp: String, facts: PhotoFacts) {
        typealias Column = PhotoFileColumn
        var facts = PhotoFacts(
            fingerprint: try row.required(Column.fingerprint),
            width: try row.int64(Column.width).map { Int($0) },
            height: try row.int64(Column.height).map { Int($0) },
            exifLatitude: try row.double(Column.exifLatitude),
            exifLongitude: try row.double(Column.exifLongitude),
            exifTime: try row.text(Column.exifTime),
            perceptualHash: try row.int64(Column.phash).map { UInt64(bitPattern: $0) },
            problem: try row.text(Column.problem))
        facts.exifGPSProblem = try row.text(Column.exifGPSProblem)
        return (try row.required(Column.stamp), facts)
    }

    /// A statement that records what a photo file held when it had `stamp`:
    /// `save(path, stamp, facts)`.
    ///
    /// - Throws: `SQLiteError`.
    package func photoFileWriter() throws -> (String, String, PhotoFacts) throws -> Void {
        let statement = try database.prepare(
            """
            INSERT OR REPLACE INTO photo_files (path, stamp, fingerprint, phash, width, height,
                exif_lat, exif_lon, exif_time, exif_gps_problem, problem)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        return { path, stamp, facts in
            _ = try statement.run([
                .text(path), .text(stamp), .text(facts.fingerprint),
                facts.perceptualHash.map { .integer(Int64(bitPattern: $0)) },
                facts.width.map { .integer(Int64($0)) }, facts.height.map { .integer(Int64($0)) },
                facts.exifLatitude.map { .real($0) }, facts.exifLongitude.map { .real($0) },
                facts.exifTime.map { .text($0) }, facts.exifGPSProblem.map { .text($0) },
                facts.problem.map { .text($0) },
            ])
        }
    }
}
