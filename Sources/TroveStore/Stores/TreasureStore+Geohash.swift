import TroveBase
import TroveSQLite

// MARK: - Circle queries

extension TreasureStore {
    /// The treasures whose stored geohash lies in one of `ranges`, by key, name and
    /// position, each range in geohash order; a treasure may come once per range.
    ///
    /// The ranges are scanned on the narrow geohash table's covering index alone; a
    /// candidate whose geohash `keep` refuses (read in place) is dropped there, and only
    /// the rest are looked up in the wide treasures table.
    ///
    /// - Throws: `SQLiteError`, or what `body` throws.
    package func forEachTreasure(
        inGeohashRanges ranges: [GeohashRange], keeping keep: (UnsafeBufferPointer<UInt8>) -> Bool,
        _ body: (Treasure) throws -> Void
    ) throws {
        let candidates = try database.prepare(
            "SELECT key, geohash FROM treasure_geohashes WHERE geohash >= ? AND geohash < ?")
        let details = try database.prepare("SELECT name, lat, lon FROM treasures WHERE key = ?")
        let key = try candidates.index(of: TreasureColumn.key)
        let geohash = try candidates.index(of: TreasureColumn.geohash)
        let name = try details.index(of: TreasureColumn.name)
        let latitude = try details.index(of: TreasureColumn.lat)
        let longitude = try details.index(of: TreasureColumn.lon)
        for range in ranges {
            try candidates.bind([.text(range.start), .text(range.end)])
            while let row = try candidates.next() {
                if !(row.withUTF8(geohash, keep) ?? true) { continue }
                guard let key = row.text(key) else { continue }
                try details.bind([.text(key)])
                guard let detail = try details.next(), let lat = detail.double(latitude),
                    let lon = detail.double(longitude)
                else { continue }
                try body(
                    Treasure(
                        key: key, name: detail.text(name) ?? "", latitude: lat, longitude: lon))
            }
        }
    }
}

// MARK: - Assigning geohashes

extension TreasureStore {
    /// Stores `precision` as `geohash.precision`, in the write in progress.
    ///
    /// - Throws: `SQLiteError`.
    package func setGeohashPrecision(_ precision: Int) throws {
        try database.execute(
            "INSERT INTO settings (key, value) VALUES ('geohash.precision', ?) "
                + "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            [.text(String(precision))])
    }

    /// Whether any treasure has a geohash `length` characters long: one probe of the
    /// table, not a count.
    ///
    /// - Throws: `SQLiteError`.
    package func hasGeohash(ofLength length: Int) throws -> Bool {
        try database.scalar(
            "SELECT EXISTS (SELECT 1 FROM treasure_geohashes WHERE length(geohash) = ?)",
            [.integer(Int64(length))])?.int64 == 1
    }

    /// Gives every treasure whose stored geohash is missing or not its position's at
    /// `precision` its position's, marking each changed. A position out of range has no
    /// geohash (`trove_geohash` is NULL, which fails NOT NULL): it is skipped. Needs
    /// `GeohashFunction` registered.
    ///
    /// - Returns: how many were written.
    /// - Throws: `SQLiteError`.
    package func assignStaleGeohashes(precision: Int) throws -> Int {
        let fresh = "trove_geohash(t.lat, t.lon, ?1)"
        var written = 0
        let statement = try database.prepare(
            """
            INSERT OR IGNORE INTO treasure_geohashes (key, geohash)
            SELECT t.key, \(fresh) FROM treasures AS t
            LEFT JOIN treasure_geohashes AS g ON g.key = t.key
            WHERE g.geohash IS NOT \(fresh)
            ON CONFLICT (key) DO UPDATE SET geohash = excluded.geohash
            RETURNING key
            """)
        try statement.bind([.integer(Int64(precision))])
        let key = try statement.index(of: TreasureColumn.key)
        while let row = try statement.next() {
            written += 1
            markChanged(.treasure, row.text(key) ?? "")
        }
        return written
    }

    /// Removes every treasure's geohash.
    ///
    /// - Throws: `SQLiteError`.
    package func removeAllGeohashes() throws {
        try database.execute("DELETE FROM treasure_geohashes")
    }

    /// Calls `body` with each treasure's key (in place) and position in key order, until
    /// it returns false. A position that is not a number (NULL, text) is nil.
    ///
    /// - Throws: `SQLiteError`, or what `body` throws.
    package func forEachPositionInKeyOrder(
        _ body: (_ key: UnsafeBufferPointer<UInt8>, _ latitude: Double?, _ longitude: Double?)
            throws -> Bool
    ) throws {
        let rows = try database.prepare("SELECT key, lat, lon FROM treasures ORDER BY key")
        let key = try rows.index(of: TreasureColumn.key)
        let latitude = try rows.index(of: TreasureColumn.lat)
        let longitude = try rows.index(of: TreasureColumn.lon)
        func number(_ value: SQLiteValue?) -> Double? {
            switch value {
            case .real(let double): double
            case .integer(let integer): Double(integer)
            default: nil
            }
        }
        while let row = try rows.next() {
            let goOn = try row.withUTF8(key) {
                try body($0, number(row[latitude]), number(row[longitude]))
            }
            if goOn == false { return }
        }
    }

    /// Inserts keys and their geohashes, packed: `bytes` holds each key then its geohash,
    /// and `ends` where each of them ends. Statements are kept for the next call.
    ///
    /// - Throws: `SQLiteError`.
    package func insertGeohashes(bytes: [UInt8], ends: [Int]) throws {
        let chunk = 64
        let insertChunk = try prepared(
            &insertGeohashChunk,
            "INSERT INTO treasure_geohashes (key, geohash) VALUES "
                + Array(repeating: "(?, ?)", count: chunk).joined(separator: ", "))
        let insert = try prepared(
            &insertGeohash, "INSERT INTO treasure_geohashes (key, geohash) VALUES (?, ?)")
        let count = ends.count / 2
        try bytes.withUnsafeBytes { bytes in
            func bind(_ row: Int, at index: Int32, in statement: Statement) throws {
                let keyStart = row == 0 ? 0 : ends[2 * row - 1]
                let keyEnd = ends[2 * row]
                let geohashEnd = ends[2 * row + 1]
                try statement.bindText(
                    borrowing: bytes.baseAddress! + keyStart, count: keyEnd - keyStart,
                    at: index)
                try statement.bindText(
                    borrowing: bytes.baseAddress! + keyEnd, count: geohashEnd - keyEnd,
                    at: index + 1)
            }
            var row = 0
            while count - row >= chunk {
                for offset in 0..<chunk {
                    try bind(row + offset, at: Int32(1 + 2 * offset), in: insertChunk)
                }
                try insertChunk.step()
                row += chunk
            }
            while row < count {
                try bind(row, at: 1, in: insert)
                try insert.step()
                row += 1
            }
        }
    }

    // MARK: Indexes

    /// The SQL that created index `name`, or nil when there is no such index.
    ///
    /// - Throws: `SQLiteError`.
    package func indexDefinition(_ name: String) throws -> String? {
        try database.scalar(
            "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?", [.text(name)])?
            .string
    }

    /// Drops index `name`, to create it again after many writes.
    ///
    /// - Throws: `SQLiteError`.
    package func dropIndex(_ name: String) throws {
        try database.execute("DROP INDEX \(name)")
    }

    /// Creates an index again from its definition. Its sort sets runs aside in temporary
    /// files: the workspace keeps temporary data in memory, where SQLite's sort of a
    /// million keys takes a third longer and 30 MB more, so files are used here when they
    /// can be.
    ///
    /// - Throws: `SQLiteError`.
    package func rebuildIndex(_ definition: String) throws {
        // Refused once the transaction has used temporary storage: then in memory.
        try? database.execute("PRAGMA temp_store = FILE")
        defer { try? database.execute("PRAGMA temp_store = MEMORY") }
        do {
            try database.execute(definition)
        } catch {
            // No writable temporary folder: sort in memory after all.
            try database.execute("PRAGMA temp_store = MEMORY")
            try database.execute(definition)
        }
    }
}
