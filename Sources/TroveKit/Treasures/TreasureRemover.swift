import TroveStore

/// Removes treasures from the workspace with what hangs off them: the geohash (by the
/// schema's trigger) and the rendition records. The rendition files stay on disk; the
/// next export writes `null` for every path the treasure had.
///
/// Call inside a transaction.
public final class TreasureRemover {
    private let store: TreasureStore

    /// A remover that writes in `workspace`'s transaction in progress.
    public init(workspace: Workspace) {
        store = TreasureStore(workspace)
    }

    /// Removes the treasure `key`.
    ///
    /// - Returns: false when there was no such treasure.
    /// - Throws: `SQLiteError`.
    @discardableResult
    public func remove(_ key: String) throws -> Bool {
        try store.remove(key)
    }
}

extension TreasureRemover {
    /// What `remove(_:from:dryRun:)` did.
    public struct Outcome: Sendable {
        /// Keys removed (or that would be), in the order given, each once.
        public var removed: [String] = []
        /// Keys the workspace does not hold; when any, nothing was removed.
        public var unknown: [String] = []
    }

    /// Removes the treasures `keys` in one transaction, all or nothing: when a key is
    /// unknown, nothing is removed. With `dryRun` nothing is removed either way.
    ///
    /// - Throws: `SQLiteError`, `WorkspaceError`.
    public static func remove(_ keys: [String], from workspace: Workspace, dryRun: Bool) throws
        -> Outcome
    {
        struct RolledBack: Error { let outcome: Outcome }
        do {
            return try workspace.write {
                let remover = TreasureRemover(workspace: workspace)
                var outcome = Outcome()
                var seen = Set<String>()
                for key in keys where seen.insert(key).inserted {
                    if try remover.remove(key) {
                        outcome.removed.append(key)
                    } else {
                        outcome.unknown.append(key)
                    }
                }
                if dryRun || !outcome.unknown.isEmpty { throw RolledBack(outcome: outcome) }
                return outcome
            }
        } catch let rolledBack as RolledBack {
            return rolledBack.outcome
        }
    }
}
