import Foundation
import TroveStore

/// How many exported images would have no download URL because no storage location is
/// configured.
public struct MissingBucket: Equatable, Sendable {
    /// Treasures with a local image, and posts with a photo (approved ones for export).
    public var treasures: Int
    public var posts: Int

    /// The message, e.g. `storage.bucket is not set: 31 treasure images have no download
    /// URL`.
    public var message: String {
        var counts: [String] = []
        if treasures > 0 {
            counts.append("\(treasures) treasure image\(treasures == 1 ? "" : "s")")
        }
        if posts > 0 { counts.append("\(posts) post photo\(posts == 1 ? "" : "s")") }
        let total = treasures + posts
        return "storage.bucket is not set: \(counts.joined(separator: " and ")) "
            + "\(total == 1 ? "has" : "have") no download URL"
    }

    /// What to run.
    public static let hint = "run 'trove config set storage.bucket gs://NAME'"

    /// The count for `workspace`, or nil when a bucket or URL template is set or no
    /// local image needs one.
    ///
    /// - Parameter approvedPostsOnly: count only the posts an export publishes.
    /// - Throws: `SQLiteError`.
    public static func find(in workspace: Workspace, approvedPostsOnly: Bool = false) throws
        -> MissingBucket?
    {
        guard try !isSet(in: workspace) else { return nil }
        let counts = try counts(in: workspace, approvedPostsOnly: approvedPostsOnly)
        return find(treasures: counts.treasures, posts: counts.posts)
    }

    /// The same from counts already known (`WorkspaceStatus` keeps them), or nil when a
    /// bucket or URL template is set or no local image needs one.
    ///
    /// - Throws: `SQLiteError`.
    public static func find(in workspace: Workspace, treasures: Int, posts: Int) throws
        -> MissingBucket?
    {
        guard try !isSet(in: workspace) else { return nil }
        return find(treasures: treasures, posts: posts)
    }

    private static func find(treasures: Int, posts: Int) -> MissingBucket? {
        guard treasures + posts > 0 else { return nil }
        return MissingBucket(treasures: treasures, posts: posts)
    }

    private static func isSet(in workspace: Workspace) throws -> Bool {
        let settings = try workspace.settings()
        return settings.storageBucket != nil || settings.storageURLTemplate != nil
    }

    /// Local treasure images and post photos, by scanning.
    static func counts(in workspace: Workspace, approvedPostsOnly: Bool) throws -> (
        treasures: Int, posts: Int
    ) {
        try RenditionStore(workspace).localImageCounts(approvedPostsOnly: approvedPostsOnly)
    }
}

extension MissingBucket {
    /// How many treasures have a remote (`http(s)://`) image, which gets no renditions.
    ///
    /// - Throws: `SQLiteError`.
    public static func remoteTreasureImages(in workspace: Workspace) throws -> Int {
        try RenditionStore(workspace).remoteTreasureImageCount()
    }
}
