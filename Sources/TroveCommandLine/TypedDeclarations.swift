// A command declares each of its values once, typed:
//
//     static let layout = Option<String>("layout", value: "name|path", help: "…")
//     static let jobs = Option<Int>("jobs", value: "n", help: "…", expected: "…") { … }
//     static let force = Flag("force", help: "…")
//     static let files = Argument<String>("file", help: "…").variadic(minimum: 1)
//
// and reads it with that declaration, `invocation[Self.layout]`: there is no reading by
// name, so a value can only be read as it was declared. The untyped declaration each one
// builds (`OptionDeclaration`, `ArgumentDeclaration`) is what help, the man page, the
// completions and the parser see; the parser refuses a value the conversion rejects, with
// the declaration's message, before the command runs.

// MARK: - Values

/// Why a word on the command line is no value of a declaration: the whole message, which
/// reads well after `error: ` (`invalid value 'x' for --jobs: expected a whole number`).
public struct InvalidValue: Error, Sendable, Equatable {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }
}

/// A type a word on the command line converts to.
public protocol CommandLineValue: Sendable {
    /// The value a word stands for, or nil when it stands for none.
    init?(commandLine word: String)
    /// What a valid word is, after "expected " in the error: `a whole number`.
    static var expectation: String { get }
}

extension String: CommandLineValue {
    public init?(commandLine word: String) { self = word }
    public static var expectation: String { "text" }
}

extension Int: CommandLineValue {
    public init?(commandLine word: String) { self.init(word) }
    public static var expectation: String { "a whole number" }
}

extension Int64: CommandLineValue {
    public init?(commandLine word: String) { self.init(word) }
    public static var expectation: String { "a whole number" }
}

extension Double: CommandLineValue {
    public init?(commandLine word: String) { self.init(word) }
    public static var expectation: String { "a number" }
}

/// An enumeration is given by its raw values: `--from csv`.
extension CommandLineValue where Self: RawRepresentable & CaseIterable, RawValue == String {
    public init?(commandLine word: String) { self.init(rawValue: word) }

    /// `csv or geojson`, `text, json or csv`.
    public static var expectation: String {
        let names = allCases.map(\.rawValue)
        guard let last = names.last, names.count > 1 else { return names.first ?? "" }
        return names.dropLast().joined(separator: ", ") + " or " + last
    }
}

/// A conversion from a word to a value; a failure is the whole error message.
typealias Conversion<Value> = @Sendable (String) -> Result<Value, InvalidValue>

/// The conversion of `parse`, whose nil becomes "invalid value 'WORD' for LABEL: expected
/// EXPECTED".
private func conversion<Value>(
    label: String, expected: String, _ parse: @escaping @Sendable (String) -> Value?
) -> Conversion<Value> {
    { word in
        guard let value = parse(word) else {
            return .failure(
                InvalidValue("invalid value '\(word)' for \(label): expected \(expected)"))
        }
        return .success(value)
    }
}

/// The conversion of a closure that throws its own message.
private func conversion<Value>(
    _ convert: @escaping @Sendable (String) throws(InvalidValue) -> Value
) -> Conversion<Value> {
    { word in Result { () throws(InvalidValue) in try convert(word) } }
}

/// The message the parser refuses a word with, from a conversion.
private func problem<Value>(_ convert: @escaping Conversion<Value>)
    -> @Sendable (String) ->
    String?
{
    { word in
        if case .failure(let invalid) = convert(word) { return invalid.message }
        return nil
    }
}

// MARK: - Options

/// A typed declaration of a named option: what a command's `options:` list takes.
public protocol OptionDeclaring: Sendable {
    /// The untyped declaration help, completions and the parser read.
    var declaration: OptionDeclaration { get }
}

/// A flag: `--force`. Reads as `Bool`.
public struct Flag: OptionDeclaring {
    public let declaration: OptionDeclaration

    /// - Parameter replacesOutputs: whether the flag lets the command replace an output file
    ///   trove did not write (`--force` of a command that writes files).
    public init(
        _ long: String, short: Character? = nil, help: String, replacesOutputs: Bool = false
    ) {
        declaration = OptionDeclaration(
            long, short: short, help: help, replacesOutputs: replacesOutputs)
    }
}

/// An option that takes one value: `--layout NAME`. Reads as `Value?`, nil when it is not
/// given; a word the conversion rejects is a usage error naming the option and the word.
public struct Option<Value>: OptionDeclaring {
    public let declaration: OptionDeclaration
    let convert: Conversion<Value>

    /// An option whose value converts with `convert`, which throws the whole message.
    public init(
        _ long: String, short: Character? = nil, value valueName: String, help: String,
        role: PathRole = .none,
        convert: @escaping @Sendable (String) throws(InvalidValue) -> Value
    ) {
        self.init(
            long, short: short, value: valueName, help: help, role: role,
            conversion: conversion(convert))
    }

    /// An option whose value converts with `parse`; nil is "invalid value 'WORD' for
    /// --LONG: expected EXPECTED".
    public init(
        _ long: String, short: Character? = nil, value valueName: String, help: String,
        role: PathRole = .none, expected: String,
        parse: @escaping @Sendable (String) -> Value?
    ) {
        self.init(
            long, short: short, value: valueName, help: help, role: role,
            conversion: conversion(label: "--\(long)", expected: expected, parse))
    }

    init(
        _ long: String, short: Character?, value valueName: String, help: String,
        role: PathRole, conversion: @escaping Conversion<Value>
    ) {
        declaration = OptionDeclaration(
            long, short: short, value: valueName, help: help, role: role,
            problem: problem(conversion))
        convert = conversion
    }

    /// The same option, which may be given more than once.
    public var repeated: RepeatedOption<Value> {
        RepeatedOption(self)
    }

    /// The same option, which must be given: without it the parser refuses the command line
    /// with `message`, by default "missing option --LONG <VALUE>".
    public func required(missing message: String? = nil) -> RequiredOption<Value> {
        RequiredOption(self, missing: message)
    }
}

/// An option that must be given: `--layout NAME` of `export`. Reads as `Value`
/// (`Option.required`).
public struct RequiredOption<Value>: OptionDeclaring {
    public let declaration: OptionDeclaration
    let convert: Conversion<Value>

    init(_ single: Option<Value>, missing message: String?) {
        var declaration = single.declaration
        declaration.missing =
            message ?? "missing option --\(declaration.long) <\(declaration.valueName ?? "value")>"
        self.declaration = declaration
        convert = single.convert
    }
}

extension Option where Value: CommandLineValue {
    /// An option of a `CommandLineValue` type: `Option<String>`, `Option<Int>`.
    public init(
        _ long: String, short: Character? = nil, value valueName: String, help: String,
        role: PathRole = .none
    ) {
        self.init(
            long, short: short, value: valueName, help: help, role: role,
            expected: Value.expectation, parse: Value.init(commandLine:))
    }
}

/// An option that may be given more than once: `--rendition A --rendition B`. Reads as
/// `[Value]` in the order given (`Option.repeated`).
public struct RepeatedOption<Value>: OptionDeclaring {
    public let declaration: OptionDeclaration
    let convert: Conversion<Value>

    init(_ single: Option<Value>) {
        var declaration = single.declaration
        declaration.repeatable = true
        self.declaration = declaration
        convert = single.convert
    }
}

// MARK: - Arguments

/// A typed declaration of a positional argument: what a command's `arguments:` list takes.
public protocol ArgumentDeclaring: Sendable {
    /// The untyped declaration help, completions and the parser read.
    var declaration: ArgumentDeclaration { get }
}

/// A required positional argument: `<file>`. Reads as `Value`; the parser refuses a
/// command line without it ("missing argument <file>") or with a word the conversion
/// rejects.
public struct Argument<Value>: ArgumentDeclaring {
    public let declaration: ArgumentDeclaration
    let convert: Conversion<Value>

    /// An argument whose value converts with `convert`, which throws the whole message.
    public init(
        _ name: String, help: String, takesPostIDs: Bool = false,
        completion: ArgumentDeclaration.Completion? = nil, role: PathRole = .none,
        convert: @escaping @Sendable (String) throws(InvalidValue) -> Value
    ) {
        self.init(
            name, help: help, takesPostIDs: takesPostIDs, completion: completion, role: role,
            conversion: conversion(convert))
    }

    /// An argument whose value converts with `parse`; nil is "invalid value 'WORD' for
    /// <NAME>: expected EXPECTED".
    public init(
        _ name: String, help: String, takesPostIDs: Bool = false,
        completion: ArgumentDeclaration.Completion? = nil, role: PathRole = .none,
        expected: String, parse: @escaping @Sendable (String) -> Value?
    ) {
        self.init(
            name, help: help, takesPostIDs: takesPostIDs, completion: completion, role: role,
            conversion: conversion(label: "<\(name)>", expected: expected, parse))
    }

    init(
        _ name: String, help: String, takesPostIDs: Bool,
        completion: ArgumentDeclaration.Completion?, role: PathRole,
        conversion: @escaping Conversion<Value>
    ) {
        declaration = ArgumentDeclaration(
            name, help: help, takesPostIDs: takesPostIDs, completion: completion, role: role,
            problem: problem(conversion))
        convert = conversion
    }

    /// The same argument, which may be left out: `[<name>]`.
    public var optional: OptionalArgument<Value> {
        OptionalArgument(self)
    }

    /// The same argument, given `minimum` or more times: `<file>...` (or `[<file>...]`
    /// for 0).
    public func variadic(minimum: Int) -> VariadicArgument<Value> {
        VariadicArgument(self, minimum: minimum)
    }
}

extension Argument where Value: CommandLineValue {
    /// An argument of a `CommandLineValue` type: `Argument<String>`.
    public init(
        _ name: String, help: String, takesPostIDs: Bool = false,
        completion: ArgumentDeclaration.Completion? = nil, role: PathRole = .none
    ) {
        self.init(
            name, help: help, takesPostIDs: takesPostIDs, completion: completion, role: role,
            expected: Value.expectation, parse: Value.init(commandLine:))
    }
}

/// A positional argument that may be left out: `[<name>]`. Reads as `Value?`
/// (`Argument.optional`).
public struct OptionalArgument<Value>: ArgumentDeclaring {
    public let declaration: ArgumentDeclaration
    let convert: Conversion<Value>

    init(_ required: Argument<Value>) {
        var declaration = required.declaration
        declaration.arity = .optional
        self.declaration = declaration
        convert = required.convert
    }
}

/// A positional argument given any number of times from a minimum: `<file>...`. Reads as
/// `[Value]` (`Argument.variadic(minimum:)`).
public struct VariadicArgument<Value>: ArgumentDeclaring {
    public let declaration: ArgumentDeclaration
    let convert: Conversion<Value>

    init(_ single: Argument<Value>, minimum: Int) {
        var declaration = single.declaration
        declaration.arity = .variadic(minimum: minimum)
        self.declaration = declaration
        convert = single.convert
    }
}

// MARK: - The options every command has

/// The options every command accepts besides its own (`Command.allOptions`).
package enum CommonOptions {
    package static let workspace = Option<String>(
        "workspace", short: "w", value: "path",
        help: "The workspace file (default: $TROVE_WORKSPACE, else ./trove.sqlite).")
    package static let quiet = Flag("quiet", short: "q", help: "Print only data and errors.")
    package static let help = Flag("help", short: "h", help: "Show help information.")
    package static let version = Flag("version", help: "Show the version.")

    /// `--format`, for a command that prints these formats: another word is refused,
    /// with the closest format's name.
    package static func format(_ formats: [OutputFormat]) -> Option<OutputFormat> {
        let names = formats.map(\.rawValue)
        return Option(
            "format", value: "format",
            help: "Output format: \(names.joined(separator: ", "))."
        ) { (word: String) throws(InvalidValue) -> OutputFormat in
            guard let format = OutputFormat(rawValue: word), formats.contains(format) else {
                throw InvalidValue(
                    "unknown format '\(word)' (use \(names.joined(separator: ", ")))"
                        + suggestion(for: word, among: names))
            }
            return format
        }
    }
}

// MARK: - Reading

extension ParsedCommandLine {
    /// Whether `--LONG` was given.
    public subscript(flag: Flag) -> Bool {
        flags.contains(checked(flag.declaration).long)
    }

    /// The value of `--LONG`, converted, or nil when it was not given.
    public subscript<Value>(option: Option<Value>) -> Value? {
        converted(given(option.declaration).last, option.convert, option.declaration.long)
    }

    /// The value of a required `--LONG`, converted.
    public subscript<Value>(option: RequiredOption<Value>) -> Value {
        let long = option.declaration.long
        guard let value = converted(given(option.declaration).last, option.convert, long) else {
            preconditionFailure("the parser refuses a command line without --\(long)")
        }
        return value
    }

    /// Every value of `--LONG`, converted, in the order given.
    public subscript<Value>(option: RepeatedOption<Value>) -> [Value] {
        given(option.declaration).compactMap {
            converted($0, option.convert, option.declaration.long)
        }
    }

    /// The value of a required argument, converted.
    public subscript<Value>(argument: Argument<Value>) -> Value {
        let name = argument.declaration.name
        guard let value = converted(given(argument.declaration).first, argument.convert, name)
        else {
            preconditionFailure("the parser binds a value to every required argument <\(name)>")
        }
        return value
    }

    /// The value of an optional argument, converted, or nil when it was not given.
    public subscript<Value>(argument: OptionalArgument<Value>) -> Value? {
        converted(
            given(argument.declaration).first, argument.convert, argument.declaration.name)
    }

    /// Every value of a variadic argument, converted, in the order given.
    public subscript<Value>(argument: VariadicArgument<Value>) -> [Value] {
        given(argument.declaration).compactMap {
            converted($0, argument.convert, argument.declaration.name)
        }
    }

    /// The words given for an option this command declares.
    package func given(_ option: OptionDeclaration) -> [String] {
        values[checked(option).long] ?? []
    }

    /// The words bound to an argument this command declares.
    package func given(_ argument: ArgumentDeclaration) -> [String] {
        precondition(
            command.arguments.contains { $0.name == argument.name },
            "\(commandName) declares no argument <\(argument.name)>")
        return arguments[argument.name] ?? []
    }

    /// `option`, once it is known to be one this command accepts: reading another
    /// command's declaration is a mistake in trove.
    private func checked(_ option: OptionDeclaration) -> OptionDeclaration {
        precondition(
            command.declaredOptions(isRoot: path.isEmpty).contains {
                $0.long == option.long && $0.isFlag == option.isFlag
            }, "\(commandName) declares no option --\(option.long)")
        return option
    }

    /// A word converted; the parser checked it with the same declaration.
    private func converted<Value>(
        _ word: String?, _ convert: Conversion<Value>, _ name: String
    ) -> Value? {
        guard let word else { return nil }
        switch convert(word) {
        case .success(let value): return value
        case .failure(let invalid):
            preconditionFailure(
                "\(commandName) read \(name) with a declaration it was not parsed with: "
                    + invalid.message)
        }
    }

    private var commandName: String { (["trove"] + path).joined(separator: " ") }
}
