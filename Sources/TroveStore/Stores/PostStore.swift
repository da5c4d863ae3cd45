import Foundation
import TroveSQLite

/// The one home of the SQL on posts and their moderation: posts and their versions, the
/// audit trail, review sheets, moderators, their sessions and their claims.
///
/// Rows are decoded by column name (`Statement.column`), each name looked up once per statement,
/// so a loop over a hundred thousand rows reads by position as before. Writes run inside
/// the caller's `Workspace.write`; the store marks nothing changed and opens no
/// transaction of its own.
package struct PostStore {
    package let workspace: Workspace

    /// Works on `workspace`.
    package init(_ workspace: Workspace) {
        self.workspace = workspace
    }

    package var database: Database { workspace.database }

    /// The SQL expression of a post's version, named `version` in results.
    package static let version = "\(PostVersion.sql) AS version"

    // MARK: - Posts

    /// Every column of a post, in the names `decodePost` reads.
    static let postColumns = """
        id, user, lat, lon, date, description, status, signal_names,
        photo, photo_ref, photo_hash, photo_width, photo_height, exif_lat, exif_lon,
        exif_time, geohash, status_note, source, imported_at, updated_at, signals, \(version)
        """

    /// One post, or nil.
    ///
    /// - Throws: `SQLiteError`.
    package func post(_ id: String) throws -> Post? {
        try database.prepare("SELECT \(Self.postColumns) FROM posts WHERE id = ?")
            .first([.text(id)], Self.decodePost)
    }

    /// A row of `postColumns` as a post.
    static func decodePost(_ row: Row) throws -> Post {
        Post(
            id: try row.text(PostColumn.id) ?? "", user: try row.text(PostColumn.user),
            latitude: try row.double(PostColumn.lat), longitude: try row.double(PostColumn.lon),
            date: try row.text(PostColumn.date), description: try row.text(PostColumn.description),
            status: status(try row.text(PostColumn.status)),
            signalNames: try row.text(PostColumn.signalNames) ?? "",
            photo: try row.text(PostColumn.photo),
            photoReference: try row.text(PostColumn.photoReference),
            photoHash: try row.text(PostColumn.photoHash),
            photoWidth: try row.int64(PostColumn.photoWidth).map { Int($0) },
            photoHeight: try row.int64(PostColumn.photoHeight).map { Int($0) },
            exifLatitude: try row.double(PostColumn.exifLatitude),
            exifLongitude: try row.double(PostColumn.exifLongitude),
            exifTime: try row.text(PostColumn.exifTime), geohash: try row.text(PostColumn.geohash),
            statusNote: try row.text(PostColumn.statusNote),
            source: try row.text(PostColumn.source),
            importedAt: try row.text(PostColumn.importedAt) ?? "",
            updatedAt: try row.text(PostColumn.updatedAt) ?? "",
            signals: Signal.parse(try row.text(PostColumn.signals) ?? "[]"),
            version: try row.text(PostColumn.version) ?? "")
    }

    /// A stored status; the schema allows no other words.
    package static func status(_ text: String?) -> PostStatus {
        text.flatMap(PostStatus.init(rawValue:)) ?? .pending
    }

    /// The versions of a post the workspace has held, oldest first.
    ///
    /// - Throws: `SQLiteError`.
    package func versions(_ id: String) throws -> [PostVersionRecord] {
        try database.query(
            """
            SELECT version, user, lat, lon, description, date, photo_ref, photo_hash, seen_at
            FROM post_versions WHERE post_id = ? ORDER BY seq
            """, [.text(id)]
        ) { row in
            PostVersionRecord(
                version: try row.text(PostVersionColumn.version) ?? "",
                user: try row.text(PostVersionColumn.user),
                latitude: try row.double(PostVersionColumn.lat),
                longitude: try row.double(PostVersionColumn.lon),
                description: try row.text(PostVersionColumn.description),
                date: try row.text(PostVersionColumn.date),
                photoReference: try row.text(PostVersionColumn.photoReference),
                photoHash: try row.text(PostVersionColumn.photoHash),
                seenAt: try row.text(PostVersionColumn.seenAt) ?? "")
        }
    }

    /// The current status and version of each post (missing ids are left out).
    ///
    /// - Throws: `SQLiteError`.
    package func current(_ ids: [String]) throws -> [String: (status: PostStatus, version: String)]
    {
        let statement = try database.prepare(
            "SELECT status, \(Self.version) FROM posts WHERE id = ?")
        var result: [String: (status: PostStatus, version: String)] = [:]
        for id in ids {
            let found = try statement.first([.text(id)]) { row in
                (
                    try row.text(PostColumn.status).flatMap(PostStatus.init),
                    try row.text(PostColumn.version) ?? ""
                )
            }
            if let found, let status = found.0 { result[id] = (status, found.1) }
        }
        return result
    }

    /// The current status of each post (missing ids are left out).
    ///
    /// - Throws: `SQLiteError`.
    package func statuses(_ ids: [String]) throws -> [String: PostStatus] {
        let statement = try database.prepare("SELECT status FROM posts WHERE id = ?")
        var result: [String: PostStatus] = [:]
        for id in ids {
            let found = try statement.first([.text(id)]) {
                try $0.text(PostColumn.status).flatMap(PostStatus.init)
            }
            if let found, let status = found { result[id] = status }
        }
        return result
    }

    /// A post's signals with their details (none for a missing post).
    ///
    /// - Throws: `SQLiteError`.
    package func signals(_ id: String) throws -> [Signal] {
        let text = try database.query("SELECT signals FROM posts WHERE id = ?", [.text(id)]) {
            try $0.text(PostColumn.signals) ?? "[]"
        }
        return Signal.parse(text.first ?? "[]")
    }

    /// Whether a post has a photo; nil when there is no such post.
    ///
    /// - Throws: `SQLiteError`.
    package func hasPhoto(_ id: String) throws -> Bool? {
        try database.prepare("SELECT photo IS NOT NULL AS has_photo FROM posts WHERE id = ?")
            .first([.text(id)]) { try $0.int64(PostColumn.hasPhoto) == 1 }
    }

    /// Whether post `id` is one of `user`'s (for nil, one without a user).
    ///
    /// - Throws: `SQLiteError`.
    package func isPost(_ id: String, of user: String?) throws -> Bool {
        try database.scalar(
            "SELECT 1 FROM posts WHERE id = ? AND user IS ?", [.text(id), user.map { .text($0) }])
            != nil
    }

    // MARK: - The review list

    /// The positions of the listed columns in a listing's result, looked up once.
    package struct SummaryColumns {
        package let id, user, lat, lon, date, description, status, signalNames: Int

        package init(_ statement: Statement) throws {
            id = try statement.index(of: PostColumn.id)
            user = try statement.index(of: PostColumn.user)
            lat = try statement.index(of: PostColumn.lat)
            lon = try statement.index(of: PostColumn.lon)
            date = try statement.index(of: PostColumn.date)
            description = try statement.index(of: PostColumn.description)
            status = try statement.index(of: PostColumn.status)
            signalNames = try statement.index(of: PostColumn.signalNames)
        }

        /// The row as a summary.
        package func summary(_ row: Row) -> PostSummary {
            PostSummary(
                id: row.text(id) ?? "", user: row.text(user), latitude: row.double(lat),
                longitude: row.double(lon), date: row.text(date),
                description: row.text(description), status: row.text(status) ?? "pending",
                signalNames: row.text(signalNames) ?? "")
        }
    }

    /// Adds the conditions of the listing's and the queue's shared filters: posts of
    /// `user`, and posts carrying signal `signal` (its name among the comma-separated
    /// `signal_names`).
    package static func filter(
        user: String?, signal: String?, into conditions: inout [String],
        _ values: inout [SQLiteValue?]
    ) {
        if let user {
            conditions.append("user = ?")
            values.append(.text(user))
        }
        if let signal {
            conditions.append("(',' || signal_names || ',') LIKE ? ESCAPE '\\'")
            values.append(.text("%," + likeEscaped(signal) + ",%"))
        }
    }

    /// `text` with LIKE's wildcards and its escape character escaped (`ESCAPE '\\'`).
    static func likeEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_")
    }

    /// `text` matched literally by GLOB: its wildcards `*`, `?` and `[` each in a bracket
    /// expression of their own.
    static func globEscaped(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "*", "?", "[": result += "[\(character)]"
            default: result.append(character)
            }
        }
        return result
    }

    /// The listing query, bound, with its columns: one indexed query in review order
    /// (date, then id) that reads only the review queue's covering index.
    ///
    /// - Throws: `SQLiteError`.
    package func listing(status: PostStatus?, signal: String?, user: String?) throws -> (
        Statement, SummaryColumns
    ) {
        var sql = """
            SELECT id, user, lat, lon, date, description, status, signal_names FROM posts
            """
        var conditions: [String] = []
        var values: [SQLiteValue?] = []
        if let status {
            conditions.append("status = ?")
            values.append(.text(status.rawValue))
        }
        Self.filter(user: user, signal: signal, into: &conditions, &values)
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        let statement = try database.prepare(sql + " ORDER BY date, id")
        try statement.bind(values)
        return (statement, try SummaryColumns(statement))
    }

    /// Calls `body` for each post matching the filters, in review order, streamed.
    ///
    /// - Throws: `SQLiteError`, or whatever `body` throws.
    package func summaries(
        status: PostStatus?, signal: String?, user: String?, _ body: (PostSummary) throws -> Void
    ) throws {
        let (statement, columns) = try listing(status: status, signal: signal, user: user)
        try statement.forEach { try body(columns.summary($0)) }
    }

    /// Ids of the posts in a status, in review order.
    ///
    /// - Throws: `SQLiteError`.
    package func ids(status: PostStatus) throws -> [String] {
        try database.query(
            "SELECT id FROM posts WHERE status = ? ORDER BY date, id", [.text(status.rawValue)]
        ) { try $0.text(PostColumn.id) ?? "" }
    }

    // MARK: - The served queue

    /// Which posts a page of the served queue holds.
    package struct QueueFilter {
        /// The statuses shown.
        package enum Statuses {
            /// Pending and flagged.
            case open
            case all
            case only(PostStatus)
        }

        package var statuses = Statuses.open
        package var user: String?
        package var signal: SignalName?
        package var area: GeoBounds?
        /// An id, the start of one, or words of the description.
        package var text: String?

        /// The WHERE clause (empty, or starting with a space) and its values.
        var clause: (String, [SQLiteValue?]) {
            var conditions: [String] = []
            var values: [SQLiteValue?] = []
            switch statuses {
            case .open: conditions.append("status IN ('pending', 'flagged')")
            case .all: break
            case .only(let status):
                conditions.append("status = ?")
                values.append(.text(status.rawValue))
            }
            PostStore.filter(user: user, signal: signal?.rawValue, into: &conditions, &values)
            if let area {
                conditions.append("lat BETWEEN ? AND ? AND lon BETWEEN ? AND ?")
                values += [
                    .real(area.minLatitude), .real(area.maxLatitude), .real(area.minLongitude),
                    .real(area.maxLongitude),
                ]
            }
            if let text {
                // An id, the start of one (GLOB is case-sensitive as ids are, so it can
                // read the id index), or words of the description.
                conditions.append("(id = ? OR id GLOB ? OR description LIKE ? ESCAPE '\\')")
                values += [
                    .text(text), .text(PostStore.globEscaped(text) + "*"),
                    .text("%" + PostStore.likeEscaped(text) + "%"),
                ]
            }
            let filter =
                conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
            return (filter, values)
        }
        package init(
            user: String? = nil, signal: SignalName? = nil, area: GeoBounds? = nil,
            text: String? = nil
        ) {
            self.user = user
            self.signal = signal
            self.area = area
            self.text = text
        }
    }

    /// Up to `limit` posts matching `filter` in review order, after `after` (date and
    /// id; a missing date comes first), with their versions.
    ///
    /// - Throws: `SQLiteError`.
    package func queue(_ filter: QueueFilter, after: (date: String, id: String)?, limit: Int) throws
        -> [(summary: PostSummary, version: String)]
    {
        var (page, values) = filter.clause
        if let after {
            page += page.isEmpty ? " WHERE " : " AND "
            if after.date.isEmpty {
                page += "((date IS NULL AND id > ?) OR date IS NOT NULL)"
                values.append(.text(after.id))
            } else {
                page += "(date > ? OR (date = ? AND id > ?))"
                values += [.text(after.date), .text(after.date), .text(after.id)]
            }
        }
        return try summaries(
            """
            SELECT id, user, lat, lon, date, description, status, signal_names,
                   \(Self.version) FROM posts\(page)
            ORDER BY date, id LIMIT \(limit)
            """, values)
    }

    /// How many posts match `filter`.
    ///
    /// - Throws: `SQLiteError`.
    package func count(_ filter: QueueFilter) throws -> Int64 {
        let (clause, values) = filter.clause
        return try database.scalar("SELECT count(*) FROM posts\(clause)", values)?.int64 ?? 0
    }

    /// Up to a thousand of `user`'s posts, by date, with their versions.
    ///
    /// - Throws: `SQLiteError`.
    package func posts(ofUser user: String) throws -> [(summary: PostSummary, version: String)] {
        try summaries(
            """
            SELECT id, user, lat, lon, date, description, status, signal_names,
                   \(Self.version) FROM posts WHERE user = ? ORDER BY coalesce(date, ''), id
            LIMIT 1000
            """, [.text(user)])
    }

    private func summaries(_ sql: String, _ values: [SQLiteValue?]) throws -> [(
        summary: PostSummary, version: String
    )] {
        let statement = try database.prepare(sql)
        try statement.bind(values)
        let columns = try SummaryColumns(statement)
        let version = try statement.index(of: PostColumn.version)
        var result: [(summary: PostSummary, version: String)] = []
        while let row = try statement.next() {
            result.append((columns.summary(row), row.text(version) ?? ""))
        }
        return result
    }
}
