import Foundation
import TroveBase

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
        try PostStore(workspace).summaries(status: status, signal: signal, user: user, body)
    }

    /// Ids of the posts in a status, in review order.
    ///
    /// - Throws: `SQLiteError`.
    public func ids(status: PostStatus) throws -> [String] {
        try PostStore(workspace).ids(status: status)
    }

    /// One post, or nil.
    ///
    /// - Throws: `SQLiteError`.
    public func post(_ id: String) throws -> Post? {
        try PostStore(workspace).post(id)
    }

    /// The versions of a post the workspace has held, oldest first.
    ///
    /// - Throws: `SQLiteError`.
    public func versions(_ id: String) throws -> [PostVersionRecord] {
        try PostStore(workspace).versions(id)
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
