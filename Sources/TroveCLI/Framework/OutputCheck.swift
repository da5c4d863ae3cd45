import Foundation
import TroveBase
import TroveCommandLine
import TroveKit
import TroveStore

extension Invocation {
    /// Refuses a command line whose outputs would replace the workspace, an input, each
    /// other, a file the workspace records as read or a rendition it made (`--force` or
    /// not), or a file trove did not write (without `--force`): run before every command,
    /// from the paths its declaration marks (`PathRole`), so nothing is written first.
    ///
    /// - Throws: `CommandFailure` with exit status 2, naming both paths.
    func checkOutputPaths() throws {
        let command = parsed.command
        var inputs: [NamedPath] = []
        var outputs: [(NamedPath, OutputKind)] = []
        func add(_ role: PathRole, label: String, values: [String]) {
            for value in values where value != "-" && !value.isEmpty {
                let path = resolve(value)
                switch role {
                case .none: break
                case .input: inputs.append(NamedPath(label, path))
                case .output(let kind, let beside):
                    outputs.append((NamedPath(label, path), kind))
                    for (extra, kind) in beside(path, parsed) {
                        outputs.append((NamedPath("\(label)'s companion", extra), kind))
                    }
                }
            }
        }
        for argument in command.arguments {
            add(argument.role, label: "<\(argument.name)>", values: parsed.given(argument))
        }
        for option in command.options where !option.isFlag {
            add(option.role, label: "--\(option.long)", values: parsed.given(option))
        }
        if outputs.isEmpty { return }
        let force = command.options.contains {
            $0.isFlag && $0.replacesOutputs && parsed.flags.contains($0.long)
        }
        // What the workspace records as read is never an output: looked at read-only, as
        // it is (a command that goes on opens it again); one that cannot be opened records
        // nothing to protect.
        let workspace = command.usesWorkspace ? try? Workspace(readingOnly: workspacePath) : nil
        do {
            try OutputPaths.check(
                outputs: outputs, inputs: inputs,
                workspace: command.usesWorkspace ? workspacePath : nil, force: force
            ) { path, kind in
                guard let workspace, kind != .folder else { return nil }
                let images = OutputPaths.replacesAnotherKind(path, kind: kind)
                return try? RecordedInputs.recorded(at: path, in: workspace, images: images)
            }
        } catch {
            throw CommandFailure(error.message, status: .usage)
        }
    }
}
