import Foundation
import TroveCommandLine
import TroveKit
import TroveStore

// What trove's commands add to an invocation and its context: the workspace the command
// line names, where an export's output goes, and the transports a publish sends through.

extension Invocation {
    /// The workspace the command line names (`WorkspaceLocation`).
    var workspace: WorkspaceLocation {
        WorkspaceLocation(option: parsed[CommonOptions.workspace], context: context)
    }

    /// `-w`, else `$TROVE_WORKSPACE`, else `./trove.sqlite`.
    public var workspacePath: String { workspace.path }

    /// Opens the workspace (exit 4 when it is missing, newer or damaged).
    ///
    /// - Throws: `WorkspaceError`; `UsageError` for a bad `$TROVE_BUSY_TIMEOUT`.
    public func openWorkspace(create: Bool = false) throws -> Workspace {
        try Workspace(path: workspacePath, create: create, busyTimeout: busyTimeout())
    }

    /// How long a writer waits for another: `$TROVE_BUSY_TIMEOUT` seconds, else the
    /// workspace's default. Readers never wait (the workspace is in WAL mode).
    ///
    /// - Throws: `UsageError` when the variable is not a number of seconds.
    public func busyTimeout() throws(UsageError) -> Int32 {
        switch workspace.busyTimeout {
        case .success(let milliseconds): return milliseconds
        case .failure(let problem): throw usageError(problem.message)
        }
    }
}

extension CommandOutput {
    /// Where an export sends its tree: straight to the descriptor, once what is buffered
    /// went out (so this flushes), or into the buffer of a capturing stream.
    func exportDestination() -> Exporter.StandardOutput {
        guard let fileDescriptor else { return .chunks { [self] in write(bytes: $0) } }
        flush()
        return .descriptor(fileDescriptor)
    }
}

/// The two transports one publish sends through.
public struct PublishTransports: Sendable {
    public var storage: any StorageTransport
    public var database: any DatabaseTransport

    public init(storage: any StorageTransport, database: any DatabaseTransport) {
        self.storage = storage
        self.database = database
    }
}

/// Where the transports `trove publish` sends through come from.
enum PublishTransportsKey: ContextKey {
    typealias Value = @Sendable (CloudEnvironment) throws -> PublishTransports
}

extension Context {
    /// Makes the transports `trove publish` sends through, from the environment; nil for
    /// the network ones (`PublishCommand.networkTransports`). Tests put recording ones here.
    public var publishTransports: (@Sendable (CloudEnvironment) throws -> PublishTransports)? {
        get { self[PublishTransportsKey.self] }
        set { self[PublishTransportsKey.self] = newValue }
    }
}
