import TroveBase
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

extension RecordQuery {
    var kind: String { records == .treasures ? "treasure" : "post" }
    var keyColumn: String { records == .treasures ? "o.key" : "o.id" }
    var imageColumn: String { records == .treasures ? "o.image" : "o.photo" }
    /// Treasure geohashes live in their own table, joined only when a stream needs them.
    var geohashColumn: String { records == .treasures ? "g.geohash" : "o.geohash" }

    var neededColumns: Set<String> {
        Set(
            needed.flatMap { field -> [String] in
                switch field {
                case .key: return []
                case .name: return ["o.name"]
                case .user: return ["o.user"]
                case .description: return ["o.description"]
                case .date: return ["o.date"]
                case .lat, .lon: return ["o.lat", "o.lon"]
                case .geohash: return [geohashColumn]
                case .extra: return ["o.extra"]
                case .rendition: return [imageColumn]
                }
            }
                + (checksPositions ? ["o.lat", "o.lon", geohashColumn] : [])
                + (checksRenditions ? [imageColumn] : []))
    }

    /// Whether treasure geohashes are read.
    var readsTreasureGeohashes: Bool {
        records == .treasures && neededColumns.contains(geohashColumn)
    }

    /// The records' query: its selected columns (`NULL` for those not read) and its text.
    func sql(orderColumns: [String], mergeJoins: Bool) -> (columns: [String], text: String) {
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
        switch records {
        case .treasures:
            columns = [
                "o.key", "o.name", "NULL", "o.description", "NULL", "o.lat", "o.lon",
                geohashColumn, "o.image", "o.extra",
            ]
        case .posts:
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
        if records == .treasures && !mergeJoins
            && (neededColumns.contains(geohashColumn) || order.contains(geohashColumn))
        {
            joins += "\nLEFT JOIN treasure_geohashes AS g ON g.key = o.key"
        }
        for (index, name) in renditionNames.enumerated() {
            guard readsRendition(name), !mergeJoins else {
                columns += ["NULL", "NULL", "NULL", "NULL"]
                continue
            }
            columns += [
                "r\(index).path", "r\(index).width", "r\(index).height",
                readsToken(name) ? "t\(index).token" : "NULL",
            ]
            // A rendition counts only when it was made from the image the record has now.
            joins += """

                LEFT JOIN renditions AS r\(index) ON r\(index).owner_kind = '\(kind)'
                  AND r\(index).owner_key = \(keyColumn) AND r\(index).name = ?\(index + 1)
                  AND r\(index).source = \(imageColumn)
                """
            if readsToken(name) {
                joins +=
                    "\nLEFT JOIN storage_tokens AS t\(index) ON t\(index).path = r\(index).path"
            }
        }
        // Last: whether the record's file wrote decimal commas, for `{extra.x:number}`.
        if records == .treasures && neededColumns.contains("o.extra") {
            columns.append("(SELECT s.decimal_comma FROM sources AS s WHERE s.id = o.source)")
        }
        let table = records == .treasures ? "treasures" : "posts"
        let filter = records == .posts ? "\nWHERE o.status = 'approved'" : ""
        // CROSS JOIN keeps the changed keys first: SQLite then looks each record up rather
        // than scanning the table in key order. The clock value follows the renditions'
        // parameters.
        let source =
            changedSince == nil
            ? "\nFROM \(table) AS o"
            : """

            FROM (SELECT key AS changed FROM record_changes
                  WHERE kind = '\(kind)' AND seq > ?\(renditionNames.count + 1) AND key <> '') AS c
            CROSS JOIN \(table) AS o ON \(keyColumn) = c.changed
            """
        return (
            columns,
            source + joins + filter + "\nORDER BY " + order.joined(separator: ", ")
        )
    }

    /// One rendition's rows in key order, for merging beside the records: owner key,
    /// source, path, width, height and token (NULL unless `readsToken`); bound to the
    /// owner kind and the rendition name.
    static func renditionsInKeyOrderSQL(readsToken: Bool) -> String {
        let token = readsToken ? "t.token" : "NULL"
        return """
            SELECT r.owner_key, r.source, r.path, r.width, r.height, \(token)
            FROM renditions AS r LEFT JOIN storage_tokens AS t ON t.path = r.path
            WHERE r.owner_kind = ? AND r.name = ? ORDER BY r.owner_key
            """
    }

    /// Treasure geohashes in key order, for merging beside the records: key, geohash.
    static let geohashesInKeyOrderSQL = "SELECT key, geohash FROM treasure_geohashes ORDER BY key"
}
