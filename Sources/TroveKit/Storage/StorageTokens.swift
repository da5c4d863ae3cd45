import TroveStore

/// The download tokens of stored objects: one random UUID per object path for exports
/// without a target, and one per object path and publish target bucket (see the schema's
/// triggers), each made with its rendition row and stable until rotated.
public enum StorageTokens {
    /// What a rotation did.
    public struct Rotation: Equatable, Sendable {
        /// Object paths that got a new token, sorted.
        public var rotated: [String] = []
        /// Object paths that had none and got one.
        public var made: [String] = []
        /// The publish targets whose URLs change: those whose bucket got a new token.
        public var targets: [PublishTarget] = []
        /// Whether the tokens of exports without a target changed, where exports were
        /// recorded (whose storage scripts put them in place).
        public var exports = false
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
    /// `post:ID`), or with `all` to every object that is live: those a target holds and
    /// those the last recorded export of each layout referenced. Only `target`'s tokens
    /// are changed when it is given (its bucket's), else every target's and those of
    /// exports without a target. Tokens missing ones lack are made (always). One
    /// transaction; nothing changes when a selector names no object.
    ///
    /// - Throws: `UnknownObjects`, `PublishError.usage` for an unknown target,
    ///   `SQLiteError`, `StoragePlanError.damaged`.
    public static func rotate(
        in workspace: Workspace, selectors: [String], all: Bool, target name: String? = nil
    ) throws -> Rotation {
        let store = StorageTokenStore(workspace)
        return try workspace.write {
            var rotation = Rotation()
            let database = workspace.database
            let targets =
                try name.map { [try PublishTargets.find($0, in: workspace)] }
                ?? PublishTargets.all(in: workspace)
            rotation.made = try store.pathsWithoutToken()
            // The owners' download URLs carry the token.
            func markOwners(of path: String) throws {
                for owner in try store.owners(of: path) {
                    workspace.markChanged(owner.kind, owner.key)
                }
            }
            for path in rotation.made { try markOwners(of: path) }
            try store.makeMissingTokens()
            let paths = try selectedPaths(selectors, store: store)
            // Per bucket, the paths whose tokens change there.
            var byBucket: [String: Set<String>] = [:]
            for target in targets { byBucket[target.bucket, default: []].formUnion(paths) }
            var exportPaths = name == nil ? paths : []
            if all {
                // Only what is live: an object no URL names needs no new token.
                try addLivePaths(
                    of: targets, exports: name == nil, in: workspace, byBucket: &byBucket,
                    exportPaths: &exportPaths)
            }
            var rotated: Set<String> = []
            var buckets: Set<String> = []
            for (bucket, bucketPaths) in byBucket {
                for path in bucketPaths.sorted()
                where try store.rotateToken(of: path, inBucket: bucket) {
                    rotated.insert(path)
                    buckets.insert(bucket)
                }
            }
            let exported = try ExportStore(database).lastExportTime() != nil
            for path in exportPaths.sorted() where try store.token(of: path) != nil {
                try store.rotateToken(of: path)
                try markOwners(of: path)
                rotated.insert(path)
                rotation.exports = exported || targets.isEmpty
            }
            rotation.rotated = rotated.sorted()
            rotation.targets = targets.filter { buckets.contains($0.bucket) }
            return rotation
        }
    }

    /// The paths of the objects `selectors` name.
    ///
    /// - Throws: `UnknownObjects` naming the selectors that name none, `SQLiteError`.
    private static func selectedPaths(_ selectors: [String], store: StorageTokenStore) throws
        -> Set<String>
    {
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
        return paths
    }

    /// Adds the paths that are live: those each target holds (published or planned) to
    /// its bucket's, and with `exports` those the last recorded export of each layout
    /// referenced.
    ///
    /// - Throws: `SQLiteError`, `StoragePlanError.damaged`.
    private static func addLivePaths(
        of targets: [PublishTarget], exports: Bool, in workspace: Workspace,
        byBucket: inout [String: Set<String>], exportPaths: inout Set<String>
    ) throws {
        let database = workspace.database
        for target in targets {
            for planned in [false, true] {
                var held = try PublishState.objects(
                    target: target.name, planned: planned, database: database)
                while !held.isAtEnd {
                    byBucket[target.bucket, default: []].insert(
                        String(decoding: held.path, as: UTF8.self))
                    try held.advance()
                }
            }
        }
        if exports {
            let store = ExportStore(database)
            for latest in try store.latestObjectGenerations(besides: "") {
                var referenced = try PlannedObjectReader(
                    blocks: store.blocks(
                        .objects, layout: latest.layout, generation: latest.generation))
                while !referenced.isAtEnd {
                    exportPaths.insert(String(decoding: referenced.path, as: UTF8.self))
                    try referenced.advance()
                }
            }
        }
    }

    /// The token of the object at `path` for exports without a target, or nil.
    ///
    /// - Throws: `SQLiteError`.
    public static func token(of path: String, in workspace: Workspace) throws -> String? {
        try StorageTokenStore(workspace).token(of: path)?.token
    }

    /// The token of the object at `path` in `target`'s bucket, or nil.
    ///
    /// - Throws: `SQLiteError`.
    public static func token(of path: String, target: PublishTarget, in workspace: Workspace)
        throws -> String?
    {
        try StorageTokenStore(workspace).token(of: path, inBucket: target.bucket)
    }
}

extension String {
    fileprivate func dropPrefix(_ prefix: String) -> String? {
        hasPrefix(prefix) ? String(dropFirst(prefix.count)) : nil
    }
}
