/// A command as declared once: its help, usage line, parsing and suggestions all come
/// from this declaration.
public struct Command: Sendable {
    public let name: String
    public let abstract: String
    public let discussion: String?
    public let arguments: [ArgumentDeclaration]
    public let options: [OptionDeclaration]
    /// Output formats this command accepts with `--format` (text is always first).
    public let formats: [OutputFormat]
    public let subcommands: [Command]
    /// Whether the command opens the workspace, so `-w` is listed in its help.
    public let usesWorkspace: Bool
    /// Whether help leaves it out (utility commands such as `completions` and `man`).
    public let isHidden: Bool
    package let action: (@Sendable (Invocation) throws -> ExitStatus)?

    public init(
        _ name: String, abstract: String, discussion: String? = nil,
        arguments: [any ArgumentDeclaring] = [], options: [any OptionDeclaring] = [],
        formats: [OutputFormat] = [.text],
        usesWorkspace: Bool = true, isHidden: Bool = false, subcommands: [Command] = [],
        run action: (@Sendable (Invocation) throws -> ExitStatus)? = nil
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.arguments = arguments.map(\.declaration)
        self.options = options.map(\.declaration)
        self.formats = formats
        self.usesWorkspace = usesWorkspace
        self.isHidden = isHidden
        self.subcommands = subcommands
        self.action = action
    }

    /// The options every command accepts besides its own.
    func allOptions(isRoot: Bool) -> [OptionDeclaration] {
        var all = options
        if usesWorkspace { all.append(CommonOptions.workspace.declaration) }
        if formats.count > 1 { all.append(CommonOptions.format(formats).declaration) }
        all.append(CommonOptions.quiet.declaration)
        all.append(CommonOptions.help.declaration)
        if isRoot { all.append(CommonOptions.version.declaration) }
        return all
    }
}

/// How data is printed on stdout.
public enum OutputFormat: String, Sendable {
    case text
    case json
    case csv
    /// An RFC 7946 FeatureCollection, for listings of points.
    case geojson
}

/// The exit statuses of SPEC §1.
public enum ExitStatus: Int32, Sendable {
    case success = 0
    /// The command ran but found problems.
    case problems = 1
    case usage = 2
    /// An input file could not be read or parsed; nothing was changed.
    case input = 3
    case workspace = 4
}
