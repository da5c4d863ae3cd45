import Foundation

/// The repository's root, for the test tools it holds (`Tests/Support`, `.build/test-tools`).
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

/// What a program printed and how it ended.
struct ToolResult {
    var status: Int32
    var stdout: Data
    var stderr: String
    var text: String { String(decoding: stdout, as: UTF8.self) }
}

/// The first executable called `name` on the `PATH`, or nil.
func executableOnPath(_ name: String) -> String? {
    let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(
        separator: ":")
    return folders.map { "\($0)/\(name)" }.first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
}

/// Runs a program to its end with no input, the test process's environment with
/// `environment` on top; both outputs read before waiting.
func runTool(_ executable: String, _ arguments: [String], environment: [String: String] = [:])
    throws -> ToolResult
{
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    process.standardInput = FileHandle.nullDevice
    let output = Pipe()
    let errors = FileManager.default.temporaryDirectory.appendingPathComponent(
        "trove-tool-\(UUID().uuidString).err")
    FileManager.default.createFile(atPath: errors.path, contents: nil)
    defer { try? FileManager.default.removeItem(at: errors) }
    process.standardOutput = output
    process.standardError = try FileHandle(forWritingTo: errors)
    try process.run()
    let printed = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let complained = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
    return ToolResult(status: process.terminationStatus, stdout: printed, stderr: complained)
}

/// A server process a test starts on a loopback port and stops when it is released.
final class LocalService {
    let process: Process
    let port: Int
    private var stopped = false

    /// Starts `executable` with the arguments `arguments(port)` on `port`, or else on a
    /// port that was free a moment ago, and waits (up to 15 s) until the port accepts
    /// connections; tries again if the process dies first (another took the port), on
    /// other ports unless `port` was given (a service started again where it was).
    init(name: String, executable: String, port wanted: Int? = nil, arguments: (Int) -> [String])
        throws
    {
        var lastError = "did not start"
        for _ in 0..<3 {
            guard let port = wanted ?? freeLoopbackPort() else { break }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments(port)
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let deadline = Date().addingTimeInterval(15)
            while process.isRunning, Date() < deadline, !acceptsConnections(port: port) {
                usleep(20_000)
            }
            if process.isRunning, acceptsConnections(port: port) {
                self.process = process
                self.port = port
                return
            }
            lastError = process.isRunning ? "not listening after 15 s" : "exited at start"
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        throw ServiceError(message: "\(name) \(lastError)")
    }

    /// Kills the process and waits for it to end; a second stop does nothing. Killed
    /// outright: a child started from a test thread can inherit a signal mask that blocks
    /// SIGTERM, and the services hold nothing worth a clean exit.
    func stop() {
        guard !stopped else { return }
        stopped = true
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit { stop() }
}

struct ServiceError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// A TCP port on 127.0.0.1 that nothing listens on now.
func freeLoopbackPort() -> Int? {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var address = loopback(port: 0)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
        }
    }
    return bound ? Int(UInt16(bigEndian: address.sin_port)) : nil
}

private func acceptsConnections(port: Int) -> Bool {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    var address = loopback(port: port)
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
    }
}

private func loopback(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return address
}
