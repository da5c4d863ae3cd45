import TroveCommandLine
import TroveKit

/// `trove completions SHELL` and `trove man`: generated from the command tree for
/// `make install`, and hidden from the overview help.
enum UtilityCommands {
    static let completions = Command(
        "completions", abstract: "Print the shell completion script for bash, zsh or fish.",
        arguments: [shell],
        usesWorkspace: false, isHidden: true
    ) { invocation in
        let layouts =
            (try? TemplateLibrary(overrideFolder: invocation.context.templatesFolder))?
            .layoutNames() ?? []
        let shell = invocation[Self.shell]
        let script: String
        switch shell {
        case "bash": script = Completions.bash(TroveCLI.root, layouts: layouts)
        case "zsh": script = Completions.zsh(TroveCLI.root, layouts: layouts)
        case "fish": script = Completions.fish(TroveCLI.root, layouts: layouts)
        default:
            throw invocation.usageError(
                "unknown shell '\(shell)' (use bash, zsh or fish)"
                    + suggestion(for: shell, among: ["bash", "zsh", "fish"]))
        }
        invocation.context.standardOutput.write(script)
        return .success
    }

    static let shell = Argument<String>("shell", help: "bash, zsh or fish.")

    static let man = Command(
        "man", abstract: "Print the trove(1) manual page (troff).",
        options: [markdown], usesWorkspace: false, isHidden: true
    ) { invocation in
        invocation.context.standardOutput.write(
            invocation[markdown]
                ? CommandReference.markdown(TroveCLI.root, manual: TroveCLI.manual)
                : ManPage.render(TroveCLI.root, version: TroveCLI.version, manual: TroveCLI.manual))
        return .success
    }

    static let markdown = Flag(
        "markdown", help: "The command reference in Markdown (docs/commands.md) instead.")
}
