import Foundation
import TroveBase
import TroveStore

/// A file imported under an identity the workspace does not know, matched with the file of
/// the same name that the workspace recorded and that is no longer where it was recorded:
/// what a workspace made before sources were relative, or one kept outside a project
/// folder that moved, sees. One such file is taken as the same source (and said to be);
/// several are named, none taken, so nothing is removed or withdrawn on a guess.
public enum MovedSource: Equatable, Sendable {
    /// No recorded file of that name is gone: the file is new.
    case new
    /// The file itself, recorded under another identity (reached through a link), as
    /// recorded: taken as it, nothing to say.
    case sameFile(String)
    /// The one recorded file of that name that is gone, as recorded.
    case one(String)
    /// Every recorded file of that name that is gone, as recorded: none is taken.
    case several([String])

    /// Matches the file at absolute `path` among the `recorded` identities, by its name.
    static func match(file path: String, among recorded: [String], in workspace: Workspace)
        -> MovedSource
    {
        if let same = recorded.first(where: { identity in
            workspace.file(ofSource: identity).map { OutputPaths.same($0, path) } ?? false
        }) {
            return .sameFile(same)
        }
        let gone = recorded.filter { identity in
            guard let file = workspace.file(ofSource: identity) else { return false }
            var status = stat()
            return stat(file, &status) != 0
        }
        switch gone.count {
        case 0: return .new
        case 1: return .one(gone[0])
        default: return .several(gone)
        }
    }

    /// How a recorded identity reads in a message: the file it names now, as absolute.
    static func shown(_ identity: String, in workspace: Workspace) -> String {
        workspace.file(ofSource: identity) ?? identity
    }

    /// The note or warning for `file` (as the user named it), or nil for a new file.
    public func message(for file: String) -> String? {
        switch self {
        case .new, .sameFile: return nil
        case .one(let recorded):
            return "note: \(file) is taken as \(recorded), which the workspace recorded and "
                + "which is no longer there"
        case .several(let recorded):
            return "warning: \(file) is new to the workspace; it recorded files of that name "
                + "that are no longer where they were (\(recorded.joined(separator: ", "))), "
                + "so none is taken as it and nothing of theirs is removed"
        }
    }
}

/// How a posts file is known to the workspace: its identity, and the one it was recorded
/// under before it moved, if so.
public struct PostsOrigin: Sendable {
    /// The file's `SourceIdentity`, recorded as its posts' origin.
    public var identity: String
    /// The identity its posts were recorded under, when the file was matched by its name
    /// (`PostImporter.run(_:origin:formerOrigin:)` moves them).
    public var former: String?
    /// What matching it by its name found, for the messages.
    public var moved: MovedSource

    /// The origin of the posts file at absolute `path` in `workspace`.
    ///
    /// - Throws: `SQLiteError`.
    public static func of(file path: String, in workspace: Workspace) throws -> PostsOrigin {
        let identity = workspace.sourceIdentity(ofFile: path)
        let store = PostStore(workspace)
        guard try !store.knowsOrigin(identity) else {
            return PostsOrigin(identity: identity, moved: .new)
        }
        let candidates = try store.origins(named: LexicalPath.fileName(path))
        switch MovedSource.match(file: path, among: candidates, in: workspace) {
        case .new:
            return PostsOrigin(identity: identity, moved: .new)
        case .sameFile(let recorded):
            // The file itself, reached another way: its posts keep their origin.
            return PostsOrigin(identity: recorded, moved: .new)
        case .one(let recorded):
            return PostsOrigin(
                identity: identity, former: recorded,
                moved: .one(MovedSource.shown(recorded, in: workspace)))
        case .several(let recorded):
            return PostsOrigin(
                identity: identity,
                moved: .several(recorded.map { MovedSource.shown($0, in: workspace) }))
        }
    }
}
