import TroveSQLite

// MARK: - For tests only

extension Workspace {
    /// Typed rows for tests to arrange what no command writes as it is (`WorkspaceFixture`).
    @_spi(Testing) public var fixture: WorkspaceFixture { WorkspaceFixture(database: database) }
}

/// Rows a test arranges directly: treasures without a source file, posts already decided
/// without a trail, renditions of images that are not on disk. Tests name what they
/// arrange through these instead of writing SQL; every trigger (counters, change log)
/// runs as it does for a command's writes.
@_spi(Testing) public struct WorkspaceFixture {
    let database: Database

    /// Adds a treasure, as if imported from no file.
    ///
    /// - Throws: `SQLiteError`, for a key that exists among others.
    public func addTreasure(
        _ key: String, name: String, lat: Double, lon: Double, description: String? = nil,
        image: String? = nil, extra: String? = nil
    ) throws {
        try database.execute(
            """
            INSERT INTO treasures (key, name, lat, lon, description, image, extra)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(key), .text(name), .real(lat), .real(lon), description.map { .text($0) },
                image.map { .text($0) }, extra.map { .text($0) },
            ])
    }

    /// Changes a treasure as a re-import of its file would (fields left nil stay as they
    /// are), without assigning its geohash again.
    ///
    /// - Throws: `SQLiteError`.
    public func editTreasure(
        _ key: String, name: String? = nil, lat: Double? = nil, image: String? = nil
    ) throws {
        try database.execute(
            """
            UPDATE treasures SET name = coalesce(?, name), lat = coalesce(?, lat),
                image = coalesce(?, image)
            WHERE key = ?
            """,
            [name.map { .text($0) }, lat.map { .real($0) }, image.map { .text($0) }, .text(key)])
    }

    /// Adds a post in `status`, with no decision behind it.
    ///
    /// - Throws: `SQLiteError`.
    public func addPost(
        _ id: String, user: String?, lat: Double, lon: Double, description: String? = nil,
        date: String? = nil, photo: String? = nil, status: String, contentHash: String = "c",
        at: String = "x"
    ) throws {
        try database.execute(
            """
            INSERT INTO posts (id, user, lat, lon, description, date, photo, content_hash,
                               status, imported_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(id), user.map { .text($0) }, .real(lat), .real(lon),
                description.map { .text($0) }, date.map { .text($0) }, photo.map { .text($0) },
                .text(contentHash), .text(status), .text(at), .text(at),
            ])
    }

    /// Records a rendition as `images` would, without its file; replaces the record's
    /// earlier one of the same name.
    ///
    /// - Throws: `SQLiteError`.
    public func setRendition(
        _ kind: String, _ key: String, _ name: String, source: String, path: String,
        width: Int = 10, height: Int = 10, bytes: Int = 100, hash: String = "x",
        sourceHash: String = "h", settings: String = "s", madeAt: String = "x"
    ) throws {
        try database.execute(
            """
            INSERT INTO renditions (owner_kind, owner_key, name, source, source_hash, settings,
                path, width, height, bytes, hash, made_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (owner_kind, owner_key, name) DO UPDATE SET source = excluded.source,
                source_hash = excluded.source_hash, settings = excluded.settings,
                path = excluded.path, width = excluded.width, height = excluded.height,
                bytes = excluded.bytes, hash = excluded.hash, made_at = excluded.made_at
            """,
            [
                .text(kind), .text(key), .text(name), .text(source), .text(sourceHash),
                .text(settings), .text(path), .integer(Int64(width)), .integer(Int64(height)),
                .integer(Int64(bytes)), .text(hash), .text(madeAt),
            ])
    }
}
