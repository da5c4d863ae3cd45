import Foundation
import TroveBase

/// One run of a command: its parsed command line and its context.
public struct Invocation {
    public let parsed: ParsedCommandLine
    public let context: Context
    /// `--format`, else text.
    public let format: OutputFormat
    /// `--quiet`.
    public let isQuiet: Bool

    public init(parsed: ParsedCommandLine, context: Context) {
        self.parsed = parsed
        self.context = context
        // Read once: every line printed asks.
        format = parsed[CommonOptions.format(parsed.command.formats)] ?? .text
        isQuiet = parsed[CommonOptions.quiet]
    }

    // MARK: - Reading the command line

    /// Whether the flag was given.
    public subscript(flag: Flag) -> Bool { parsed[flag] }

    /// The option's value, or nil when it was not given.
    public subscript<Value>(option: Option<Value>) -> Value? { parsed[option] }

    /// The value of a required option (the parser refuses a command line without it).
    public subscript<Value>(option: RequiredOption<Value>) -> Value { parsed[option] }

    /// Every value of a repeated option, in the order given.
    public subscript<Value>(option: RepeatedOption<Value>) -> [Value] { parsed[option] }

    /// The value of a required argument.
    public subscript<Value>(argument: Argument<Value>) -> Value { parsed[argument] }

    /// The value of an optional argument, or nil when it was not given.
    public subscript<Value>(argument: OptionalArgument<Value>) -> Value? { parsed[argument] }

    /// Every value of a variadic argument, in the order given.
    public subscript<Value>(argument: VariadicArgument<Value>) -> [Value] { parsed[argument] }

    /// A usage error for this command, with its usage line.
    public func usageError(_ message: String) -> UsageError {
        UsageError(message: message, usage: Help.usageLine(parsed.command, path: parsed.path))
    }

    // MARK: - Output

    /// Whether data on stdout is shown as the text format shows it (`TerminalText`, the
    /// one rule): always for text, and for every format when stdout is a terminal, so that
    /// no `--format` lets a name or description drive the terminal. To a pipe or a file,
    /// JSON, CSV and GeoJSON stay exact (JSON escapes the same characters itself, as `\u`
    /// escapes, so its bytes are the same either way).
    public var escapesData: Bool {
        format == .text || context.standardOutput.isTerminal
    }

    /// A line of data on stdout (see `escapesData`).
    public func print(_ text: String) {
        write(text + "\n")
    }

    /// Data on stdout as it comes, escaped when `escapesData`.
    public func write(_ text: String) {
        context.standardOutput.write(escapesData ? TerminalText.safe(text) : text)
    }

    /// UTF-8 data on stdout as it comes, in whole characters, escaped when `escapesData`.
    public func write(bytes: UnsafeRawBufferPointer) {
        guard escapesData else { return context.standardOutput.write(bytes: bytes) }
        context.standardOutput.write(TerminalText.safe(String(decoding: bytes, as: UTF8.self)))
    }

    /// A message on stderr, unless `--quiet`.
    public func note(_ text: String) {
        if !isQuiet { context.standardError.write(TerminalText.safe(text) + "\n") }
    }

    /// A problem on stderr, also with `--quiet`.
    public func warn(_ text: String) {
        context.standardError.write(TerminalText.safe(text) + "\n")
    }

    /// Whether colour may be used on stdout.
    public var usesColour: Bool {
        context.standardOutput.isTerminal && !context.terminal.noColor
    }

    /// A progress bar on stderr when it is a terminal, otherwise silent.
    public func progress(_ label: String, total: Int) -> ProgressBar {
        ProgressBar(
            label: label, total: total, stream: context.standardError,
            enabled: context.standardError.isTerminal && !isQuiet)
    }

    // MARK: - Paths and the workspace

    /// `path` made absolute against the current directory.
    public func resolve(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        return URL(fileURLWithPath: context.currentDirectory).appendingPathComponent(path)
            .standardizedFileURL.path
    }
}

/// A one-line progress bar redrawn in place on a terminal.
public final class ProgressBar: @unchecked Sendable {
    let label: String
    let total: Int
    let stream: CommandOutput
    let enabled: Bool
    private var done = 0
    private var lastDrawn = -1
    private let lock = NSLock()

    init(label: String, total: Int, stream: CommandOutput, enabled: Bool) {
        self.label = label
        self.total = max(total, 1)
        self.stream = stream
        self.enabled = enabled
    }

    /// Counts `count` more items done.
    public func advance(by count: Int = 1) {
        set(done + count)
    }

    /// Sets how many items are done.
    public func set(_ done: Int) {
        lock.lock()
        defer { lock.unlock() }
        self.done = done
        guard enabled else { return }
        let percent = min(100, done * 100 / total)
        if percent == lastDrawn { return }
        lastDrawn = percent
        let filled = percent * 30 / 100
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: 30 - filled)
        stream.write("\r\(label) \(bar) \(percent)% (\(done)/\(total))")
    }

    /// Shows a running count, for work whose total is unknown.
    public func count(_ done: Int) {
        guard enabled else { return }
        lastDrawn = done
        stream.write("\r\(label) \(done)")
    }

    /// Clears the bar's line.
    public func finish() {
        guard enabled, lastDrawn >= 0 else { return }
        stream.write("\r\u{1B}[2K")
    }
}
