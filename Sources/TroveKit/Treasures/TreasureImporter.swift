import Foundation
import TroveSQLite

/// How many treasures an import added, changed, left alone and skipped.
public struct ImportSummary: Equatable, Sendable {
    public var new = 0
    public var updated = 0
    public var unchanged = 0
    public var skipped = 0

    public init(new: Int = 0, updated: Int = 0, unchanged: Int = 0, skipped: Int = 0) {
        self.new = new
        self.updated = updated
        self.unchanged = unchanged
        self.skipped = skipped
    }

    public var imported: Int { new + updated + unchanged }
}

/// Writes treasures into the workspace, upserting by key.
///
/// Keys are the explicit ones where given, otherwise derived from the name in file
/// order (`hairy-harry`, `hairy-harry-2`, …), so importing the same file again changes
/// nothing. Every row also records the file and line it now comes from, so findings point
/// at the current line and `--sync` knows which treasures a file no longer holds. Call
/// inside a transaction; the caller decides whether to commit.
public final class TreasureImporter {
    private let workspace: Workspace
    private let upsert: Statement
    private let insert: Statement
    /// `insert` of `Self.chunk` rows at once: a statement's run has a fixed cost (its
    /// cursor, the VM's start and end) that one row a run paid every time.
    private let insertChunk: Statement
    private static let chunk = 32
    private let relocate: Statement
    private let countRows: Statement
    private let rowsBefore: Int
    private var processed = 0
    private var changed = 0
    /// Rows stored by `insert`: new for certain.
    private var inserted = 0
    /// Whether `upsert` changed a row, which may have been a new one or an update.
    private var upsertChanged = false
    private var currentSource: Int64?
    private var currentPath: String?

    /// Prepares the import. Call inside `Workspace.write`.
    ///
    /// - Throws: `SQLiteError`.
    public init(workspace: Workspace) throws {
        self.workspace = workspace
        let database = workspace.database
        countRows = try database.prepare("SELECT count(*) FROM treasures")
        rowsBefore = Int(try countRows.next()?.int64(0) ?? 0)
        countRows.reset()
        // Into an empty table, plain inserts count their rows for status themselves.
        if rowsBefore == 0 { try StatusCounters.stopCountingInserts(in: database) }
        // The WHERE clause makes an identical row a no-op, so `changes` tells us whether
        // anything was written. A moved treasure's geohash turns stale until `trove geohash`.
        upsert = try database.prepare(
            """
            INSERT INTO treasures
                (key, name, lat, lon, description, image, extra, source, source_line)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
            ON CONFLICT (key) DO UPDATE SET
                name = excluded.name, lat = excluded.lat, lon = excluded.lon,
                description = excluded.description, image = excluded.image,
                extra = excluded.extra, source = excluded.source,
                source_line = excluded.source_line
            WHERE (treasures.name, treasures.lat, treasures.lon, treasures.description,
                   treasures.image, treasures.extra)
               IS NOT (excluded.name, excluded.lat, excluded.lon, excluded.description,
                       excluded.image, excluded.extra)
            """)
        // Into a table that was empty, a key's first use in this import is new for
        // certain: a plain insert skips the conflict handling of the upsert above.
        insert = try database.prepare(
            """
            INSERT INTO treasures
                (key, name, lat, lon, description, image, extra, source, source_line)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
            """)
        let rows = (0..<Self.chunk).map { row in
            let base = 1 + row * 8
            let fields = (1...7).map { "?\(base + $0)" }.joined(separator: ", ")
            return "(\(fields), ?1, ?\(base + 8))"
        }
        insertChunk = try database.prepare(
            """
            INSERT INTO treasures
                (key, name, lat, lon, description, image, extra, source, source_line)
            VALUES \(rows.joined(separator: ", "))
            """)
        // An unchanged row may still sit on another line or in another file now: that is
        // not an update of the treasure, but its location must stay true.
        relocate = try database.prepare(
            """
            UPDATE treasures SET source = ?8, source_line = ?9
            WHERE key = ?1 AND (source, source_line) IS NOT (?8, ?9)
            """)
    }

    /// The `sources` row of a file, created when new. `path` identifies the file (its
    /// absolute path, or `<stdin>`); `name` is how messages name it.
    ///
    /// - Returns: the id, and whether the workspace knew the file before.
    /// - Throws: `SQLiteError`.
    static func source(path: String, name: String, in database: Database) throws -> (
        id: Int64, known: Bool
    ) {
        if let id = try database.scalar("SELECT id FROM sources WHERE path = ?", [.text(path)])?
            .int64
        {
            try database.execute(
                "UPDATE sources SET name = ? WHERE id = ?", [.text(name), .integer(id)])
            return (id, true)
        }
        // A workspace from before sources had names stored the path as typed.
        if let id = try database.scalar(
            "SELECT id FROM sources WHERE path = ? AND name IS NULL", [.text(name)])?.int64
        {
            try database.execute(
                "UPDATE sources SET path = ?, name = ? WHERE id = ?",
                [.text(path), .text(name), .integer(id)])
            return (id, true)
        }
        try database.execute(
            "INSERT INTO sources (path, name) VALUES (?, ?)", [.text(path), .text(name)])
        return (database.lastInsertRowID, false)
    }

    /// Points the following rows at the source `path` (see `source(path:name:in:)`).
    ///
    /// - Throws: `SQLiteError`.
    func setSource(path: String?, name: String?) throws {
        guard path != currentPath || currentSource == nil else { return }
        currentPath = path
        guard let path else {
            currentSource = nil
            for statement in [upsert, insert, relocate] { try statement.bindNull(at: 8) }
            try insertChunk.bindNull(at: 1)
            return
        }
        let id = try Self.source(path: path, name: name ?? path, in: workspace.database).id
        currentSource = id
        for statement in [upsert, insert, relocate] { try statement.bind(int: id, at: 8) }
        try insertChunk.bind(int: id, at: 1)
    }

    /// Upserts a batch of packed treasures; SQLite reads their text in place.
    ///
    /// - Throws: `SQLiteError`.
    public func add(_ batch: PackedTreasures) throws {
        try setSource(path: batch.sourcePath ?? batch.file, name: batch.file)
        try batch.bytes.withUnsafeBytes { bytes in
            func bind(
                _ slice: PackedTreasures.Slice, at index: Int32, in statement: Statement
            ) throws {
                if slice.count < 0 {
                    try statement.bindNull(at: index)
                } else if slice.count == 0 {
                    try statement.bind(text: "", at: index)
                } else {
                    try statement.bindText(
                        borrowing: bytes.baseAddress! + Int(slice.start), count: Int(slice.count),
                        at: index)
                }
            }
            /// Binds a row's fields to the parameters after `base`, in the order of
            /// `insertChunk` (`upsert` and `insert` take the source at 8, the line at 9).
            func bind(_ row: PackedTreasures.Row, after base: Int32, in statement: Statement)
                throws
            {
                try bind(row.key, at: base + 1, in: statement)
                try bind(row.name, at: base + 2, in: statement)
                try statement.bind(double: row.latitude, at: base + 3)
                try statement.bind(double: row.longitude, at: base + 4)
                try bind(row.description, at: base + 5, in: statement)
                try bind(row.image, at: base + 6, in: statement)
                try bind(row.extra, at: base + 7, in: statement)
                try statement.bind(int: row.line, at: statement === insertChunk ? base + 8 : 9)
            }
            // Rows that need no conflict handling wait, as the run of rows from `pending`
            // on, to go in chunks; any other row goes after them, so a repeated key finds
            // its first row stored.
            let rows = batch.rows
            var pending = 0
            var counts = StatusCounters.TreasureCounts()
            func flush(upTo end: Int) throws {
                var start = pending
                while end - start >= Self.chunk {
                    for offset in 0..<Self.chunk {
                        try bind(
                            rows[start + offset], after: Int32(1 + offset * 8), in: insertChunk)
                    }
                    try insertChunk.step()
                    start += Self.chunk
                }
                for row in rows[start..<end] {
                    try bind(row, after: 0, in: insert)
                    try insert.step()
                }
                for row in rows[pending..<end] {
                    counts.add(
                        image: row.image.count < 0
                            ? nil
                            : UnsafeRawBufferPointer(
                                rebasing: bytes[
                                    Int(row.image.start)..<Int(row.image.start + row.image.count)]))
                }
                // Rows go this way only into a table that was empty: every one is new.
                if end > pending { workspace.markAllChanged(.treasure) }
                inserted += end - pending
                changed += end - pending
                pending = end
            }
            let tableWasEmpty = rowsBefore == 0
            for (index, row) in rows.enumerated() where !(tableWasEmpty && row.firstUse) {
                try flush(upTo: index)
                pending = index + 1
                try bind(row, after: 0, in: upsert)
                try upsert.step()
                if workspace.database.changes > 0 {
                    upsertChanged = true
                    changed += 1
                    let key = UnsafeRawBufferPointer(
                        rebasing: bytes[Int(row.key.start)..<Int(row.key.start + row.key.count)])
                    workspace.markChanged(.treasure, String(decoding: key, as: UTF8.self))
                } else {
                    try bind(row.key, at: 1, in: relocate)
                    try relocate.bind(int: row.line, at: 9)
                    try relocate.step()
                }
            }
            try flush(upTo: rows.count)
            try StatusCounters.add(counts, in: workspace.database)
            processed += batch.rows.count
        }
    }

    /// Ends the import: call once, after the last batch, inside the same write.
    ///
    /// - Throws: `SQLiteError`.
    public func finish() throws {
        try StatusCounters.countInserts(in: workspace.database)
    }

    /// The counts so far.
    ///
    /// - Throws: `SQLiteError`.
    public func summary(skipped: Int) throws -> ImportSummary {
        // Counting is a scan of the whole table: only when an upsert left it unclear.
        var new = inserted
        if upsertChanged {
            new = Int(try countRows.next()?.int64(0) ?? 0) - rowsBefore
            countRows.reset()
        }
        return ImportSummary(
            new: new, updated: changed - new, unchanged: processed - changed, skipped: skipped)
    }
}

/// Treasures ready to store, their text packed into one buffer: a batch crosses from the
/// reading thread to the writing one as two allocations, and SQLite binds the text in
/// place.
public struct PackedTreasures: Sendable {
    /// Where a text lies in `bytes`; a negative count means NULL.
    public struct Slice: Sendable {
        var start: Int32
        var count: Int32
        static let null = Slice(start: 0, count: -1)
    }

    public struct Row: Sendable {
        var key: Slice
        var name: Slice
        var description: Slice
        var image: Slice
        /// The extra columns as a JSON object.
        var extra: Slice
        var latitude: Double
        var longitude: Double
        var line: Int64?
        /// The key's first use in this import, so no earlier row of it can conflict.
        var firstUse: Bool
    }

    /// The file every row came from, as messages name it.
    public var file: String?
    /// The file's identity in the workspace (its absolute path), when not `file`.
    public var sourcePath: String?
    var bytes: [UInt8] = []
    var rows: [Row] = []

    public init(file: String?, sourcePath: String? = nil) {
        self.file = file
        self.sourcePath = sourcePath
    }

    public var isEmpty: Bool { rows.isEmpty }
    public var count: Int { rows.count }

    /// Adds one treasure under `key`, storing `image` as its image reference;
    /// `firstUse` says that no earlier row of this import had the key.
    public mutating func append(
        key: String, input: TreasureInput, image: String?, firstUse: Bool = false
    ) {
        let row = Row(
            key: add(key), name: add(input.name), description: add(input.description),
            image: add(image), extra: addExtra(input.extra), latitude: input.latitude,
            longitude: input.longitude,
            line: SourceLine.stored(input.location), firstUse: firstUse)
        rows.append(row)
    }

    private mutating func add(_ text: String?) -> Slice {
        guard let text else { return .null }
        let start = bytes.count
        bytes.append(contentsOf: text.utf8)
        return Slice(start: Int32(start), count: Int32(bytes.count - start))
    }

    /// The extra columns as a JSON object, written straight into the buffer.
    ///
    /// This is the format of the `extra` column of `treasures`: one member per extra column
    /// or property, in file order, named as the (de-duplicated) header or property names
    /// it; a string for text (every CSV value), the JSON value itself for a GeoJSON number,
    /// boolean, array or object (numbers exactly as written). Values without content —
    /// empty text, JSON `null` — are not stored: an export writes nothing for them either.
    /// No extras at all is SQL NULL. `ExportRecord.extra(_:)` reads it back.
    private mutating func addExtra(_ fields: [ExtraField]) -> Slice {
        let start = bytes.count
        var first = true
        for field in fields where !field.value.isEmpty && field.json != "null" {
            bytes.append(UInt8(ascii: first ? "{" : ","))
            first = false
            JSONText.appendString(field.name, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            if let json = field.json {
                bytes.append(contentsOf: json.utf8)
            } else {
                JSONText.appendString(field.value, to: &bytes)
            }
        }
        if first { return .null }
        bytes.append(UInt8(ascii: "}"))
        return Slice(start: Int32(start), count: Int32(bytes.count - start))
    }
}

/// Derives readable, unique keys from names, in the order rows arrive.
///
/// A key once given stays with its treasure. Before a known file is read again, the keys
/// its treasures have are handed over as ``StoredKeys``: a row without a key takes the key
/// of the stored treasure at its position with its image (the rename rules), so a renamed
/// row keeps its key and a row added or moved in the file never takes another's. A row
/// at a new position whose name a stored treasure has waits for the end of the file
/// (``deferred(name:)``), when every row at a stored position has claimed its key: then
/// it takes the moved treasure's key. Fresh keys never reuse a key the file had.
struct KeyDeriver {
    private var used: Set<String> = []
    private var stored = StoredKeys()

    /// Room for about `count` keys, so that a big file does not grow the set again and
    /// again (each growth rehashes every key).
    mutating func reserve(_ count: Int) { used.reserveCapacity(count) }

    /// Whether `key` was handed out (explicit or derived).
    func contains(_ key: String) -> Bool { used.contains(key) }

    /// The treasures the next file gave last time (empty for a file new to the workspace).
    mutating func begin(_ stored: StoredKeys) { self.stored = stored }

    mutating func key(explicit: String?, name: String) -> String {
        keyAndFirstUse(explicit: explicit, name: name).key
    }

    /// The key, and whether this is its first use in the import: an explicit key may
    /// repeat, a derived one never does.
    mutating func keyAndFirstUse(explicit: String?, name: String) -> (key: String, first: Bool) {
        if let explicit {
            return (explicit, used.insert(explicit).inserted)
        }
        return fresh(name)
    }

    /// Like ``keyAndFirstUse(explicit:name:)`` for a row of a file read before: the stored
    /// key at the row's position and image, or `nil` when the row must wait for
    /// ``deferred(name:)``.
    mutating func keyAndFirstUse(
        explicit: String?, name: String, latitude: Double, longitude: Double, image: String?
    ) -> (key: String, first: Bool)? {
        if explicit != nil || stored.isEmpty {
            return keyAndFirstUse(explicit: explicit, name: name)
        }
        if let key = stored.key(
            latitude: latitude, longitude: longitude, image: image,
            where: { !used.contains($0) })
        {
            used.insert(key)
            return (key, true)
        }
        if stored.hasName(name) { return nil }
        return fresh(name)
    }

    /// The key of a row held back by ``keyAndFirstUse(explicit:name:latitude:longitude:image:)``:
    /// an unclaimed stored key of a treasure with this name (it moved), else a fresh one.
    mutating func deferred(name: String) -> (key: String, first: Bool) {
        if let key = stored.key(named: name, where: { !used.contains($0) }) {
            used.insert(key)
            return (key, true)
        }
        return fresh(name)
    }

    private mutating func fresh(_ name: String) -> (key: String, first: Bool) {
        let base = slug(name)
        var candidate = base
        var counter = 1
        while used.contains(candidate) || stored.contains(candidate) {
            counter += 1
            candidate = "\(base)-\(counter)"
        }
        used.insert(candidate)
        return (candidate, true)
    }
}

/// The treasures a file gave at its last import: key, position, image and name, indexed
/// by position and image and by name in hashes (a few dozen bytes a treasure).
struct StoredKeys: Sendable {
    private var keys: [String] = []
    private var latitudes: [Double] = []
    private var longitudes: [Double] = []
    private var images: [String?] = []
    private var names: [UInt64] = []
    private var byKey: Set<String> = []
    /// First entry of each position-and-image hash, then the next entry with the same
    /// hash (-1 ends a chain); likewise for names.
    private var spotHeads: [UInt64: Int32] = [:]
    private var spotNext: [Int32] = []
    private var nameHeads: [UInt64: Int32] = [:]
    private var nameNext: [Int32] = []

    var isEmpty: Bool { keys.isEmpty }

    /// Adds a stored treasure; entries added earlier are preferred.
    mutating func add(
        key: String, name: String, latitude: Double, longitude: Double, image: String?
    ) {
        let index = Int32(keys.count)
        keys.append(key)
        latitudes.append(latitude)
        longitudes.append(longitude)
        images.append(image)
        byKey.insert(key)
        let nameHash = Self.hash(name)
        names.append(nameHash)
        spotNext.append(-1)
        nameNext.append(-1)
        Self.append(
            index, hash: Self.hash(latitude, longitude, image), heads: &spotHeads, next: &spotNext)
        Self.append(index, hash: nameHash, heads: &nameHeads, next: &nameNext)
    }

    private static func append(
        _ index: Int32, hash: UInt64, heads: inout [UInt64: Int32], next: inout [Int32]
    ) {
        guard var at = heads[hash] else {
            heads[hash] = index
            return
        }
        while next[Int(at)] >= 0 { at = next[Int(at)] }
        next[Int(at)] = index
    }

    func contains(_ key: String) -> Bool { byKey.contains(key) }

    func hasName(_ name: String) -> Bool { nameHeads[Self.hash(name)] != nil }

    /// The first key at this position with this image that `available` accepts.
    func key(
        latitude: Double, longitude: Double, image: String?, where available: (String) -> Bool
    ) -> String? {
        var at = spotHeads[Self.hash(latitude, longitude, image)] ?? -1
        while at >= 0 {
            let index = Int(at)
            if latitudes[index] == latitude, longitudes[index] == longitude, images[index] == image,
                available(keys[index])
            {
                return keys[index]
            }
            at = spotNext[index]
        }
        return nil
    }

    /// The first key of a treasure with this name that `available` accepts.
    func key(named name: String, where available: (String) -> Bool) -> String? {
        let hash = Self.hash(name)
        var at = nameHeads[hash] ?? -1
        while at >= 0 {
            let index = Int(at)
            if names[index] == hash, available(keys[index]) { return keys[index] }
            at = nameNext[index]
        }
        return nil
    }

    private static func hash(_ latitude: Double, _ longitude: Double, _ image: String?) -> UInt64 {
        var hasher = Hasher()
        // 0.0 and -0.0 are the same position.
        hasher.combine(latitude == 0 ? 0 : latitude.bitPattern)
        hasher.combine(longitude == 0 ? 0 : longitude.bitPattern)
        hasher.combine(image)
        return UInt64(bitPattern: Int64(hasher.finalize()))
    }

    private static func hash(_ name: String) -> UInt64 {
        var hasher = Hasher()
        hasher.combine(name)
        return UInt64(bitPattern: Int64(hasher.finalize()))
    }
}

/// `Hairy Harry!` → `hairy-harry`, `Αθήνα` → `athena`, `Москва` → `moskva`, `東京` →
/// `dong-jing`: other scripts transliterated to Latin (ICU's Any-Latin), accents folded,
/// the letters that have no accent to fold spelled out (`ß` → `ss`, `ø` → `o`), anything
/// else one hyphen.
func slug(_ name: String) -> String {
    var result = ""
    var pendingHyphen = false
    func append(_ scalar: Unicode.Scalar) {
        if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
            if pendingHyphen && !result.isEmpty { result.append("-") }
            pendingHyphen = false
            result.unicodeScalars.append(Unicode.Scalar(UInt8(scalar.value)).lowercasedASCII)
        } else {
            pendingHyphen = true
        }
    }
    if name.utf8.allSatisfy({ $0 < 0x80 }) {
        for scalar in name.unicodeScalars {
            append(scalar)
            if result.utf8.count >= 96 { break }
        }
    } else {
        let latin = name.applyingTransform(.toLatin, reverse: false) ?? name
        let folded = (latin.applyingTransform(.stripDiacritics, reverse: false) ?? latin)
            .lowercased()
        outer: for scalar in folded.unicodeScalars {
            if let spelled = keptLetters[scalar] {
                for letter in spelled.unicodeScalars { append(letter) }
            } else {
                append(scalar)
            }
            if result.utf8.count >= 96 { break outer }
        }
    }
    return result.isEmpty ? "treasure" : result
}

/// Letters that the transforms leave as they are, for they carry no accent to strip.
private let keptLetters: [Unicode.Scalar: String] = [
    "ß": "ss", "ø": "o", "đ": "d", "ł": "l", "æ": "ae", "ı": "i", "ð": "d", "þ": "th",
    "œ": "oe", "ħ": "h", "ŧ": "t", "ŋ": "ng", "ĸ": "q", "ſ": "s",
]

extension Unicode.Scalar {
    fileprivate var lowercasedASCII: Unicode.Scalar {
        ("A"..."Z").contains(self) ? Unicode.Scalar(value + 32)! : self
    }
}
