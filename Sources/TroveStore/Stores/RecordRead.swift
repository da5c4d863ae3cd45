import TroveSQLite

// The SQL of the records an export renders, kept with the workspace's other SQL.
//
// Read by column index on purpose: `RecordCursor.next` is the hot loop of a full export
// (a million rows), and the positions are fixed here. Every column is selected, a
// constant NULL where a stream does not need it: 0 key, 1 name, 2 user, 3 description,
// 4 date, 5 lat, 6 lon, 7 geohash, 8 image or photo, 9 extra, then four per rendition
// name (path, width, height, token) from 10, and last, for treasures whose extra columns
// are read, whether their file wrote decimal commas. The merged side tables are read the
// same way: key first, as `KeyOrderedTable` needs.

/// A column of the records an export reads, by what it holds.
package enum RecordColumn: Hashable, Sendable {
    case name, user, description, date, position, geohash, extra, image
}

/// What one stream of an export reads: the records of a kind, the columns it needs, the
/// renditions it needs and whether with their download tokens, and, for an incremental
/// export, only the records changed after a clock value.
package struct RecordRead: Sendable {
    package var kind: RecordKind
    /// Every rendition name of the layout, in the order of their columns.
    package var renditionNames: [String]
    package var columns: Set<RecordColumn>
    /// Per name in `renditionNames`: whether it is read, and whether its token is.
    package var readsRendition: [Bool]
    package var readsToken: [Bool]
    package var changedSince: Int64?
    /// Whose tokens are read: a publish target's bucket's (`bucket_tokens`), or, when nil,
    /// those of exports without a target (`storage_tokens`).
    package var tokenBucket: String?

    package init(
        kind: RecordKind, renditionNames: [String], columns: Set<RecordColumn>,
        readsRendition: [Bool], readsToken: [Bool], changedSince: Int64?,
        tokenBucket: String? = nil
    ) {
        self.kind = kind
        self.renditionNames = renditionNames
        self.columns = columns
        self.readsRendition = readsRendition
        self.readsToken = readsToken
        self.changedSince = changedSince
        self.tokenBucket = tokenBucket
    }
}

/// The statements of one `RecordRead`: the records, and beside them, when they are merged
/// in key order, the treasure geohashes and each rendition's rows.
package struct RecordStatements {
    package let records: Statement
    /// Which of the records' columns are selected (the others are a constant NULL).
    package let selected: [Bool]
    package let geohashes: Statement?
    package let renditions: [Statement?]
    /// Per rendition name, when its download tokens are merged beside its rows rather than
    /// joined: every token in path order and one path's token (parameter 1), both as
    /// columns path and token.
    package let tokens: [(inPathOrder: Statement, byPath: Statement)?]
    /// The column that says whether a treasure's file wrote decimal commas, when read.
    package let decimalCommaColumn: Int?
}

extension ExportStore {
    /// Opens the records of `read` in the order of `orderColumns` (logical names such as
    /// `key` and `user`), then by key.
    ///
    /// - Throws: `SQLiteError`.
    package func openRecords(_ read: RecordRead, orderColumns: [String]) throws
        -> RecordStatements
    {
        // Merging side tables read in key order pays off when most records are read.
        let mergeJoins = read.changedSince == nil && orderColumns.allSatisfy { $0 == "key" }
        let (columns, text) = read.sql(orderColumns: orderColumns, mergeJoins: mergeJoins)
        let statement = try database.prepare(text)
        var geohashes: Statement?
        var renditions: [Statement?] = Array(repeating: nil, count: read.renditionNames.count)
        var tokens: [(inPathOrder: Statement, byPath: Statement)?] = Array(
            repeating: nil, count: read.renditionNames.count)
        for (index, name) in read.renditionNames.enumerated() where read.readsRendition[index] {
            if mergeJoins {
                // The tokens of exports without a target are merged too (their paths mostly
                // ascend with the keys), rather than searched for once a row.
                let mergesTokens = read.readsToken[index] && read.tokenBucket == nil
                if mergesTokens {
                    tokens[index] = (
                        try database.prepare(StorageTokenSQL.inPathOrder),
                        try database.prepare(StorageTokenSQL.byPath)
                    )
                }
                let side = try database.prepare(
                    RecordRead.renditionsInKeyOrderSQL(
                        readsToken: read.readsToken[index] && !mergesTokens,
                        fromBucket: read.tokenBucket != nil))
                try side.bind(
                    [.text(read.kind.rawValue), .text(name)]
                        + (read.tokenBucket.map { [.text($0)] } ?? []))
                renditions[index] = side
            } else {
                try statement.bind(.text(name), at: Int32(index + 1))
            }
        }
        if let changedSince = read.changedSince {
            try statement.bind(.integer(changedSince), at: Int32(read.renditionNames.count + 1))
        }
        if let bucket = read.tokenBucket, !mergeJoins, read.readsToken.contains(true) {
            try statement.bind(.text(bucket), at: Int32(read.renditionNames.count + 2))
        }
        if mergeJoins && read.readsTreasureGeohashes {
            geohashes = try database.prepare(RecordRead.geohashesInKeyOrderSQL)
        }
        let decimalComma = columns.last.map(RecordRead.isDecimalCommaColumn) ?? false
        return RecordStatements(
            records: statement, selected: columns.map { $0 != "NULL" }, geohashes: geohashes,
            renditions: renditions, tokens: tokens,
            decimalCommaColumn: decimalComma ? columns.count - 1 : nil)
    }
}

extension RecordRead {
    package var keyColumn: String { kind == .treasure ? "o.key" : "o.id" }
    var imageColumn: String { kind == .treasure ? "o.image" : "o.photo" }
    /// Treasure geohashes live in their own table, joined only when a stream needs them.
    var geohashColumn: String { kind == .treasure ? "g.geohash" : "o.geohash" }

    var neededColumns: Set<String> {
        Set(
            columns.flatMap { column -> [String] in
                switch column {
                case .name: return ["o.name"]
                case .user: return ["o.user"]
                case .description: return ["o.description"]
                case .date: return ["o.date"]
                case .position: return ["o.lat", "o.lon"]
                case .geohash: return [geohashColumn]
                case .extra: return ["o.extra"]
                case .image: return [imageColumn]
                }
            })
    }

    /// Whether treasure geohashes are read.
    var readsTreasureGeohashes: Bool {
        kind == .treasure && columns.contains(.geohash)
    }

    /// The records' query: its selected columns (`NULL` for those not read) and its text.
    package func sql(orderColumns: [String], mergeJoins: Bool) -> (columns: [String], text: String)
    {
        let (columns, rest) = sqlParts(orderColumns: orderColumns, mergeJoins: mergeJoins)
        return (columns, "SELECT \(columns.joined(separator: ", "))" + rest)
    }

    /// Whether a selected column is the last one `sqlParts` may add: whether the record's
    /// file wrote decimal commas.
    static func isDecimalCommaColumn(_ column: String) -> Bool {
        column.hasPrefix("(SELECT s.decimal_comma")
    }

    /// The selected columns of the records' query, and its SQL after them: ordered by
    /// `orderColumns` (logical names such as `key` and `user`) and then by key, with the
    /// joins in SQL unless `mergeJoins`. Only fixed column names and bound parameters: no
    /// user text is ever part of the SQL.
    func sqlParts(orderColumns: [String], mergeJoins: Bool) -> ([String], String) {
        var columns: [String]
        switch kind {
        case .treasure:
            columns = [
                "o.key", "o.name", "NULL", "o.description", "NULL", "o.lat", "o.lon",
                geohashColumn, "o.image", "o.extra",
            ]
        case .post:
            columns = [
                "o.id", "NULL", "o.user", "o.description", "o.date", "o.lat", "o.lon",
                "o.geohash", "o.photo", "NULL",
            ]
        }
        let neededColumns = self.neededColumns
        columns = columns.enumerated().map { index, column in
            guard index == 0 || neededColumns.contains(column) else { return "NULL" }
            return mergeJoins && column == "g.geohash" ? "NULL" : column
        }
        var joins = ""
        let order = (orderColumns + ["key"]).map {
            $0 == "key" ? keyColumn : $0 == "geohash" ? geohashColumn : "o.\($0)"
        }
        if kind == .treasure && !mergeJoins
            && (neededColumns.contains(geohashColumn) || order.contains(geohashColumn))
        {
            joins += "\nLEFT JOIN treasure_geohashes AS g ON g.key = o.key"
        }
        for index in renditionNames.indices {
            guard readsRendition[index], !mergeJoins else {
                columns += ["NULL", "NULL", "NULL", "NULL"]
                continue
            }
            columns += [
                "r\(index).path", "r\(index).width", "r\(index).height",
                readsToken[index] ? "t\(index).token" : "NULL",
            ]
            // A rendition counts only when it was made from the image the record has now.
            joins += """

                LEFT JOIN renditions AS r\(index) ON r\(index).owner_kind = '\(kind.rawValue)'
                  AND r\(index).owner_key = \(keyColumn) AND r\(index).name = ?\(index + 1)
                  AND r\(index).source = \(imageColumn)
                """
            if readsToken[index] {
                joins +=
                    tokenBucket == nil
                    ? "\nLEFT JOIN storage_tokens AS t\(index) ON t\(index).path = r\(index).path"
                    : "\nLEFT JOIN bucket_tokens AS t\(index) ON t\(index).bucket = "
                        + "?\(renditionNames.count + 2) AND t\(index).path = r\(index).path"
            }
        }
        // Last: whether the record's file wrote decimal commas, for `{extra.x:number}`.
        if kind == .treasure && neededColumns.contains("o.extra") {
            columns.append("(SELECT s.decimal_comma FROM sources AS s WHERE s.id = o.source)")
        }
        let table = kind == .treasure ? "treasures" : "posts"
        let filter = kind == .post ? "\nWHERE o.status = 'approved'" : ""
        // CROSS JOIN keeps the changed keys first: SQLite then looks each record up rather
        // than scanning the table in key order. The clock value follows the renditions'
        // parameters.
        let source =
            changedSince == nil
            ? "\nFROM \(table) AS o"
            : """

            FROM (SELECT key AS changed FROM record_changes
                  WHERE kind = '\(kind.rawValue)' AND seq > ?\(renditionNames.count + 1) AND key <> '') AS c
            CROSS JOIN \(table) AS o ON \(keyColumn) = c.changed
            """
        return (
            columns,
            source + joins + filter + "\nORDER BY " + order.joined(separator: ", ")
        )
    }

    /// One rendition's rows in key order, for merging beside the records: owner key,
    /// source, path, width, height and token (NULL unless `readsToken`); bound to the
    /// owner kind and the rendition name, and with `fromBucket` to the bucket whose
    /// tokens are read.
    static func renditionsInKeyOrderSQL(readsToken: Bool, fromBucket: Bool = false) -> String {
        let token = readsToken ? "t.token" : "NULL"
        let join =
            !readsToken
            ? ""
            : fromBucket
                ? " LEFT JOIN bucket_tokens AS t ON t.bucket = ?3 AND t.path = r.path"
                : " LEFT JOIN storage_tokens AS t ON t.path = r.path"
        return """
            SELECT r.owner_key, r.source, r.path, r.width, r.height, \(token)
            FROM renditions AS r\(join)
            WHERE r.owner_kind = ?1 AND r.name = ?2 ORDER BY r.owner_key
            """
    }

    /// Treasure geohashes in key order, for merging beside the records: key, geohash.
    static let geohashesInKeyOrderSQL = "SELECT key, geohash FROM treasure_geohashes ORDER BY key"
}

/// The download tokens of exports without a target, for a reader that merges them beside
/// objects read in path order: columns path and token.
package enum StorageTokenSQL {
    /// Every token, in path order (BINARY).
    package static let inPathOrder = "SELECT path, token FROM storage_tokens ORDER BY path"
    /// The token of the path bound as parameter 1.
    package static let byPath = "SELECT path, token FROM storage_tokens WHERE path = ?1"
}
