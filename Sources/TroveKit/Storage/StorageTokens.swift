import TroveSQLite

/// The download tokens of stored objects: one random UUID per object path, made with its
/// rendition row (see the schema's triggers), stable until rotated.
public enum StorageTokens {
    /// What a rotation did.
    public struct Rotation: Equatable, Sendable {
        /// Object paths that got a new token, sorted.
        public var rotated: [String] = []
        /// Object paths that had none and got one.
        public var made: [String] = []
    }

    /// Why nothing was rotated.
    public struct UnknownObjects: Error, CustomStringConvertible {
        public let names: [String]
        public var description: String {
            "no stored object for " + names.map { "'\($0)'" }.joined(separator: ", ")
                + " (give an object path such as treasures/KEY/full-HASH.png, "
                + "or treasure:KEY or post:ID)"
        }
    }

    /// Gives new tokens to the objects named by `selectors` (object paths, `treasure:KEY`,
    /// `post:ID`), to every object with `all`, and makes the tokens missing ones lack
    /// (always), in one transaction. Nothing changes when a selector names no object.
    ///
    /// - Throws: `UnknownObjects`, `SQLiteError`.
    public static func rotate(in workspace: Workspace, selectors: [String], all: Bool)
        throws -> Rotation
    {
        try workspace.write {
            let database = workspace.database
            var rotation = Rotation()
            rotation.made = try database.query(
                """
                SELECT DISTINCT path FROM renditions
                WHERE path NOT IN (SELECT path FROM storage_tokens) ORDER BY path
                """
            ) { $0.text(0) ?? "" }
            // The owners' download URLs carry the token.
            let owners = try database.prepare(
                "SELECT owner_kind, owner_key FROM renditions WHERE path = ?")
            func markOwners(of path: String) throws {
                try owners.bind([.text(path)])
                while let row = try owners.next() {
                    let kind = RecordKind(rawValue: row.text(0) ?? "") ?? .treasure
                    workspace.markChanged(kind, row.text(1) ?? "")
                }
            }
            for path in rotation.made { try markOwners(of: path) }
            _ = try database.execute(
                """
                INSERT OR IGNORE INTO storage_tokens (path, token)
                SELECT DISTINCT path, \(Schema.randomUUID) FROM renditions
                """, [])
            var paths: Set<String> = []
            var unknown: [String] = []
            for selector in selectors {
                let found: [String]
                if let key = selector.dropPrefix("treasure:") {
                    found = try database.query(
                        "SELECT path FROM renditions WHERE owner_kind = 'treasure' AND owner_key = ?",
                        [.text(key)]
                    ) { $0.text(0) ?? "" }
                } else if let id = selector.dropPrefix("post:") {
                    found = try database.query(
                        "SELECT path FROM renditions WHERE owner_kind = 'post' AND owner_key = ?",
                        [.text(id)]
                    ) { $0.text(0) ?? "" }
                } else {
                    found = try database.query(
                        "SELECT path FROM storage_tokens WHERE path = ?", [.text(selector)]
                    ) { $0.text(0) ?? "" }
                }
                if found.isEmpty { unknown.append(selector) }
                paths.formUnion(found)
            }
            if !unknown.isEmpty { throw UnknownObjects(names: unknown) }
            if all {
                let every: [String] = try database.query("SELECT path FROM storage_tokens") {
                    $0.text(0) ?? ""
                }
                paths.formUnion(every)
            }
            for path in paths.sorted() {
                _ = try database.execute(
                    "UPDATE storage_tokens SET token = \(Schema.randomUUID) WHERE path = ?",
                    [.text(path)])
                try markOwners(of: path)
            }
            rotation.rotated = paths.sorted()
            return rotation
        }
    }

    /// The token of the object at `path`, or nil.
    ///
    /// - Throws: `SQLiteError`.
    public static func token(of path: String, in workspace: Workspace) throws -> String? {
        let value = try workspace.database.scalar(
            "SELECT token FROM storage_tokens WHERE path = ?", [.text(path)])
        guard case .text(let token)? = value else { return nil }
        return token
    }
}

extension String {
    fileprivate func dropPrefix(_ prefix: String) -> String? {
        hasPrefix(prefix) ? String(dropFirst(prefix.count)) : nil
    }
}
