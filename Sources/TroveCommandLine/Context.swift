import Foundation
import TroveBase

/// Where a command's text goes: the real stdout/stderr, or a buffer in tests.
public final class CommandOutput: @unchecked Sendable {
    package let fileDescriptor: Int32?
    private var buffer: [UInt8] = []
    private let lock = NSLock()
    /// Whether the stream is a terminal (progress bars and colour only then).
    public let isTerminal: Bool

    /// A stream writing to a file descriptor, buffered.
    public init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
        self.isTerminal = isatty(fileDescriptor) == 1
    }

    /// A stream collecting text in memory, for tests.
    public init(capturingAsTerminal isTerminal: Bool = false) {
        self.fileDescriptor = nil
        self.isTerminal = isTerminal
    }

    /// The terminal window's size in character cells, when the stream is a terminal that
    /// can tell (`TIOCGWINSZ`).
    public var windowSize: (columns: Int, rows: Int)? {
        guard isTerminal, let fileDescriptor else { return nil }
        var size = winsize()
        guard ioctl(fileDescriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0,
            size.ws_row > 0
        else { return nil }
        return (Int(size.ws_col), Int(size.ws_row))
    }

    public func write(_ text: String) {
        lock.lock()
        defer { lock.unlock() }
        buffer.append(contentsOf: text.utf8)
        if let fileDescriptor, buffer.count >= 1 << 16 || isTerminal {
            Self.writeAll(buffer, to: fileDescriptor)
            buffer.removeAll(keepingCapacity: true)
        }
    }

    /// Writes UTF-8 bytes; a large piece goes to the descriptor as it is, after what is
    /// buffered, rather than through the buffer.
    public func write(bytes: ArraySlice<UInt8>) {
        bytes.withUnsafeBytes { write(bytes: $0) }
    }

    /// `write(bytes:)` for bytes in place.
    public func write(bytes: UnsafeRawBufferPointer) {
        lock.lock()
        defer { lock.unlock() }
        if let fileDescriptor, bytes.count >= 1 << 16 {
            if !buffer.isEmpty {
                Self.writeAll(buffer, to: fileDescriptor)
                buffer.removeAll(keepingCapacity: true)
            }
            _ = FileIO.writeAll(fileDescriptor, bytes)
            return
        }
        buffer.append(contentsOf: bytes)
        if let fileDescriptor, buffer.count >= 1 << 16 || isTerminal {
            Self.writeAll(buffer, to: fileDescriptor)
            buffer.removeAll(keepingCapacity: true)
        }
    }

    /// Writes buffered bytes out (a no-op for a capturing stream).
    public func flush() {
        lock.lock()
        defer { lock.unlock() }
        if let fileDescriptor, !buffer.isEmpty {
            Self.writeAll(buffer, to: fileDescriptor)
            buffer.removeAll(keepingCapacity: true)
        }
    }

    /// Everything written so far, for a capturing stream.
    public var text: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: buffer, as: UTF8.self)
    }

    private static func writeAll(_ bytes: [UInt8], to fileDescriptor: Int32) {
        // A closed pipe: nothing more to say.
        _ = bytes.withUnsafeBytes { FileIO.writeAll(fileDescriptor, $0) }
    }
}

/// What the environment says of the terminal, for the window size where it cannot be
/// measured and for colour: `COLUMNS`, `LINES`, `TERM`, `COLORTERM` and `NO_COLOR`.
public struct TerminalEnvironment: Sendable, Equatable {
    /// `COLUMNS` and `LINES` when they are positive numbers.
    public let columns: Int?
    public let lines: Int?
    /// Whether `NO_COLOR` is set (to anything).
    public let noColor: Bool
    /// Whether `TERM` names a terminal that draws colour (set, and not `dumb`).
    public let termHasColour: Bool
    /// Whether `COLORTERM` says the terminal draws 24-bit colour.
    public let trueColour: Bool

    public init(_ environment: [String: String]) {
        func positive(_ name: String) -> Int? {
            environment[name].flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil }
        }
        columns = positive("COLUMNS")
        lines = positive("LINES")
        noColor = environment["NO_COLOR"] != nil
        let term = environment["TERM"] ?? ""
        termHasColour = !term.isEmpty && term != "dumb"
        let colourTerm = (environment["COLORTERM"] ?? "").lowercased()
        trueColour = colourTerm == "truecolor" || colourTerm == "24bit"
    }
}

/// What a command may touch of the outside world, injected so tests run in-process.
public struct Context: @unchecked Sendable {
    public var standardOutput: CommandOutput
    public var standardError: CommandOutput
    public var environment: [String: String] {
        didSet { terminal = TerminalEnvironment(environment) }
    }
    /// What the environment says of the terminal, read once.
    public private(set) var terminal: TerminalEnvironment
    public var currentDirectory: String
    /// Reads all of standard input.
    public var readStandardInput: @Sendable () -> Data
    /// Whether standard input is a terminal (interactive review).
    public var standardInputIsTerminal: Bool
    /// Reads one line of standard input, without its line end; nil at its end.
    public var readLine: @Sendable () -> String?
    /// What the program itself puts in the context for its commands (tests put recording
    /// transports here), by key: see ``ContextKey``.
    private var values: [ObjectIdentifier: any Sendable] = [:]

    public init(
        standardOutput: CommandOutput, standardError: CommandOutput,
        environment: [String: String], currentDirectory: String,
        readStandardInput: @escaping @Sendable () -> Data = { Data() },
        standardInputIsTerminal: Bool = false,
        readLine: @escaping @Sendable () -> String? = { nil }
    ) {
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.environment = environment
        self.terminal = TerminalEnvironment(environment)
        self.currentDirectory = currentDirectory
        self.readStandardInput = readStandardInput
        self.standardInputIsTerminal = standardInputIsTerminal
        self.readLine = readLine
    }

    /// The real process streams, environment and directory.
    public static func process() -> Context {
        Context(
            standardOutput: CommandOutput(fileDescriptor: 1),
            standardError: CommandOutput(fileDescriptor: 2),
            environment: ProcessInfo.processInfo.environment,
            currentDirectory: FileManager.default.currentDirectoryPath,
            readStandardInput: { FileHandle.standardInput.readDataToEndOfFile() },
            standardInputIsTerminal: isatty(0) == 1,
            readLine: { Swift.readLine(strippingNewline: true) })
    }
}

/// A value a program keeps in the ``Context`` for its commands, with its type:
///
///     enum ClockKey: ContextKey { typealias Value = @Sendable () -> Date }
///     extension Context {
///         var clock: (@Sendable () -> Date)? {
///             get { self[ClockKey.self] }
///             set { self[ClockKey.self] = newValue }
///         }
///     }
public protocol ContextKey {
    associatedtype Value: Sendable
}

extension Context {
    /// The value kept under `key`, or nil.
    public subscript<Key: ContextKey>(key: Key.Type) -> Key.Value? {
        get { values[ObjectIdentifier(key)] as? Key.Value }
        set { values[ObjectIdentifier(key)] = newValue }
    }
}
