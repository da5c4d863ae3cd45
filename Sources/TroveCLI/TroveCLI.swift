import Foundation
import TroveBase
import TroveCommandLine
import TroveKit
import TroveStore

/// The `trove` command line: parses, runs the command, and maps every outcome to streams
/// and an exit status (SPEC §1).
public enum TroveCLI {
    public static let version = "0.1.0"

    /// The command tree.
    public static let root = Command(
        "trove",
        abstract: "Content tools for Firebase + GeoFire location apps: treasures and posts.",
        discussion: """
            Every command works on one SQLite workspace (-w, $TROVE_WORKSPACE or
            ./trove.sqlite). Exit status: 0 success, 1 problems found, 2 usage error,
            3 unreadable input, 4 workspace problem. Layouts, starter files and the
            review sheet are built in; TROVE_TEMPLATES=DIR uses the files of DIR in
            place of the built-in ones of the same name.
            """,
        usesWorkspace: false,
        subcommands: commands)

    static let commands: [Command] = [
        InitCommand.command, ConfigCommand.command, ImportCommand.command,
        TreasuresCommand.command, ValidateCommand.command, GeohashCommand.command,
        NearCommand.command,
        ImagesCommand.command, ExportCommand.command, PublishCommand.command,
        ReviewCommand.command, StatusCommand.command, CheckCommand.command,
        TemplateCommand.command, StorageCommand.command, helpCommand,
        UtilityCommands.completions, UtilityCommands.man,
    ]

    static let helpCommand = Command(
        "help", abstract: "Show help for a command.",
        arguments: [helpWords],
        usesWorkspace: false
    ) { invocation in
        let words = invocation[helpWords]
        var command = root
        var path: [String] = []
        for word in words {
            guard let sub = command.subcommands.first(where: { $0.name == word }) else {
                let names = command.subcommands.map(\.name)
                throw invocation.usageError(
                    "unknown command '\(word)'" + suggestion(for: word, among: names))
            }
            command = sub
            path.append(word)
        }
        invocation.context.standardOutput.write(Help.text(for: command, path: path))
        return .success
    }

    static let helpWords = Argument<String>(
        "command", help: "The command, e.g. 'import treasures'."
    ).variadic(minimum: 0)

    /// Runs one command line (without the program name) and returns the exit status.
    public static func run(_ arguments: [String], context: Context) -> Int32 {
        defer {
            context.standardOutput.flush()
            context.standardError.flush()
        }
        if arguments.isEmpty {
            // Bare `trove`: the overview, as `git` and `swift` print theirs.
            context.standardOutput.write(Help.text(for: root, path: []))
            return ExitStatus.success.rawValue
        }
        let parsed: ParsedCommandLine
        do {
            parsed = try Parser(root: root, isPostID: postLookup(arguments, context))
                .parse(arguments)
        } catch {
            context.standardError.write(
                TerminalText.safe("error: \(error.message)\n\(error.usage)\n"))
            return ExitStatus.usage.rawValue
        }
        if parsed.wantsVersion {
            context.standardOutput.write(versionText)
            return ExitStatus.success.rawValue
        }
        if parsed.wantsHelp {
            context.standardOutput.write(Help.text(for: parsed.command, path: parsed.path))
            return ExitStatus.success.rawValue
        }
        guard let action = parsed.command.action else {
            // The parser refuses a command line that names no runnable command; help is
            // the honest answer should one slip through.
            context.standardOutput.write(Help.text(for: parsed.command, path: parsed.path))
            return ExitStatus.usage.rawValue
        }
        let invocation = Invocation(parsed: parsed, context: context)
        do {
            try invocation.checkOutputPaths()
            return try action(invocation).rawValue
        } catch let error as UsageError {
            context.standardError.write(
                TerminalText.safe("error: \(error.message)\n\(error.usage)\n"))
            return ExitStatus.usage.rawValue
        } catch {
            // SQLite failures that are workspace problems (locked, read-only, disk full,
            // a dropped table) read as such, whichever layer met them.
            let error =
                Workspace.classify(
                    any: error, path: invocation.workspace.path,
                    busyTimeout: invocation.workspace.busyTimeoutForMessages)
                ?? error
            context.standardError.write(TerminalText.safe("error: \(describe(error))\n"))
            return exitStatus(for: error).rawValue
        }
    }

    /// Whether a word is a post id in the workspace the command line names, for ids that
    /// start with `-` without a push id's shape. The workspace is opened only when the
    /// parser asks, and a missing or unusable one knows no ids.
    static func postLookup(_ arguments: [String], _ context: Context) -> (String) -> Bool {
        let path = WorkspaceLocation(scanning: arguments, context: context).path
        return { word in
            // Read-only and unmigrated: parsing a word never writes to the workspace.
            guard let workspace = try? Workspace(readingOnly: path),
                let statuses = try? Moderation(workspace: workspace).statuses([word])
            else { return false }
            return !statuses.isEmpty
        }
    }

    /// `trove --version`: the version and the C libraries it runs on.
    static var versionText: String {
        "trove \(version) (SQLite \(LibraryVersions.sqlite), libjpeg-turbo "
            + "\(LibraryVersions.jpeg), libpng \(LibraryVersions.png))\n"
    }

    /// The exit status an error maps to.
    static func exitStatus(for error: Error) -> ExitStatus {
        switch error {
        case is UsageError: return .usage
        case is WorkspaceError, is SettingError, is RecordDecodingError: return .workspace
        case is InputError, is TreasureFileError, is TreasureFileImport.Failure: return .input
        case let error as CommandFailure: return error.status
        default: return .problems
        }
    }

    static func describe(_ error: Error) -> String {
        String(describing: error)
    }
}

/// A command that stops with a message and a chosen exit status.
public struct CommandFailure: Error, CustomStringConvertible {
    public let message: String
    public let status: ExitStatus

    public init(_ message: String, status: ExitStatus = .problems) {
        self.message = message
        self.status = status
    }

    public var description: String { message }
}
