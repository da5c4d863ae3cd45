import Foundation
import TroveBase
import TroveKit
import TroveStore

/// Where a command's text goes: the real stdout/stderr, or a buffer in tests.
public final class OutputStream: @unchecked Sendable {
    private let fileDescriptor: Int32?
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

    /// Where an export sends its tree: straight to the descriptor, once what is buffered
    /// went out (so this flushes), or into the buffer of a capturing stream.
    func exportDestination() -> Exporter.StandardOutput {
        guard let fileDescriptor else { return .chunks { [self] in write(bytes: $0) } }
        flush()
        return .descriptor(fileDescriptor)
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

/// What a command may touch of the outside world, injected so tests run in-process.
public struct Context: @unchecked Sendable {
    public var standardOutput: OutputStream
    public var standardError: OutputStream
    public var environment: [String: String]
    public var currentDirectory: String
    /// Reads all of standard input.
    public var readStandardInput: @Sendable () -> Data
    /// Whether standard input is a terminal (interactive review).
    public var standardInputIsTerminal: Bool
    /// Reads one line of standard input, without its line end; nil at its end.
    public var readLine: @Sendable () -> String?
    /// Makes the transports `trove publish` sends through, from the environment; nil for
    /// the network ones (`PublishCommand.networkTransports`). Tests put recording ones here.
    public var publishTransports: (@Sendable ([String: String]) throws -> PublishTransports)?

    public init(
        standardOutput: OutputStream, standardError: OutputStream,
        environment: [String: String], currentDirectory: String,
        readStandardInput: @escaping @Sendable () -> Data = { Data() },
        standardInputIsTerminal: Bool = false,
        readLine: @escaping @Sendable () -> String? = { nil }
    ) {
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.environment = environment
        self.currentDirectory = currentDirectory
        self.readStandardInput = readStandardInput
        self.standardInputIsTerminal = standardInputIsTerminal
        self.readLine = readLine
    }

    /// The real process streams, environment and directory.
    public static func process() -> Context {
        Context(
            standardOutput: OutputStream(fileDescriptor: 1),
            standardError: OutputStream(fileDescriptor: 2),
            environment: ProcessInfo.processInfo.environment,
            currentDirectory: FileManager.default.currentDirectoryPath,
            readStandardInput: { FileHandle.standardInput.readDataToEndOfFile() },
            standardInputIsTerminal: isatty(0) == 1,
            readLine: { Swift.readLine(strippingNewline: true) })
    }
}

/// The two transports one publish sends through.
public struct PublishTransports: Sendable {
    public var storage: any StorageTransport
    public var database: any DatabaseTransport

    public init(storage: any StorageTransport, database: any DatabaseTransport) {
        self.storage = storage
        self.database = database
    }
}
