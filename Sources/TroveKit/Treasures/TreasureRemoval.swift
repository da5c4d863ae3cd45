import TroveSQLite

/// Removes treasures from the workspace with what hangs off them: the geohash (by the
/// schema's trigger) and the rendition records. The rendition files stay on disk; the
/// next export writes `null` for every path the treasure had.
///
/// Call inside a transaction.
public final class TreasureRemover {
    private let deleteTreasure: Statement
    private let deleteRenditions: Statement

    /// - Throws: `SQLiteError`.
    public init(database: Database) throws {
        deleteTreasure = try database.prepare("DELETE FROM treasures WHERE key = ?")
        deleteRenditions = try database.prepare(
            "DELETE FROM renditions WHERE owner_kind = 'treasure' AND owner_key = ?")
    }

    /// Removes the treasure `key`.
    ///
    /// - Returns: false when there was no such treasure.
    /// - Throws: `SQLiteError`.
    @discardableResult
    public func remove(_ key: String) throws -> Bool {
        let removed = try deleteTreasure.run([.text(key)]) > 0
        try deleteRenditions.run([.text(key)])
        return removed
    }
}
