import Foundation
import Testing

@testable import TroveCLI
@testable import TroveCommandLine

/// The outcome of one in-process run of `trove`.
struct RunResult {
    let status: Int32
    let stdout: String
    let stderr: String
}

/// A temporary folder that holds a workspace and input files, removed at the end.
final class Sandbox {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "trove-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    var workspace: String { folder.appendingPathComponent("trove.sqlite").path }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        try write(name, Data(text.utf8))
    }

    @discardableResult
    func write(_ name: String, _ data: Data) throws -> String {
        let url = folder.appendingPathComponent(name)
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url)
        return url.path
    }

    /// Runs trove in-process with this folder as the working directory.
    @discardableResult
    func run(_ arguments: String..., stdin: String = "", environment: [String: String] = [:])
        -> RunResult
    {
        run(arguments, stdin: stdin, environment: environment)
    }

    func run(_ arguments: [String], stdin: String = "", environment: [String: String] = [:])
        -> RunResult
    {
        let out = CommandOutput(capturingAsTerminal: false)
        let err = CommandOutput(capturingAsTerminal: false)
        let input = Data(stdin.utf8)
        let context = Context(
            standardOutput: out, standardError: err,
            environment: ["USER": "tester"].merging(environment) { $1 },
            currentDirectory: folder.path, readStandardInput: { input })
        let status = TroveCLI.run(arguments, context: context)
        return RunResult(status: status, stdout: out.text, stderr: err.text)
    }
}
