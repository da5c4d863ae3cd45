import TroveBase

// The reads and writes of signals and of the review map's neighbours.

extension PostStore {
    /// What every post's signals are computed from, in id order.
    ///
    /// - Throws: `SQLiteError`.
    package func signalFacts() throws -> [SignalFacts] {
        let statement = try database.prepare(
            """
            SELECT id, user, lat, lon, description, date, photo_hash, photo_phash, photo_width,
                   photo_height, exif_lat, exif_lon, exif_gps_problem, photo_problem, status, signals
            FROM posts ORDER BY id
            """)
        // Every post is read: the columns are looked up once, not per row.
        let id = try statement.index(of: PostColumn.id),
            user = try statement.index(of: PostColumn.user)
        let lat = try statement.index(of: PostColumn.lat),
            lon = try statement.index(of: PostColumn.lon)
        let description = try statement.index(of: PostColumn.description),
            date = try statement.index(of: PostColumn.date)
        let photoHash = try statement.index(of: PostColumn.photoHash),
            phash = try statement.index(of: PostColumn.photoPerceptualHash)
        let width = try statement.index(of: PostColumn.photoWidth),
            height = try statement.index(of: PostColumn.photoHeight)
        let exifLat = try statement.index(of: PostColumn.exifLatitude),
            exifLon = try statement.index(of: PostColumn.exifLongitude)
        let gpsProblem = try statement.index(of: PostColumn.exifGPSProblem)
        let problem = try statement.index(of: PostColumn.photoProblem),
            status = try statement.index(of: PostColumn.status)
        let signals = try statement.index(of: PostColumn.signals)
        var facts: [SignalFacts] = []
        while let row = try statement.next() {
            facts.append(
                SignalFacts(
                    id: row.text(id) ?? "", user: row.text(user), latitude: row.double(lat) ?? 0,
                    longitude: row.double(lon) ?? 0, description: row.text(description),
                    date: row.text(date), moment: row.text(date).flatMap(PostDate.moment),
                    photoHash: row.text(photoHash),
                    phash: row.int64(phash).map { UInt64(bitPattern: $0) },
                    width: row.int64(width).map { Int($0) },
                    height: row.int64(height).map { Int($0) },
                    exifLatitude: row.double(exifLat), exifLongitude: row.double(exifLon),
                    exifGPSProblem: row.text(gpsProblem),
                    photoProblem: row.text(problem), status: row.text(status) ?? "pending",
                    signals: row.text(signals) ?? "[]"))
        }
        return facts
    }

    /// Stores posts' signals (`json`) and their names, one post at a time, with one
    /// prepared statement.
    ///
    /// - Throws: `SQLiteError`.
    package func signalWriter() throws -> (_ id: String, _ json: String, _ names: String) throws ->
        Void
    {
        let update = try database.prepare(
            "UPDATE posts SET signals = ?2, signal_names = ?3 WHERE id = ?1")
        return { id, json, names in _ = try update.run([.text(id), .text(json), .text(names)]) }
    }

    /// The posts other than `id` inside a box: `latitudes` and either longitude range.
    ///
    /// - Throws: `SQLiteError`.
    package func positions(
        latitudes: ClosedRange<Double>,
        longitudes: (first: ClosedRange<Double>, second: ClosedRange<Double>),
        excluding id: String
    ) throws -> [(id: String, latitude: Double, longitude: Double)] {
        try database.query(
            """
            SELECT id, lat, lon FROM posts
            WHERE lat BETWEEN ? AND ? AND (lon BETWEEN ? AND ? OR lon BETWEEN ? AND ?)
              AND id <> ?
            """,
            [
                .real(latitudes.lowerBound), .real(latitudes.upperBound),
                .real(longitudes.first.lowerBound), .real(longitudes.first.upperBound),
                .real(longitudes.second.lowerBound), .real(longitudes.second.upperBound),
                .text(id),
            ]
        ) { row in
            (
                try row.text(PostColumn.id) ?? "", try row.double(PostColumn.lat) ?? 0,
                try row.double(PostColumn.lon) ?? 0
            )
        }
    }
}
