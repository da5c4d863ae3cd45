import Foundation
import TroveBase

/// How the workspace knows the files it imported from (the `sources` of treasures, the
/// `origin` of posts): by their paths relative to the workspace's folder, so that a project
/// folder moved, renamed or cloned elsewhere, with its workspace inside, still knows them.
/// Standard input is `<stdin>`; a URL (posts read from the live database) is itself.
///
/// Workspaces before migration 023 recorded absolute paths; those whose file was gone when
/// they were migrated keep them until an import matches them (``MovedSource`` in TroveKit).
public enum SourceIdentity {
    /// Standard input's identity.
    public static let standardInput = "<stdin>"

    /// The identity of the file at absolute `path` in the workspace at `workspace`: its
    /// path relative to the workspace's folder (`t.csv`, `data/t.csv`, `../shared/t.csv`).
    /// A workspace given by a relative path (never so from the command line) relates
    /// nothing: the path is its own identity.
    public static func of(file path: String, workspace: String) -> String {
        guard path.hasPrefix("/"), workspace.hasPrefix("/") else { return path }
        return LexicalPath.relative(path, to: folder(of: workspace))
    }

    /// The absolute path of the file `identity` names now, or nil for standard input and
    /// URLs (an absolute identity, recorded before 023, names itself).
    public static func file(_ identity: String, workspace: String) -> String? {
        if identity == standardInput || identity.contains("://") { return nil }
        if identity.hasPrefix("/") { return LexicalPath.normalized(identity) }
        guard workspace.hasPrefix("/") else { return nil }
        return LexicalPath.resolve(identity, against: folder(of: workspace))
    }

    /// The folder the workspace file is in.
    public static func folder(of workspace: String) -> String {
        let components = LexicalPath.components(workspace).dropLast()
        return "/" + components.joined(separator: "/")
    }
}

extension Workspace {
    /// The identity the workspace records the file at absolute `path` under.
    public func sourceIdentity(ofFile path: String) -> String {
        SourceIdentity.of(file: path, workspace: self.path)
    }

    /// The file a recorded identity names now, or nil (standard input, a URL).
    public func file(ofSource identity: String) -> String? {
        SourceIdentity.file(identity, workspace: path)
    }
}
