import TroveStore

/// `trove check`: the workspace's own structure (``IntegrityCheck``), then the counts
/// `status` answers from against a count of the workspace itself.
public struct WorkspaceCheck {
    /// One problem found; empty means healthy.
    public private(set) var problems: [String]

    /// Checks `workspace`.
    ///
    /// - Throws: `SQLiteError` when the checks cannot run at all.
    public init(workspace: Workspace) throws {
        let integrity = try IntegrityCheck(workspace: workspace)
        problems = integrity.problems
        // The counts are read from the tables a missing one would be among.
        guard !integrity.isIncomplete else { return }
        let counted = try WorkspaceStatus(recounting: workspace)
        for drift in try WorkspaceStatus(workspace: workspace).differences(from: counted) {
            problems.append(
                "status count of \(drift.name) is \(drift.mine), but the workspace holds "
                    + "\(drift.other): it was written outside trove")
        }
    }

    public var isHealthy: Bool { problems.isEmpty }
}
