import TroveKit

/// What a path on the command line is to the command: declared once, so that every
/// command's outputs are checked against its inputs and the workspace before it runs
/// (`OutputPaths`).
public enum PathRole: Sendable {
    case none
    /// A file or folder the command reads.
    case input
    /// A file the command writes, of this kind; `beside` names the files written next to
    /// it (the Storage plan beside an export), given the parsed command line.
    case output(
        OutputKind,
        beside: @Sendable (String, ParsedCommandLine) -> [(String, OutputKind)] = { _, _ in [] })
}

/// A positional argument.
public struct ArgumentDeclaration: Sendable {
    public enum Arity: Sendable {
        case required
        case optional
        /// One or more (`minimum` 1) or any number (`minimum` 0).
        case variadic(minimum: Int)
    }

    public let name: String
    public let help: String
    public let arity: Arity
    /// Whether values are post ids, which may start with `-` (Firebase push ids): a word
    /// that is no declared option but is a post id, or has a push id's shape, is taken as
    /// this argument wherever it stands on the line.
    public let takesPostIDs: Bool
    /// Whether values are files the command reads or writes (`-` is standard input).
    public let role: PathRole
    /// What the shells complete for it: files unless said otherwise.
    public let completion: Completion

    /// What a shell offers for a value.
    public enum Completion: Sendable, Equatable {
        /// File names.
        case files
        /// Exactly these words (setting names).
        case words([String])
        /// Nothing: a value to type (a number, a name), never a file.
        case nothing
    }

    public init(
        _ name: String, help: String, arity: Arity = .required, takesPostIDs: Bool = false,
        completion: Completion? = nil, role: PathRole = .none
    ) {
        self.name = name
        self.help = help
        self.arity = arity
        self.takesPostIDs = takesPostIDs
        self.completion = completion ?? (takesPostIDs ? .nothing : .files)
        self.role = role
    }

    var usage: String {
        switch arity {
        case .required: return "<\(name)>"
        case .optional: return "[<\(name)>]"
        case .variadic(let minimum): return minimum > 0 ? "<\(name)>..." : "[<\(name)>...]"
        }
    }
}

/// A named option: a flag (no value) or an option that takes a value.
public struct OptionDeclaration: Sendable {
    public let long: String
    public let short: Character?
    /// The value's name in help (`<path>`); nil for a flag.
    public let valueName: String?
    public let help: String
    /// Whether it may be given more than once.
    public let repeatable: Bool
    /// Whether values are files the command reads or writes.
    public let role: PathRole

    public init(
        _ long: String, short: Character? = nil, value valueName: String? = nil, help: String,
        repeatable: Bool = false, role: PathRole = .none
    ) {
        self.long = long
        self.short = short
        self.valueName = valueName
        self.help = help
        self.repeatable = repeatable
        self.role = role
    }

    var isFlag: Bool { valueName == nil }

    var usage: String {
        let value = valueName.map { " <\($0)>" } ?? ""
        return "--\(long)\(value)"
    }

    var label: String {
        let short = self.short.map { "-\($0), " } ?? ""
        return short + usage
    }

    static let workspace = OptionDeclaration(
        "workspace", short: "w", value: "path",
        help: "The workspace file (default: $TROVE_WORKSPACE, else ./trove.sqlite).")
    static let quiet = OptionDeclaration("quiet", short: "q", help: "Print only data and errors.")
    static let help = OptionDeclaration("help", short: "h", help: "Show help information.")
    static let version = OptionDeclaration("version", help: "Show the version.")
    static func format(_ formats: [OutputFormat]) -> OptionDeclaration {
        OptionDeclaration(
            "format", value: "format",
            help: "Output format: \(formats.map(\.rawValue).joined(separator: ", ")).")
    }
}

extension Command {
    /// Every option this command accepts: its own, the common ones, and the global ones
    /// the parser takes anywhere on the line.
    func declaredOptions(isRoot: Bool) -> [OptionDeclaration] {
        var all = allOptions(isRoot: isRoot)
        for global in Parser.globalOptions where !all.contains(where: { $0.long == global.long }) {
            all.append(global)
        }
        return all
    }
}
