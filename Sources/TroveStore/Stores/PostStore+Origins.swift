import TroveBase
import TroveSQLite

// MARK: - The files posts come from

extension PostStore {
    /// Whether some post was last imported from `origin` (a `SourceIdentity`).
    ///
    /// - Throws: `SQLiteError`.
    package func knowsOrigin(_ origin: String) throws -> Bool {
        try database.scalar("SELECT 1 FROM posts WHERE origin = ? LIMIT 1", [.text(origin)]) != nil
    }

    /// The origins that are files named `fileName` (not URLs), from the index of origins:
    /// the candidates for a file the workspace knew elsewhere.
    ///
    /// - Throws: `SQLiteError`.
    package func origins(named fileName: String) throws -> [String] {
        try database.query(
            "SELECT DISTINCT origin FROM posts WHERE origin IS NOT NULL ORDER BY origin"
        ) { $0.text(0) ?? "" }
        .filter { !$0.contains("://") && LexicalPath.fileName($0) == fileName }
    }

    /// Records that the posts of `origin` now come from `new`. Call inside a write.
    ///
    /// - Throws: `SQLiteError`.
    package func moveOrigin(_ origin: String, to new: String) throws {
        try database.execute(
            "UPDATE posts SET origin = ? WHERE origin = ?", [.text(new), .text(origin)])
    }
}
