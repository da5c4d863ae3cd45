import Foundation
import TroveSQLite

/// A post as the review list shows it: the columns the review queue's covering index
/// holds, so a listing of every post reads the index in order and never the table. A
/// `Post` gives its own with `summary`.
public struct PostSummary: Equatable, Sendable {
    /// The post id.
    public var id: String
    /// The submitting user.
    public var user: String?
    /// Latitude in decimal degrees.
    public var latitude: Double?
    /// Longitude in decimal degrees.
    public var longitude: Double?
    /// ISO 8601 day or moment.
    public var date: String?
    /// The submitter's text, with e-mail addresses removed.
    public var description: String?
    /// pending, approved, rejected or flagged.
    public var status: String
    /// Signal names joined by `,` (as stored).
    public var signalNames: String

    /// The signal names.
    public var signals: [String] {
        signalNames.isEmpty ? [] : signalNames.split(separator: ",").map(String.init)
    }
}

/// One version of a post's reviewed fields, as an import first held it.
public struct PostVersionRecord: Equatable, Sendable {
    /// The version.
    public var version: String
    /// The fields a moderator judges, as in `Post`.
    public var user: String?
    public var latitude: Double?
    public var longitude: Double?
    public var description: String?
    public var date: String?
    public var photoReference: String?
    public var photoHash: String?
    /// When an import first held this version.
    public var seenAt: String
}

/// Reads posts for the review commands.
public struct PostQuery {
    let workspace: Workspace

    /// Works on `workspace`.
    public init(workspace: Workspace) {
        self.workspace = workspace
    }

    /// Calls `body` for each post matching the filters, oldest date first, without
    /// collecting them: one indexed query, streamed.
    ///
    /// - Parameter status: nil for every status.
    /// - Throws: `SQLiteError`, or whatever `body` throws.
    public func list(
        status: PostStatus?, signal: String? = nil, user: String? = nil,
        _ body: (PostSummary) throws -> Void
    ) throws {
        let (sql, values) = Self.listSQL(status: status, signal: signal, user: user)
        let statement = try workspace.database.prepare(sql)
        try statement.bind(values)
        try statement.forEach { row in
            try body(Self.summary(row))
        }
    }

    /// The listing query: one indexed query in review order (date, then id).
    static func listSQL(status: PostStatus?, signal: String?, user: String?)
        -> (String, [SQLiteValue?])
    {
        var sql = """
            SELECT id, user, lat, lon, date, description, status, signal_names FROM posts
            """
        var conditions: [String] = []
        var values: [SQLiteValue?] = []
        if let status {
            conditions.append("status = ?")
            values.append(.text(status.rawValue))
        }
        if let user {
            conditions.append("user = ?")
            values.append(.text(user))
        }
        if let signal {
            conditions.append("(',' || signal_names || ',') LIKE ? ESCAPE '\\'")
            let escaped = signal.replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "%", with: "\\%")
                .replacingOccurrences(of: "_", with: "\\_")
            values.append(.text("%," + escaped + ",%"))
        }
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        return (sql + " ORDER BY date, id", values)
    }

    /// Ids of the posts in a status, in review order.
    ///
    /// - Throws: `SQLiteError`.
    public func ids(status: PostStatus) throws -> [String] {
        try workspace.database.query(
            "SELECT id FROM posts WHERE status = ? ORDER BY date, id", [.text(status.rawValue)]
        ) { $0.text(0) ?? "" }
    }

    static func summary(_ row: Row) -> PostSummary {
        PostSummary(
            id: row.text(0) ?? "", user: row.text(1), latitude: row.double(2),
            longitude: row.double(3), date: row.text(4), description: row.text(5),
            status: row.text(6) ?? "pending", signalNames: row.text(7) ?? "")
    }

    /// One post, or nil.
    ///
    /// - Throws: `SQLiteError`.
    public func post(_ id: String) throws -> Post? {
        let statement = try workspace.database.prepare(
            """
            SELECT id, user, lat, lon, date, description, status, signal_names,
                   photo, photo_ref, photo_hash, photo_width, photo_height, exif_lat, exif_lon,
                   exif_time, geohash, status_note, source, imported_at, updated_at, signals,
                   \(PostVersion.sql)
            FROM posts WHERE id = ?
            """)
        try statement.bind([.text(id)])
        guard let row = try statement.next() else { return nil }
        defer { statement.reset() }
        let summary = Self.summary(row)
        return Post(
            id: summary.id, user: summary.user, latitude: summary.latitude,
            longitude: summary.longitude, date: summary.date, description: summary.description,
            status: PostStatus(rawValue: summary.status) ?? .pending,
            signalNames: summary.signalNames, photo: row.text(8), photoReference: row.text(9),
            photoHash: row.text(10), photoWidth: row.int64(11).map { Int($0) },
            photoHeight: row.int64(12).map { Int($0) }, exifLatitude: row.double(13),
            exifLongitude: row.double(14), exifTime: row.text(15), geohash: row.text(16),
            statusNote: row.text(17), source: row.text(18), importedAt: row.text(19) ?? "",
            updatedAt: row.text(20) ?? "", signals: Signal.parse(row.text(21) ?? "[]"),
            version: row.text(22) ?? "")
    }

    /// The versions of a post the workspace has held, oldest first.
    ///
    /// - Throws: `SQLiteError`.
    public func versions(_ id: String) throws -> [PostVersionRecord] {
        try workspace.database.query(
            """
            SELECT version, user, lat, lon, description, date, photo_ref, photo_hash, seen_at
            FROM post_versions WHERE post_id = ? ORDER BY seq
            """, [.text(id)]
        ) { row in
            PostVersionRecord(
                version: row.text(0) ?? "", user: row.text(1), latitude: row.double(2),
                longitude: row.double(3), description: row.text(4), date: row.text(5),
                photoReference: row.text(6), photoHash: row.text(7), seenAt: row.text(8) ?? "")
        }
    }

    /// Every post matching a status (nil: all), full records, in review order.
    ///
    /// - Throws: `SQLiteError`.
    public func records(status: PostStatus?) throws -> [Post] {
        var ids: [String] = []
        try list(status: status) { ids.append($0.id) }
        return try ids.compactMap { try post($0) }
    }
}
