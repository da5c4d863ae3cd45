import Foundation
import TroveCommandLine

enum InitCommand {
    static let command = Command(
        "init", abstract: "Create the workspace (nothing happens if it exists and is current).",
        discussion: "Creates ./trove.sqlite, or the file named by -w or $TROVE_WORKSPACE."
    ) { invocation in
        let path = invocation.workspacePath
        let existed = FileManager.default.fileExists(atPath: path)
        _ = try invocation.openWorkspace(create: true)
        invocation.note(
            existed ? "workspace \(path) is ready" : "created workspace \(path)")
        return .success
    }
}
