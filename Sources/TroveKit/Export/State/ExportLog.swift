import TroveStore

/// The recorded exports of a workspace.
public enum ExportLog {
    /// Every recorded export, oldest first; of one layout when `layout` is given.
    ///
    /// - Throws: `SQLiteError`.
    public static func entries(in workspace: Workspace, layout: String? = nil) throws
        -> [ExportLogEntry]
    {
        try ExportStore(workspace.database).logEntries(layout: layout)
    }
}
