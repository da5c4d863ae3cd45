import Foundation
import TroveSQLite

extension Schema {
    /// The files treasures and posts were imported from, recorded until now by absolute
    /// path, become paths relative to the workspace's folder (see `SourceIdentity`), so
    /// that a moved or cloned project still knows them. Only where the file is still at its
    /// recorded path: a path whose file is gone (the project moved before this migration)
    /// stays as it was, for the next import of a file of its name to match. A relative path
    /// already taken by another source leaves the absolute one as it is too.
    ///
    /// Frozen here rather than calling `SourceIdentity`: a shipped migration never changes.
    static let relativeSources: @Sendable (Database) throws -> Void = { database in
        let workspace = database.path
        guard workspace.hasPrefix("/") else { return }
        func components(_ path: String) -> [Substring] {
            var result: [Substring] = []
            for part in path.split(separator: "/") where part != "." {
                if part == ".." { _ = result.popLast() } else { result.append(part) }
            }
            return result
        }
        let folder = components(workspace).dropLast()
        func relative(_ path: String) -> String {
            let target = components(path)
            var shared = 0
            while shared < min(target.count, folder.count)
                && target[shared] == folder[folder.startIndex + shared]
            {
                shared += 1
            }
            let parts =
                Array(repeating: Substring(".."), count: folder.count - shared) + target[shared...]
            return parts.isEmpty ? "." : parts.joined(separator: "/")
        }
        func present(_ path: String) -> Bool {
            var status = stat()
            return stat(path, &status) == 0
        }
        let sources = try database.query("SELECT id, path FROM sources WHERE path LIKE '/%'") {
            ($0.int64(0) ?? 0, $0.text(1) ?? "")
        }
        for (id, path) in sources where present(path) {
            let new = relative(path)
            guard try database.scalar("SELECT 1 FROM sources WHERE path = ?", [.text(new)]) == nil
            else { continue }
            try database.execute(
                "UPDATE sources SET path = ? WHERE id = ?", [.text(new), .integer(id)])
        }
        // Tests apply migrations out of order; a real workspace has had `origin` since 011.
        let columns = try database.query("SELECT name FROM pragma_table_info('posts')") {
            $0.text(0) ?? ""
        }
        guard columns.contains("origin") else { return }
        let origins = try database.query(
            "SELECT DISTINCT origin FROM posts WHERE origin LIKE '/%'"
        ) { $0.text(0) ?? "" }
        for origin in origins where present(origin) {
            try database.execute(
                "UPDATE posts SET origin = ? WHERE origin = ?",
                [.text(relative(origin)), .text(origin)])
        }
    }
}
