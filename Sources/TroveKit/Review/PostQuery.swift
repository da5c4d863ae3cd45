import Foundation
import TroveStore

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
