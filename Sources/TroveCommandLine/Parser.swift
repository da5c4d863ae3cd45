import TroveBase

/// A command line that does not fit the declaration; exit status 2.
public struct UsageError: Error, CustomStringConvertible, Equatable {
    public let message: String
    /// The usage line of the command it concerns.
    public let usage: String

    public var description: String { message }
}

/// A parsed command line: which command, with which options and arguments.
public struct ParsedCommandLine: Sendable {
    /// The path of command names below the root, e.g. `["import", "treasures"]`.
    public let path: [String]
    public let command: Command
    public let values: [String: [String]]
    public let flags: Set<String>
    public let arguments: [String: [String]]
    public let wantsHelp: Bool
    public let wantsVersion: Bool
}

/// Parses arguments against a command tree. Pure: no I/O, so tests call it directly.
public struct Parser {
    let root: Command
    /// Whether a word is the id of a post, for ids that start with `-` but have no push
    /// id's shape. Injected so parsing itself stays pure.
    let isPostID: (String) -> Bool

    public init(root: Command, isPostID: @escaping (String) -> Bool = { _ in false }) {
        self.root = root
        self.isPostID = isPostID
    }

    /// Parses `arguments` (without the program name).
    ///
    /// - Throws: `UsageError` naming the problem, with a suggestion for a typo.
    public func parse(_ arguments: [String]) throws(UsageError) -> ParsedCommandLine {
        var command = root
        var path: [String] = []
        var values: [String: [String]] = [:]
        var flags: Set<String> = []
        var positionals: [String] = []
        var index = 0
        var optionsEnded = false

        while index < arguments.count {
            let word = arguments[index]
            index += 1
            if !optionsEnded && word == "--" {
                optionsEnded = true
                continue
            }
            if !optionsEnded && word.hasPrefix("-") && word != "-" && !looksNumeric(word) {
                let option: OptionDeclaration
                let inlineValue: String?
                do {
                    (option, inlineValue) = try resolveOption(word, in: command, path: path)
                } catch {
                    // A declared option always wins; what is left may be a post id.
                    try postID(word, unresolved: error, command: command, path: path)
                    positionals.append(word)
                    continue
                }
                if option.isFlag {
                    if inlineValue != nil {
                        throw usageError(
                            "option '--\(option.long)' takes no value", command, path)
                    }
                    flags.insert(option.long)
                    continue
                }
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else if index < arguments.count {
                    value = arguments[index]
                    index += 1
                } else {
                    throw usageError(
                        "option '--\(option.long)' needs a value <\(option.valueName ?? "")>",
                        command, path)
                }
                if values[option.long] != nil && !option.repeatable {
                    throw usageError("option '--\(option.long)' given twice", command, path)
                }
                values[option.long, default: []].append(value)
                continue
            }
            // A word before any positional may name a subcommand.
            if positionals.isEmpty && !command.subcommands.isEmpty,
                let sub = try subcommand(word, of: command, path: path)
            {
                command = sub
                path.append(word)
                continue
            }
            positionals.append(word)
        }

        let wantsHelp = flags.contains(CommonOptions.help.declaration.long)
        let wantsVersion = flags.contains(CommonOptions.version.declaration.long)
        if wantsHelp || wantsVersion {
            return ParsedCommandLine(
                path: path, command: command, values: values, flags: flags, arguments: [:],
                wantsHelp: wantsHelp, wantsVersion: wantsVersion)
        }
        if command.action == nil {
            let names = command.subcommands.map(\.name).joined(separator: ", ")
            throw usageError("missing command (one of: \(names))", command, path)
        }
        // `--format` is taken on every command line, and checked against this command's.
        let format = CommonOptions.format(command.formats).declaration
        if let word = values[format.long]?.last, let problem = format.problem(word) {
            throw usageError(problem, command, path)
        }
        let bound = try bind(positionals, to: command, path: path)
        try check(arguments: bound, options: values, of: command, path: path)
        return ParsedCommandLine(
            path: path, command: command, values: values, flags: flags, arguments: bound,
            wantsHelp: false, wantsVersion: false)
    }

    /// Returns when `word`, which names no option of `command`, may be a post id that
    /// starts with '-'; else throws `error`, with where such an id goes.
    private func postID(
        _ word: String, unresolved error: UsageError, command: Command, path: [String]
    ) throws(UsageError) {
        guard command.arguments.contains(where: \.takesPostIDs) else { throw error }
        if !word.hasPrefix("--") && (Self.hasPushIDShape(word) || isPostID(word)) { return }
        if word.hasPrefix("--") { throw error }
        let example = (["trove"] + path + ["--", word]).joined(separator: " ")
        throw UsageError(
            message: error.message
                + "; a post id starting with '-' goes after '--' (\(example))",
            usage: error.usage)
    }

    /// The subcommand of `command` that `word` names; nil when it names none and may be a
    /// positional argument.
    ///
    /// - Throws: `UsageError` when `command` takes no arguments of its own.
    private func subcommand(_ word: String, of command: Command, path: [String])
        throws(UsageError) -> Command?
    {
        if let sub = command.subcommands.first(where: { $0.name == word }) { return sub }
        // A command that takes no arguments of its own (`trove review`) can only
        // mean a subcommand here, so a typo gets a suggestion.
        if command.action == nil || command.arguments.isEmpty {
            let names = command.subcommands.map(\.name)
            throw usageError(
                "unknown command '\(word)'" + suggestion(for: word, among: names),
                command, path)
        }
        return nil
    }

    // MARK: - Options

    private func resolveOption(_ word: String, in command: Command, path: [String])
        throws(UsageError) -> (OptionDeclaration, String?)
    {
        // Global options may come before the command name (`trove -w ws.sqlite status`).
        let options = command.allOptions(isRoot: path.isEmpty) + Self.globalOptions
        if word.hasPrefix("--") {
            var name = String(word.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if let option = options.first(where: { $0.long == name }) {
                return (option, inlineValue)
            }
            let names = options.map { "--\($0.long)" }
            throw usageError(
                "unknown option '--\(name)'" + suggestion(for: "--\(name)", among: names),
                command, path)
        }
        let letters = Array(word.dropFirst())
        if letters.count == 1, let option = options.first(where: { $0.short == letters[0] }) {
            return (option, nil)
        }
        let names = options.compactMap { $0.short.map { "-\($0)" } }
        throw usageError(
            "unknown option '\(word)'" + suggestion(for: word, among: names), command, path)
    }

    /// Options every command accepts, also before the command name.
    static let globalOptions: [OptionDeclaration] = [
        CommonOptions.workspace.declaration, CommonOptions.quiet.declaration,
        CommonOptions.format([.text, .json, .csv]).declaration,
    ]

    /// Whether a word looks like a Firebase push id (`-Mq2river`, `-NxY3…`): a dash, then an
    /// upper-case letter or digit (the high digits of the push id's timestamp), then at
    /// least two more characters of the push id alphabet. No declared short option is an
    /// upper-case letter, so such a word cannot be mistaken for one.
    /// An `@VERSION` after the id (`-Mq2river@1a2b3c4d5e6f`) is allowed.
    static func hasPushIDShape(_ word: String) -> Bool {
        var characters = Array(word.utf8)
        let hex = { (byte: UInt8) in (48...57).contains(byte) || (97...102).contains(byte) }
        if let at = characters.lastIndex(of: UInt8(ascii: "@")), characters.count - at == 13,
            characters[(at + 1)...].allSatisfy(hex)
        {
            characters.removeSubrange(at...)
        }
        guard characters.count >= 4, characters[0] == UInt8(ascii: "-") else { return false }
        let second = characters[1]
        guard (65...90).contains(second) || (48...57).contains(second) else { return false }
        return characters.dropFirst().allSatisfy { byte in
            (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }

    /// Negative numbers such as `-74.0060` are arguments, not options.
    private func looksNumeric(_ word: String) -> Bool {
        word.count > 1 && Double(word) != nil
    }

    // MARK: - Arguments

    private func bind(_ positionals: [String], to command: Command, path: [String])
        throws(UsageError) -> [String: [String]]
    {
        var bound: [String: [String]] = [:]
        var remaining = positionals[...]
        for (offset, argument) in command.arguments.enumerated() {
            switch argument.arity {
            case .required:
                guard let value = remaining.popFirst() else {
                    throw usageError("missing argument <\(argument.name)>", command, path)
                }
                bound[argument.name] = [value]
            case .optional:
                if let value = remaining.popFirst() { bound[argument.name] = [value] }
            case .variadic(let minimum):
                let reserved = command.arguments[(offset + 1)...].filter {
                    if case .required = $0.arity { return true }
                    return false
                }.count
                let take = max(0, remaining.count - reserved)
                let values = Array(remaining.prefix(take))
                remaining = remaining.dropFirst(take)
                if values.count < minimum {
                    throw usageError("missing argument <\(argument.name)>", command, path)
                }
                bound[argument.name] = values
            }
        }
        if let extra = remaining.first {
            throw usageError("unexpected argument '\(extra)'", command, path)
        }
        return bound
    }

    // MARK: - Values

    /// Refuses the first word its declaration does not convert: the arguments in order,
    /// then the command's own options in the order declared; then the first required
    /// option not given.
    private func check(
        arguments: [String: [String]], options: [String: [String]], of command: Command,
        path: [String]
    ) throws(UsageError) {
        for argument in command.arguments {
            for word in arguments[argument.name] ?? [] {
                if let problem = argument.problem(word) {
                    throw usageError(problem, command, path)
                }
            }
        }
        for option in command.options where !option.isFlag {
            for word in options[option.long] ?? [] {
                if let problem = option.problem(word) {
                    throw usageError(problem, command, path)
                }
            }
        }
        for option in command.options where options[option.long] == nil {
            if let missing = option.missing { throw usageError(missing, command, path) }
        }
    }

    private func usageError(_ message: String, _ command: Command, _ path: [String])
        -> UsageError
    {
        UsageError(message: message, usage: Help.usageLine(command, path: path))
    }
}

/// ` (did you mean 'X'?)` for the closest candidate, or nothing when none is close.
package func suggestion(for word: String, among candidates: [String]) -> String {
    let scored = candidates.map { ($0, editDistance(word.lowercased(), $0.lowercased())) }
    guard let best = scored.min(by: { $0.1 < $1.1 }) else { return "" }
    let allowed = max(2, word.count / 3)
    if best.1 <= allowed || best.0.hasPrefix(word) && word.count >= 3 {
        return " (did you mean '\(best.0)'?)"
    }
    return ""
}
