import TroveStore

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
        let store = StorageTokenStore(workspace)
        return try workspace.write {
            var rotation = Rotation()
            rotation.made = try store.pathsWithoutToken()
            // The owners' download URLs carry the token.
            func markOwners(of path: String) throws {
                for owner in try store.owners(of: path) {
                    workspace.markChanged(owner.kind, owner.key)
                }
            }
            for path in rotation.made { try markOwners(of: path) }
            try store.makeMissingTokens()
            var paths: Set<String> = []
            var unknown: [String] = []
            for selector in selectors {
                let found: [String]
                if let key = selector.dropPrefix("treasure:") {
                    found = try store.paths(of: .treasure, key)
                } else if let id = selector.dropPrefix("post:") {
                    found = try store.paths(of: .post, id)
                } else {
                    found = try store.token(of: selector).map { [$0.path] } ?? []
                }
                if found.isEmpty { unknown.append(selector) }
                paths.formUnion(found)
            }
            if !unknown.isEmpty { throw UnknownObjects(names: unknown) }
            if all { paths.formUnion(try store.tokenPaths()) }
            for path in paths.sorted() {
                try store.rotateToken(of: path)
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
        try StorageTokenStore(workspace).token(of: path)?.token
    }
}

extension String {
    fileprivate func dropPrefix(_ prefix: String) -> String? {
        hasPrefix(prefix) ? String(dropFirst(prefix.count)) : nil
    }
}
