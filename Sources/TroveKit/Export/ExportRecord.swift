import TroveSQLite

/// One treasure or approved post as the export reads it.
struct ExportRecord {
    /// A rendition row's fields that placeholders can read.
    struct Rendition {
        var path: String
        var width: Int64
        var height: Int64
    }

    var key = ""
    var name: String?
    var user: String?
    var description: String?
    var date: String?
    var latitude: Double?
    var longitude: Double?
    var geohash: String?
    /// The source image (treasures) or photo (posts): a local path or an http(s) URL.
    var image: String?
    var extraJSON: String?
    /// One per `Layout.renditionNames`, nil when that rendition has not been made.
    var renditions: [Rendition?] = []
    /// `extraJSON` parsed on first use.
    private var parsedExtra: [String: ExportJSON]?

    /// Whether `image` is a remote URL that is exported as it is.
    var imageIsRemote: Bool {
        guard let image else { return false }
        return image.hasPrefix("http://") || image.hasPrefix("https://")
    }

    /// Forgets the parsed extra columns of the previous row.
    mutating func resetExtra() {
        parsedExtra = nil
    }

    /// The value of extra column `name`.
    mutating func extra(_ name: String) -> String? {
        if parsedExtra == nil {
            guard let extraJSON, let parsed = try? ExportJSON(parsing: extraJSON).objectValue
            else {
                parsedExtra = [:]
                return nil
            }
            parsedExtra = parsed
        }
        guard case .string(let value) = parsedExtra?[name] else { return nil }
        return value
    }
}

/// Reads the records a layout iterates, in the order one path template needs them.
///
/// Every query runs inside the export's transaction, so all templates see the same rows.
struct RecordQuery {
    let records: Layout.Records
    let renditionNames: [String]
    /// The fields a stream reads; the other columns are selected as NULL, so a template
    /// pays only for what it writes.
    let needed: [Field]
    /// Whether the stream also checks positions and geohashes.
    let checksPositions: Bool
    /// Whether the stream also checks that every rendition the layout uses exists.
    let checksRenditions: Bool

    /// The SQL for the records, ordered by `orderColumns` (logical names such as `key`
    /// and `user`) and then by key. Only fixed column names and bound parameters: no
    /// user text is ever part of the SQL.
    func sql(orderColumns: [String]) -> String {
        let kind = records == .treasures ? "treasure" : "post"
        let keyColumn = records == .treasures ? "o.key" : "o.id"
        let imageColumn = records == .treasures ? "o.image" : "o.photo"
        // Treasure geohashes live in their own table, joined only when a stream needs them.
        let geohashColumn = records == .treasures ? "g.geohash" : "o.geohash"
        var columns: [String]
        switch records {
        case .treasures:
            columns = [
                "o.key", "o.name", "NULL", "o.description", "NULL", "o.lat", "o.lon", geohashColumn,
                "o.image", "o.extra",
            ]
        case .posts:
            columns = [
                "o.id", "NULL", "o.user", "o.description", "o.date", "o.lat", "o.lon",
                "o.geohash", "o.photo", "NULL",
            ]
        }
        let neededRenditions = Set(needed.compactMap(\.renditionName))
        let neededColumns: Set<String> = Set(
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
        columns = columns.enumerated().map { index, column in
            index == 0 || neededColumns.contains(column) ? column : "NULL"
        }
        var joins = ""
        let order = (orderColumns + ["key"]).map {
            $0 == "key" ? keyColumn : $0 == "geohash" ? geohashColumn : "o.\($0)"
        }
        if records == .treasures
            && (neededColumns.contains(geohashColumn) || order.contains(geohashColumn))
        {
            joins += "\nLEFT JOIN treasure_geohashes AS g ON g.key = o.key"
        }
        for (index, name) in renditionNames.enumerated() {
            guard checksRenditions || neededRenditions.contains(name) else {
                columns += ["NULL", "NULL", "NULL"]
                continue
            }
            columns += ["r\(index).path", "r\(index).width", "r\(index).height"]
            // A rendition counts only when it was made from the image the record has now.
            joins += """

                LEFT JOIN renditions AS r\(index) ON r\(index).owner_kind = '\(kind)'
                  AND r\(index).owner_key = \(keyColumn) AND r\(index).name = ?\(index + 1)
                  AND r\(index).source = \(imageColumn)
                """
        }
        let table = records == .treasures ? "treasures" : "posts"
        let filter = records == .posts ? "\nWHERE o.status = 'approved'" : ""
        return "SELECT \(columns.joined(separator: ", "))\nFROM \(table) AS o"
            + joins + filter + "\nORDER BY " + order.joined(separator: ", ")
    }

    /// Prepares the query for one ordering.
    ///
    /// - Throws: `SQLiteError`.
    func prepare(on database: Database, orderColumns: [String]) throws -> Statement {
        let statement = try database.prepare(sql(orderColumns: orderColumns))
        let neededRenditions = Set(needed.compactMap(\.renditionName))
        for (index, name) in renditionNames.enumerated()
        where checksRenditions || neededRenditions.contains(name) {
            try statement.bind(.text(name), at: Int32(index + 1))
        }
        return statement
    }

    /// Fills `record` from the current row.
    func read(_ row: Row, into record: inout ExportRecord) {
        record.resetExtra()
        record.key = row.text(0) ?? ""
        record.name = row.text(1)
        record.user = row.text(2)
        record.description = row.text(3)
        record.date = row.text(4)
        record.latitude = row.double(5)
        record.longitude = row.double(6)
        record.geohash = row.text(7)
        record.image = row.text(8)
        record.extraJSON = row.text(9)
        // Filled in place: one array per stream rather than one per row.
        if record.renditions.count != renditionNames.count {
            record.renditions = Array(repeating: nil, count: renditionNames.count)
        }
        for index in renditionNames.indices {
            let column = 10 + index * 3
            if let path = row.text(column) {
                record.renditions[index] = ExportRecord.Rendition(
                    path: path, width: row.int64(column + 1) ?? 0,
                    height: row.int64(column + 2) ?? 0)
            } else {
                record.renditions[index] = nil
            }
        }
    }
}
