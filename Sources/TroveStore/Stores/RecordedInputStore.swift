import TroveBase
import TroveSQLite

/// A file the workspace records having read, or made for the apps to read: what no output
/// may replace, `--force` or not.
package enum RecordedInput: Equatable, Sendable {
    /// A file treasures were imported from (its `SourceIdentity`).
    case treasureSource(String)
    /// A file posts were imported from (its `SourceIdentity`).
    case postSource(String)
    /// The image of the treasure with this key.
    case treasureImage(key: String)
    /// The photo of the post with this id.
    case postPhoto(id: String)
    /// A rendition `trove images` made, by its path in the renditions folder.
    case rendition(path: String)
}

/// The look-ups behind `RecordedInput`: which files the workspace records as sources, and
/// whether a path is a treasure's image, a post's photo or a rendition. Reads only.
package struct RecordedInputStore {
    private let database: Database

    package init(_ workspace: Workspace) {
        database = workspace.database
    }

    /// Every file treasures or posts were imported from, as recorded (`SourceIdentity`;
    /// URLs and standard input left out). Few: a workspace imports from a handful of files.
    ///
    /// - Throws: `SQLiteError`.
    package func sources() throws -> [RecordedInput] {
        let treasures = try database.query("SELECT path FROM sources ORDER BY path") {
            $0.text(0) ?? ""
        }
        // From the index of origins.
        let posts = try database.query(
            "SELECT DISTINCT origin FROM posts WHERE origin IS NOT NULL ORDER BY origin"
        ) { $0.text(0) ?? "" }
        return treasures.map(RecordedInput.treasureSource) + posts.map(RecordedInput.postSource)
    }

    /// The treasure whose image, or the post whose photo, is at one of `paths` (absolute),
    /// if any. Reads every treasure and post: for outputs that are about to replace a file.
    ///
    /// - Throws: `SQLiteError`.
    package func image(at paths: [String]) throws -> RecordedInput? {
        let list = JSONValue.array(paths.map(JSONValue.string)).jsonText
        if let key = try database.scalar(
            "SELECT key FROM treasures WHERE image IN (SELECT value FROM json_each(?)) LIMIT 1",
            [.text(list)])?.string
        {
            return .treasureImage(key: key)
        }
        if let id = try database.scalar(
            "SELECT id FROM posts WHERE photo IN (SELECT value FROM json_each(?)) LIMIT 1",
            [.text(list)])?.string
        {
            return .postPhoto(id: id)
        }
        return nil
    }

    /// The rendition whose path in the renditions folder is one of `paths` (relative), if
    /// any, from the index of rendition paths.
    ///
    /// - Throws: `SQLiteError`.
    package func rendition(at paths: [String]) throws -> RecordedInput? {
        let list = JSONValue.array(paths.map(JSONValue.string)).jsonText
        return try database.scalar(
            "SELECT path FROM renditions WHERE path IN (SELECT value FROM json_each(?)) LIMIT 1",
            [.text(list)])?.string.map(RecordedInput.rendition)
    }
}
