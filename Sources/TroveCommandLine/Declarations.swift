import TroveBase

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

/// A positional argument, as help, completions and the parser see it; a command declares
/// it typed (`Argument`, `OptionalArgument`, `VariadicArgument`), which builds this.
public struct ArgumentDeclaration: Sendable {
    public enum Arity: Sendable {
        case required
        case optional
        /// One or more (`minimum` 1) or any number (`minimum` 0).
        case variadic(minimum: Int)
    }

    public let name: String
    public let help: String
    public internal(set) var arity: Arity
    /// Whether values are post ids, which may start with `-` (Firebase push ids): a word
    /// that is no declared option but is a post id, or has a push id's shape, is taken as
    /// this argument wherever it stands on the line.
    public let takesPostIDs: Bool
    /// Whether values are files the command reads or writes (`-` is standard input).
    public let role: PathRole
    /// What the shells complete for it: files unless said otherwise.
    public let completion: Completion
    /// What is wrong with a word as this argument's value, or nil when nothing is: the
    /// parser refuses the command line with it.
    let problem: @Sendable (String) -> String?

    /// What a shell offers for a value.
    public enum Completion: Sendable, Equatable {
        /// File names.
        case files
        /// Exactly these words (setting names).
        case words([String])
        /// Nothing: a value to type (a number, a name), never a file.
        case nothing
    }

    init(
        _ name: String, help: String, arity: Arity = .required, takesPostIDs: Bool = false,
        completion: Completion? = nil, role: PathRole = .none,
        problem: @escaping @Sendable (String) -> String? = { _ in nil }
    ) {
        self.name = name
        self.help = help
        self.arity = arity
        self.takesPostIDs = takesPostIDs
        self.completion = completion ?? (takesPostIDs ? .nothing : .files)
        self.role = role
        self.problem = problem
    }

    var usage: String {
        switch arity {
        case .required: return "<\(name)>"
        case .optional: return "[<\(name)>]"
        case .variadic(let minimum): return minimum > 0 ? "<\(name)>..." : "[<\(name)>...]"
        }
    }
}

/// A named option, a flag (no value) or an option that takes a value, as help,
/// completions and the parser see it; a command declares it typed (`Flag`, `Option`,
/// `RepeatedOption`), which builds this.
public struct OptionDeclaration: Sendable {
    public let long: String
    public let short: Character?
    /// The value's name in help (`<path>`); nil for a flag.
    public let valueName: String?
    public let help: String
    /// Whether it may be given more than once.
    public internal(set) var repeatable: Bool
    /// The usage error when a required option is not given; nil when it may be left out.
    public internal(set) var missing: String?
    /// Whether values are files the command reads or writes.
    public let role: PathRole
    /// Whether the flag lets the command replace output files trove did not write
    /// (`--force`; `OutputPaths`).
    public let replacesOutputs: Bool
    /// What is wrong with a word as this option's value, or nil when nothing is: the
    /// parser refuses the command line with it.
    let problem: @Sendable (String) -> String?

    init(
        _ long: String, short: Character? = nil, value valueName: String? = nil, help: String,
        repeatable: Bool = false, role: PathRole = .none, replacesOutputs: Bool = false,
        problem: @escaping @Sendable (String) -> String? = { _ in nil }
    ) {
        self.long = long
        self.short = short
        self.valueName = valueName
        self.help = help
        self.repeatable = repeatable
        self.role = role
        self.replacesOutputs = replacesOutputs
        self.problem = problem
    }

    package var isFlag: Bool { valueName == nil }

    var usage: String {
        let value = valueName.map { " <\($0)>" } ?? ""
        return "--\(long)\(value)"
    }

    var label: String {
        let short = self.short.map { "-\($0), " } ?? ""
        return short + usage
    }
}

extension Command {
    /// Every option this command accepts: its own, the common ones, and the global ones
    /// the parser takes anywhere on the line.
    package func declaredOptions(isRoot: Bool) -> [OptionDeclaration] {
        var all = allOptions(isRoot: isRoot)
        for global in Parser.globalOptions where !all.contains(where: { $0.long == global.long }) {
            all.append(global)
        }
        return all
    }
}
