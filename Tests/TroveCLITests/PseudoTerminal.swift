import Foundation
import Testing

@testable import TroveCLI

/// Results written from concurrent iterations.
final class UnsafeResults: @unchecked Sendable {
    private var slots: [RunResult?] = [nil, nil]
    private let lock = NSLock()

    func set(_ index: Int, _ value: RunResult?) {
        lock.lock()
        slots[index] = value
        lock.unlock()
    }

    var values: [RunResult?] {
        lock.lock()
        defer { lock.unlock() }
        return slots
    }
}

/// A pseudo-terminal pair: the child end for the process, the parent end read in the
/// background into `screen`.
final class PseudoTerminal: @unchecked Sendable {
    let child: FileHandle
    private let parent: Int32
    private var buffer = Data()
    private let lock = NSLock()

    init() throws {
        var parent: Int32 = 0
        var child: Int32 = 0
        guard openpty(&parent, &child, nil, nil, nil) == 0 else {
            throw CocoaError(.fileReadUnknown)
        }
        self.parent = parent
        self.child = FileHandle(fileDescriptor: child, closeOnDealloc: true)
        let descriptor = parent
        let thread = Thread { [weak self] in
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(descriptor, &chunk, chunk.count)
                if count <= 0 { return }
                guard let self else { return }
                self.lock.lock()
                self.buffer.append(contentsOf: chunk[0..<count])
                self.lock.unlock()
            }
        }
        thread.start()
    }

    var screen: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: buffer, as: UTF8.self)
    }

    func send(_ text: String) {
        _ = text.utf8CString.withUnsafeBufferPointer {
            write(parent, $0.baseAddress, text.utf8.count)
        }
    }

    /// Starts the built trove with this terminal as its standard input, output and error.
    func start(_ arguments: [String], environment: [String: String], directory: URL? = nil)
        throws -> Process
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: BuiltBinary.path)
        process.arguments = arguments
        process.environment = environment
        if let directory { process.currentDirectoryURL = directory }
        process.standardInput = child
        process.standardOutput = child
        process.standardError = child
        try process.run()
        return process
    }

    /// Waits up to 20 s for `text` to appear.
    func waitFor(_ text: String) -> Bool {
        for _ in 0..<400 {
            if screen.contains(text) { return true }
            usleep(50_000)
        }
        return false
    }
}
