import Foundation
import TroveBase
import TroveSQLite
import TroveStore

/// One treasure or approved post as the export reads it.
struct ExportRecord {
    /// A rendition row's fields that placeholders can read.
    struct Rendition {
        /// The object path's UTF-8 bytes, refilled in place record after record.
        var pathBytes: [UInt8]
        package var width: Int64
        package var height: Int64
        /// The object's download token, when the URLs carry one and it exists.
        var tokenBytes: [UInt8] = []
        var hasToken = false

        package var path: String { String(decoding: pathBytes, as: UTF8.self) }
        package var token: String? { hasToken ? String(decoding: tokenBytes, as: UTF8.self) : nil }
    }

    package var key = ""
    package var name: String?
    package var user: String?
    package var description: String?
    package var date: String?
    package var latitude: Double?
    package var longitude: Double?
    var geohash: String?
    /// The source image (treasures) or photo (posts): a local path or an http(s) URL.
    package var image: String? { hasImage ? String(decoding: imageBytes, as: UTF8.self) : nil }
    /// `image`'s UTF-8 bytes, refilled in place record after record.
    private(set) var imageBytes: [UInt8] = []
    private(set) var hasImage = false
    var extraJSON: String?
    /// Whether the record's file wrote numbers with a decimal comma (`12,5`).
    var decimalComma = false
    /// One per `Layout.renditionNames`, nil when that rendition has not been made.
    var renditions: [Rendition?] = []
    /// `extraJSON` parsed on first use.
    private var parsedExtra: [String: JSONValue]?

    /// Whether `image` is a remote URL that is exported as it is.
    private(set) var imageIsRemote = false

    /// Sets `image` from its UTF-8 bytes (nil for none) and whether it is remote.
    mutating func setImage(bytes: UnsafeBufferPointer<UInt8>?) {
        imageBytes.removeAll(keepingCapacity: true)
        hasImage = bytes != nil
        imageIsRemote = false
        guard let bytes else { return }
        imageBytes.append(contentsOf: bytes)
        // Only text whose bytes start so can: a local path never becomes a String here.
        if bytes.count >= 7 && bytes[0] == UInt8(ascii: "h") && bytes[1] == UInt8(ascii: "t")
            && bytes[2] == UInt8(ascii: "t") && bytes[3] == UInt8(ascii: "p")
        {
            let image = String(decoding: bytes, as: UTF8.self)
            imageIsRemote = image.hasPrefix("http://") || image.hasPrefix("https://")
        }
    }

    /// Sets rendition `index`, reusing the previous record's buffer for its path.
    mutating func setRendition(
        _ index: Int, path: UnsafeBufferPointer<UInt8>, width: Int64, height: Int64,
        token: UnsafeBufferPointer<UInt8>?
    ) {
        if renditions[index] == nil {
            renditions[index] = Rendition(pathBytes: [], width: 0, height: 0)
        }
        renditions[index]!.pathBytes.removeAll(keepingCapacity: true)
        renditions[index]!.pathBytes.append(contentsOf: path)
        renditions[index]!.width = width
        renditions[index]!.height = height
        renditions[index]!.tokenBytes.removeAll(keepingCapacity: true)
        if let token { renditions[index]!.tokenBytes.append(contentsOf: token) }
        renditions[index]!.hasToken = token != nil
    }

    /// Forgets the parsed extra columns of the previous row.
    mutating func resetExtra() {
        parsedExtra = nil
    }

    /// The value of extra column `name`, with its JSON type (see `PackedTreasures.addExtra` for the
    /// stored form); nil when the record has none.
    ///
    /// Read leniently: a repeated member (workspaces imported before header names were
    /// made unique) gives the last one, and numbers are kept as text until rendered, so
    /// one odd value never hides the others.
    mutating func extra(_ name: String) -> JSONValue? {
        if parsedExtra == nil {
            var members: [String: JSONValue] = [:]
            if let extraJSON {
                var parser = JSONParser(Array(extraJSON.utf8))
                if case .object(let list)? = try? parser.parseValue() {
                    for member in list { members[member.name] = member.value }
                }
            }
            parsedExtra = members
        }
        return parsedExtra?[name]
    }
}

/// Reads the records a layout iterates, in the order one path template needs them.
///
/// Every query runs inside the export's transaction, so all templates see the same rows.
/// A stream ordered by key alone reads the geohash and rendition tables beside the records
/// in the same order (a merge join: one scan of each), rather than searching them once per
/// record; other orders join in SQL.
struct RecordQuery {
    let records: Layout.Records
    let renditionNames: [String]
    /// The fields a stream reads; the other columns are selected as NULL, so a template
    /// pays only for what it writes.
    package let needed: [Field]
    /// Whether the stream also checks positions and geohashes.
    let checksPositions: Bool
    /// Whether the stream also checks that every rendition the layout uses exists.
    let checksRenditions: Bool
    /// Whether rendition URLs carry download tokens, so they are read beside the paths.
    var readsTokens = false
    /// When set, only the records changed after this clock value are read (an
    /// incremental export): the few changed keys drive the query.
    var changedSince: Int64?
    /// The publish target bucket whose download tokens the URLs carry; nil for those of
    /// exports without a target.
    var tokenBucket: String?

    /// Whether the rendition `name` is read at all.
    func readsRendition(_ name: String) -> Bool {
        checksRenditions || needed.contains { $0.renditionName == name }
    }

    /// Whether the download token of rendition `name` is read.
    func readsToken(_ name: String) -> Bool {
        readsTokens && needed.contains(.rendition(name: name, part: .url))
    }

    /// What the store reads for it.
    package var read: RecordRead {
        var columns = Set<RecordColumn>()
        for field in needed {
            switch field {
            case .key: break
            case .name: columns.insert(.name)
            case .user: columns.insert(.user)
            case .description: columns.insert(.description)
            case .date: columns.insert(.date)
            case .lat, .lon: columns.insert(.position)
            case .geohash: columns.insert(.geohash)
            case .extra: columns.insert(.extra)
            case .rendition: columns.insert(.image)
            }
        }
        if checksPositions { columns.formUnion([.position, .geohash]) }
        if checksRenditions { columns.insert(.image) }
        return RecordRead(
            kind: records == .treasures ? .treasure : .post, renditionNames: renditionNames,
            columns: columns, readsRendition: renditionNames.map(readsRendition),
            readsToken: renditionNames.map(readsToken), changedSince: changedSince,
            tokenBucket: tokenBucket)
    }

    /// Opens the records in the order of `orderColumns`.
    ///
    /// - Throws: `SQLiteError`.
    func open(on database: Database, orderColumns: [String]) throws -> RecordCursor {
        let opened = try ExportStore(database).openRecords(read, orderColumns: orderColumns)
        var cursor = RecordCursor(
            statement: opened.records, selected: opened.selected,
            geohashes: opened.geohashes.map { KeyOrderedTable(statement: $0) },
            renditions: opened.renditions.map { $0.map { KeyOrderedTable(statement: $0) } })
        cursor.tokens = opened.tokens.map {
            $0.map { AscendingLookup(ordered: KeyOrderedTable(statement: $0.0), lookup: $0.1) }
        }
        cursor.decimalCommaColumn = opened.decimalCommaColumn
        return cursor
    }
}

/// The records of one query, with the tables merged beside them.
struct RecordCursor {
    let statement: Statement
    /// Per column, whether the query selects it (rather than a constant NULL).
    let selected: [Bool]
    var geohashes: KeyOrderedTable?
    /// Per rendition name, its table when merged here.
    var renditions: [KeyOrderedTable?]
    /// Per rendition name, its download tokens when merged here (by path) rather than
    /// joined to its table.
    var tokens: [AscendingLookup?] = []
    /// Whether any table is merged here.
    let hasSideTables: Bool
    /// The column that says whether the record's file wrote decimal commas.
    var decimalCommaColumn: Int?

    package init(
        statement: Statement, selected: [Bool], geohashes: KeyOrderedTable?,
        renditions: [KeyOrderedTable?]
    ) {
        self.statement = statement
        self.selected = selected
        self.geohashes = geohashes
        self.renditions = renditions
        hasSideTables = geohashes != nil || renditions.contains { $0 != nil }
    }

    /// Fills `record` from the next row; false at the end.
    ///
    /// Columns are read by index, not by name: this is the hot loop of a full export, and
    /// `RecordRead.sqlParts` (TroveStore/Stores/RecordRead.swift) fixes every position.
    ///
    /// - Throws: `SQLiteError`.
    package mutating func next(into record: inout ExportRecord) throws -> Bool {
        guard try statement.stepToRow() else { return false }
        // Read in place: no `Row` (and no reference to the statement) per record.
        let row = statement
        record.resetExtra()
        func text(_ column: Int) -> String? { selected[column] ? row.text(column) : nil }
        func double(_ column: Int) -> Double? { selected[column] ? row.double(column) : nil }
        record.name = text(1)
        record.user = text(2)
        record.description = text(3)
        record.date = text(4)
        record.latitude = double(5)
        record.longitude = double(6)
        record.geohash = text(7)
        if !selected[8] || row.withUTF8(8, { record.setImage(bytes: $0) }) == nil {
            record.setImage(bytes: nil)
        }
        record.extraJSON = text(9)
        record.decimalComma = decimalCommaColumn.map { row.int64($0) == 1 } ?? false
        // Filled in place: one array per stream rather than one per row.
        if record.renditions.count != renditions.count {
            record.renditions = Array(repeating: nil, count: renditions.count)
        }
        // Renditions joined in SQL (or not read); merged ones are set below.
        for index in renditions.indices where renditions[index] == nil {
            let column = 10 + index * 4
            if !selected[column] || !Self.setRendition(index, of: &record, from: row, at: column) {
                record.renditions[index] = nil
            }
        }
        // The key's bytes are read once: for the record and to find its rows beside it.
        let keyFound: Void? = try row.withUTF8(0) { key in
            record.key = String(decoding: key, as: UTF8.self)
            guard hasSideTables else { return }
            if try geohashes?.seek(key) == true, let side = geohashes?.statement {
                record.geohash = side.text(1)
            }
            for index in renditions.indices where renditions[index] != nil {
                // A rendition counts only when it was made from the image the record has
                // now.
                guard try renditions[index]?.seek(key) == true,
                    let side = renditions[index]?.statement,
                    Self.sameText(side, 1, row, 8),
                    try setMergedRendition(index, of: &record, from: side)
                else {
                    record.renditions[index] = nil
                    continue
                }
            }
        }
        if keyFound == nil { record.key = "" }
        return true
    }

    /// Sets rendition `index` from a row of its merged table, with its token from the
    /// merged tokens when they are; false when the path is NULL.
    private mutating func setMergedRendition(
        _ index: Int, of record: inout ExportRecord, from side: Statement
    ) throws -> Bool {
        guard index < tokens.count, tokens[index] != nil else {
            return Self.setRendition(index, of: &record, from: side, at: 2)
        }
        let set: Void? = try side.withUTF8(2) { path in
            try tokens[index]!.withValue(of: path) { token in
                record.setRendition(
                    index, path: path, width: side.int64(3) ?? 0, height: side.int64(4) ?? 0,
                    token: token)
            }
        }
        return set != nil
    }

    /// Sets rendition `index` from the path, width, height and token in columns `column`
    /// to `column + 3` of `row`; false when the path is NULL.
    private static func setRendition(
        _ index: Int, of record: inout ExportRecord, from row: Statement, at column: Int
    ) -> Bool {
        row.withUTF8(column) { path -> Void in
            let width = row.int64(column + 1) ?? 0
            let height = row.int64(column + 2) ?? 0
            let set: Void? = row.withUTF8(column + 3) {
                record.setRendition(index, path: path, width: width, height: height, token: $0)
            }
            if set == nil {
                record.setRendition(index, path: path, width: width, height: height, token: nil)
            }
        } != nil
    }

    /// Whether two text columns hold the same bytes (false when either is NULL).
    private static func sameText(
        _ a: Statement, _ aColumn: Int, _ b: Statement, _ bColumn: Int
    ) -> Bool {
        a.withUTF8(aColumn) { left in
            b.withUTF8(bColumn) { KeyOrderedTable.compare(left, $0) == 0 } ?? false
        } ?? false
    }
}

/// A table keyed by record key, read in key order beside the records.
struct KeyOrderedTable {
    /// Positioned on the row `seek` found, when it found one.
    let statement: Statement
    private var hasCurrent = false
    private var started = false

    package init(statement: Statement) {
        self.statement = statement
    }

    /// Moves forward to the row whose first column is `key`; true when there is one,
    /// then read in place through `statement`. Keys must come in ascending order
    /// (SQLite's BINARY order: bytes, then length).
    mutating func seek(_ key: UnsafeBufferPointer<UInt8>) throws -> Bool {
        if !started {
            started = true
            hasCurrent = try statement.stepToRow()
        }
        while hasCurrent {
            let order = statement.withUTF8(0) { Self.compare($0, key) } ?? -1
            if order == 0 { return true }
            if order > 0 { return false }
            hasCurrent = try statement.stepToRow()
        }
        return false
    }

    /// SQLite's BINARY order of two texts.
    static func compare(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>)
        -> Int
    {
        let shared = min(a.count, b.count)
        if shared > 0 {
            let order = memcmp(a.baseAddress!, b.baseAddress!, shared)
            if order != 0 { return order < 0 ? -1 : 1 }
        }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }
}

/// A table keyed in BINARY order, read for keys that mostly ascend: walked beside them in
/// key order while they do, one step a key; a key below one asked before is looked up on
/// its own. Both statements select the key, then the value.
struct AscendingLookup {
    private var ordered: KeyOrderedTable
    private let lookup: Statement
    private var lastKey: [UInt8] = []

    /// - Parameters:
    ///   - ordered: every row, in key order.
    ///   - lookup: the row of the key bound as parameter 1.
    init(ordered: KeyOrderedTable, lookup: Statement) {
        self.ordered = ordered
        self.lookup = lookup
    }

    /// Calls `body` with the value of `key`'s row, nil when it has none or it is NULL.
    ///
    /// - Throws: `SQLiteError`, or what `body` throws.
    mutating func withValue<Result>(
        of key: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>?) throws -> Result
    ) throws -> Result {
        var row: Statement?
        if lastKey.withUnsafeBufferPointer({ KeyOrderedTable.compare($0, key) }) <= 0 {
            lastKey.removeAll(keepingCapacity: true)
            lastKey.append(contentsOf: key)
            if try ordered.seek(key) { row = ordered.statement }
        } else {
            lookup.reset()
            try lookup.bindText(UnsafeRawBufferPointer(key), at: 1)
            if try lookup.stepToRow() { row = lookup }
        }
        var found = false
        var result: Result?
        if let row {
            _ = try row.withUTF8(1) { value in
                found = true
                result = try body(value)
            }
        }
        if !found { return try body(nil) }
        return result!
    }
}
