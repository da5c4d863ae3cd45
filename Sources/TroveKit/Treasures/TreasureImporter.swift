import Foundation
import TroveStore

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
    private let store: TreasureStore
    private let writer: TreasureRowWriter
    private let rowsBefore: Int
    private var processed = 0
    private var changed = 0
    /// Rows stored by plain inserts: new for certain.
    private var inserted = 0
    /// Whether an upsert changed a row, which may have been a new one or an update.
    private var upsertChanged = false
    private var currentSource: Int64?
    private var currentPath: String?

    /// Prepares the import. Call inside `Workspace.write`.
    ///
    /// - Throws: `SQLiteError`.
    public init(workspace: Workspace) throws {
        self.workspace = workspace
        store = TreasureStore(workspace)
        // The counters, not a scan: a 3-row file into a million treasures reads no table
        // whole.
        rowsBefore = try store.isEmpty() ? 0 : store.counted()
        // Into an empty table, plain inserts count their rows for status themselves.
        if rowsBefore == 0 { try StatusCounters.stopCountingInserts(in: workspace.database) }
        writer = try TreasureRowWriter(store)
    }

    /// Points the following rows at the source `path` (see `TreasureStore.source(path:name:)`).
    ///
    /// - Throws: `SQLiteError`.
    func setSource(path: String?, name: String?) throws {
        guard path != currentPath || currentSource == nil else { return }
        currentPath = path
        guard let path else {
            currentSource = nil
            try writer.setSource(nil)
            return
        }
        let id = try store.source(path: path, name: name ?? path).id
        currentSource = id
        try writer.setSource(id)
    }

    /// Upserts a batch of packed treasures; SQLite reads their text in place.
    ///
    /// - Throws: `SQLiteError`.
    public func add(_ batch: PackedTreasures) throws {
        try setSource(path: batch.sourcePath ?? batch.file, name: batch.file)
        try batch.bytes.withUnsafeBytes { bytes in
            // Rows that need no conflict handling wait, as the run of rows from `pending`
            // on, to go in chunks; any other row goes after them, so a repeated key finds
            // its first row stored.
            let rows = batch.rows
            var pending = 0
            var counts = StatusCounters.TreasureCounts()
            func flush(upTo end: Int) throws {
                try writer.insert(rows[pending..<end], bytes: bytes)
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
                if try writer.upsert(row, bytes: bytes) {
                    upsertChanged = true
                    changed += 1
                    let key = UnsafeRawBufferPointer(
                        rebasing: bytes[Int(row.key.start)..<Int(row.key.start + row.key.count)])
                    workspace.markChanged(.treasure, String(decoding: key, as: UTF8.self))
                } else {
                    try writer.relocate(row, bytes: bytes)
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
        // When an upsert left it unclear, the counters (kept by a trigger once the table
        // had rows) tell how many rows are new.
        var new = inserted
        if upsertChanged { new = try store.counted() - rowsBefore }
        return ImportSummary(
            new: new, updated: changed - new, unchanged: processed - changed, skipped: skipped)
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
    package func contains(_ key: String) -> Bool { used.contains(key) }

    /// The treasures the next file gave last time (empty for a file new to the workspace).
    mutating func begin(_ stored: StoredKeys) { self.stored = stored }

    package mutating func key(explicit: String?, name: String) -> String {
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

    package var isEmpty: Bool { keys.isEmpty }

    /// Adds a stored treasure; entries added earlier are preferred.
    package mutating func add(
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

    package func contains(_ key: String) -> Bool { byKey.contains(key) }

    func hasName(_ name: String) -> Bool { nameHeads[Self.hash(name)] != nil }

    /// The first key at this position with this image that `available` accepts.
    package func key(
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
    package func key(named name: String, where available: (String) -> Bool) -> String? {
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
