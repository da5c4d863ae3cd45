import TroveBase
import TroveSQLite

// MARK: - What validate reads

extension TreasureStore {
    /// Every treasure (with `keys`, only those), as validate reads them: in import order
    /// (by source, line, key), located at their line. Only a treasure for which `details`
    /// is true has its image, description and geohash read: the others are only compared
    /// with the reported ones.
    ///
    /// - Throws: `SQLiteError`, or what `body` throws.
    package func forEachForValidation(
        keys: [String]?, details: (String) -> Bool, _ body: (Treasure) throws -> Void
    ) throws {
        let statement = try database.prepare(
            """
            SELECT t.key, t.name, t.lat, t.lon, t.image, t.description, g.geohash,
                   s.path AS file, t.source_line
            FROM treasures AS t LEFT JOIN sources AS s ON s.id = t.source
            LEFT JOIN treasure_geohashes AS g ON g.key = t.key
            \(keys == nil ? "" : "WHERE t.key IN (SELECT value FROM json_each(?1))")
            ORDER BY t.source, t.source_line, t.key
            """)
        try statement.bind(keys.map { [.text($0.jsonText)] } ?? [])
        let key = try statement.index(of: TreasureColumn.key)
        let name = try statement.index(of: TreasureColumn.name)
        let latitude = try statement.index(of: TreasureColumn.lat)
        let longitude = try statement.index(of: TreasureColumn.lon)
        let image = try statement.index(of: TreasureColumn.image)
        let description = try statement.index(of: TreasureColumn.description)
        let geohash = try statement.index(of: TreasureColumn.geohash)
        let file = try statement.index(of: TreasureColumn.file)
        let line = try statement.index(of: TreasureColumn.sourceLine)
        while let row = try statement.next() {
            // Lines are the ones of each treasure's last import. A treasure whose row is
            // gone from its file has no line any more, and is named by its key.
            let source = SourceLine.location(file: row.text(file), stored: row.int64(line))
            var treasure = Treasure(
                key: row.text(key) ?? "", name: row.text(name) ?? "",
                latitude: row.double(latitude) ?? .nan, longitude: row.double(longitude) ?? .nan,
                source: source ?? Diagnostic.Location())
            if details(treasure.key) {
                treasure.image = row.text(image)
                treasure.description = row.text(description)
                treasure.geohash = row.text(geohash)
            }
            try body(treasure)
        }
    }

    /// The key, name and position of the treasures changed after clock value `seq` that
    /// still exist.
    ///
    /// - Throws: `SQLiteError`.
    package func changedTreasures(since seq: Int64) throws -> [Treasure] {
        try database.query(
            "SELECT key, name, lat, lon FROM treasures WHERE key IN ("
                + ChangeLog.changedKeysSQL + ")",
            [.text(RecordKind.treasure.rawValue), .integer(seq)], Self.keyNameAndPosition)
    }

    /// The key, name and position of the treasures with these keys.
    ///
    /// - Throws: `SQLiteError`.
    package func treasures(keys: [String]) throws -> [Treasure] {
        try database.query(
            "SELECT key, name, lat, lon FROM treasures "
                + "WHERE key IN (SELECT value FROM json_each(?1))",
            [.text(keys.jsonText)], Self.keyNameAndPosition)
    }

    private static func keyNameAndPosition(_ row: Row) throws -> Treasure {
        Treasure(
            key: try row.text(TreasureColumn.key) ?? "",
            name: try row.text(TreasureColumn.name) ?? "",
            latitude: try row.double(TreasureColumn.lat) ?? .nan,
            longitude: try row.double(TreasureColumn.lon) ?? .nan)
    }

    /// One treasure as `forEachPosition(named:keys:_:)` sees it.
    package struct PositionRow {
        package var latitude: Double
        package var longitude: Double
        /// Whether its name or key is among those asked about.
        package var isNamed: Bool
        package var source: Int64?
        /// Whether its row is gone from its file.
        package var lineIsGone: Bool
    }

    /// One scan of every treasure's position, source and whether it has one of `names` or
    /// `keys`; text is made of a key only for the treasures `body` keeps.
    ///
    /// - Returns: the kept treasures' keys, in no order.
    /// - Throws: `SQLiteError`.
    package func keysOfPositions(
        named names: [String], keys: [String], keeping body: (PositionRow) -> Bool
    ) throws -> [String] {
        let statement = try database.prepare(
            """
            SELECT lat, lon,
                   name IN (SELECT value FROM json_each(?1))
                   OR key IN (SELECT value FROM json_each(?2)) AS named,
                   key, source, source_line IS NULL AS gone
            FROM treasures
            """)
        try statement.bind([.text(names.jsonText), .text(keys.jsonText)])
        let latitude = try statement.index(of: TreasureColumn.lat)
        let longitude = try statement.index(of: TreasureColumn.lon)
        let named = try statement.index(of: TreasureColumn.named)
        let key = try statement.index(of: TreasureColumn.key)
        let source = try statement.index(of: TreasureColumn.source)
        let gone = try statement.index(of: TreasureColumn.gone)
        var kept: [String] = []
        while let row = try statement.next() {
            let position = PositionRow(
                latitude: row.double(latitude) ?? .nan, longitude: row.double(longitude) ?? .nan,
                isNamed: row.int64(named) == 1, source: row.int64(source),
                lineIsGone: row.int64(gone) == 1)
            if body(position) { kept.append(row.text(key) ?? "") }
        }
        return kept
    }
}
