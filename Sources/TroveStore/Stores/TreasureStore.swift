import TroveBase
import TroveSQLite

/// The one home of the SQL of the treasures family: the `treasures`,
/// `treasure_geohashes` and `sources` tables, for import, sync, removal, listings,
/// circle queries, geohash assignment and validate. Callers get domain values
/// (``Treasure``, keys, counts), never rows; rows are read by column name, a bulk loop
/// resolving its names to indexes once, before its first row.
///
/// A store works on the connection of the workspace it is made for, and writes there
/// inside the caller's transaction (`Workspace.write`), marking what it changes in the
/// same transaction. ``reader(path:)`` makes one on a read-only connection of its own,
/// for reading on another thread while the workspace's connection writes.
///
/// Statements used in a loop are prepared once and kept with the store.
package final class TreasureStore {
    package let database: Database
    /// Nil for a reader, which changes nothing to mark.
    private let workspace: Workspace?

    private var deleteTreasure: Statement?
    private var deleteRenditions: Statement?
    private var forgetLineOf: Statement?
    var insertGeohashChunk: Statement?
    var insertGeohash: Statement?

    /// A store on the workspace's own connection.
    package init(_ workspace: Workspace) {
        self.database = workspace.database
        self.workspace = workspace
    }

    private init(reading database: Database) {
        self.database = database
        self.workspace = nil
    }

    /// A store on a read-only connection of its own to the workspace file at `path`. It
    /// sees the workspace as it is when its first read begins.
    ///
    /// - Throws: `SQLiteError`.
    package static func reader(path: String) throws -> TreasureStore {
        TreasureStore(reading: try Database(path: path, mode: .readOnly))
    }

    /// `slot`'s statement, prepared from `sql` on first use.
    package func prepared(_ slot: inout Statement?, _ sql: String) throws -> Statement {
        if let statement = slot { return statement }
        let statement = try database.prepare(sql)
        slot = statement
        return statement
    }

    package func markChanged(_ kind: RecordKind, _ key: String) {
        workspace?.markChanged(kind, key)
    }

    package func markAllChanged(_ kind: RecordKind) {
        workspace?.markAllChanged(kind)
    }

    // MARK: - Reading treasures

    /// Every column a listing shows, with the source (its `SourceIdentity`) and the geohash.
    private static let selectListed = """
        SELECT t.key, t.name, t.lat, t.lon, t.description, t.image, t.extra, g.geohash,
               s.path AS file, t.source_line
        FROM treasures AS t LEFT JOIN sources AS s ON s.id = t.source
        LEFT JOIN treasure_geohashes AS g ON g.key = t.key
        """

    /// The indexes of `selectListed`'s columns, resolved once per statement.
    private struct ListedColumns {
        let key: Int
        let name: Int
        let latitude: Int
        let longitude: Int
        let description: Int
        let image: Int
        let extra: Int
        let geohash: Int
        let file: Int
        let line: Int

        init(_ statement: Statement) throws {
            key = try statement.index(of: TreasureColumn.key)
            name = try statement.index(of: TreasureColumn.name)
            latitude = try statement.index(of: TreasureColumn.lat)
            longitude = try statement.index(of: TreasureColumn.lon)
            description = try statement.index(of: TreasureColumn.description)
            image = try statement.index(of: TreasureColumn.image)
            extra = try statement.index(of: TreasureColumn.extra)
            geohash = try statement.index(of: TreasureColumn.geohash)
            file = try statement.index(of: TreasureColumn.file)
            line = try statement.index(of: TreasureColumn.sourceLine)
        }

        /// The whole treasure; with `precision`, whether its geohash is current is judged.
        func treasure(_ row: Row, precision: Int?) -> Treasure {
            let latitude = row.double(self.latitude) ?? .nan
            let longitude = row.double(self.longitude) ?? .nan
            let geohash = row.text(self.geohash)
            let current =
                geohash.flatMap { stored in
                    precision.map {
                        stored
                            == Geohash.encode(
                                latitude: latitude, longitude: longitude, precision: $0)
                    }
                } ?? false
            return Treasure(
                key: row.text(key) ?? "", name: row.text(name) ?? "", latitude: latitude,
                longitude: longitude, description: row.text(description),
                image: row.text(image), extras: TreasureExtra.parse(row.text(extra)),
                geohash: geohash, geohashIsCurrent: current,
                source: TreasureStore.source(file: row.text(file), stored: row.int64(line)))
        }
    }

    /// Where a treasure comes from: the file even when the row is gone from it.
    package static func source(file: String?, stored line: Int64?) -> Diagnostic.Location {
        SourceLine.location(file: file, stored: line) ?? Diagnostic.Location(file: file)
    }

    /// Every treasure, whole, in key order (the order exports write). With `precision`,
    /// each says whether its geohash is current at it.
    ///
    /// - Throws: `SQLiteError`, or what `body` throws.
    package func forEachTreasure(
        geohashPrecision precision: Int?, _ body: (Treasure) throws -> Void
    )
        throws
    {
        let statement = try database.prepare(Self.selectListed + " ORDER BY t.key")
        let columns = try ListedColumns(statement)
        while let row = try statement.next() {
            try body(columns.treasure(row, precision: precision))
        }
    }

    /// The treasure `key`, whole, or nil.
    ///
    /// - Throws: `SQLiteError`.
    package func treasure(_ key: String, geohashPrecision precision: Int?) throws -> Treasure? {
        let statement = try database.prepare(Self.selectListed + " WHERE t.key = ?")
        try statement.bind([.text(key)])
        let columns = try ListedColumns(statement)
        return try statement.next().map { columns.treasure($0, precision: precision) }
    }

    /// Every treasure's key, name and position, in key order.
    ///
    /// - Throws: `SQLiteError`.
    package func positionsInKeyOrder() throws -> [Treasure] {
        try database.query("SELECT key, name, lat, lon FROM treasures ORDER BY key") { row in
            Treasure(
                key: try row.text(TreasureColumn.key) ?? "",
                name: try row.text(TreasureColumn.name) ?? "",
                latitude: try row.double(TreasureColumn.lat) ?? 0,
                longitude: try row.double(TreasureColumn.lon) ?? 0)
        }
    }

    /// The renditions made for treasure `key`, by name.
    ///
    /// - Throws: `SQLiteError`.
    package func renditions(ofTreasure key: String) throws -> [TreasureRendition] {
        try database.query(
            """
            SELECT name, path, width, height FROM renditions
            WHERE owner_kind = 'treasure' AND owner_key = ? ORDER BY name
            """, [.text(key)]
        ) { row in
            TreasureRendition(
                name: try row.text(TreasureColumn.name) ?? "",
                path: try row.text(TreasureColumn.path) ?? "",
                width: Int(try row.int64(TreasureColumn.width) ?? 0),
                height: Int(try row.int64(TreasureColumn.height) ?? 0))
        }
    }

    // MARK: - Removing

    /// Removes the treasure `key` with what hangs off it: the geohash (by the schema's
    /// trigger) and the rendition records. Call inside a write.
    ///
    /// - Returns: false when there was no such treasure.
    /// - Throws: `SQLiteError`.
    @discardableResult
    package func remove(_ key: String) throws -> Bool {
        let treasure = try prepared(&deleteTreasure, "DELETE FROM treasures WHERE key = ?")
        let renditions = try prepared(
            &deleteRenditions,
            "DELETE FROM renditions WHERE owner_kind = 'treasure' AND owner_key = ?")
        let removed = try treasure.run([.text(key)]) > 0
        try renditions.run([.text(key)])
        if removed { markChanged(.treasure, key) }
        return removed
    }

    /// Forgets the line of treasure `key`: its file holds something else there now.
    ///
    /// - Throws: `SQLiteError`.
    package func forgetLine(of key: String) throws {
        try prepared(&forgetLineOf, "UPDATE treasures SET source_line = NULL WHERE key = ?")
            .run([.text(key)])
    }
}
