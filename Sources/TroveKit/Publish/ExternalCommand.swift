import Foundation
import TroveBase

/// A program a transport runs (`gcloud`, `firebase`), found on the `PATH` and given the
/// process's environment with the caller's on top.
struct ExternalCommand {
    /// The path of the program.
    let executable: String
    let environment: [String: String]

    /// The command `name` names: a path when it holds a `/`, else the first executable
    /// of that name on the environment's `PATH`; nil when there is none.
    package init?(_ name: String, environment: [String: String]) {
        let merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        self.environment = merged
        if name.contains("/") {
            guard FileManager.default.isExecutableFile(atPath: name) else { return nil }
            executable = name
            return
        }
        let folders = (merged["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":")
        guard
            let found = folders.lazy.map({ "\($0)/\(name)" }).first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else { return nil }
        executable = found
    }

    /// What a finished run printed, and how it ended.
    struct Output {
        package var status: Int32
        var standardOutput: [UInt8]
        var standardError: [UInt8]

        /// The standard error's last lines, trimmed, for a message.
        var errorText: String {
            let text = String(decoding: standardError, as: UTF8.self)
            let lines = text.split(whereSeparator: \.isNewline).map {
                $0.trimmingCharacters(in: .whitespaces)
            }.filter { !$0.isEmpty }
            return printable(lines.suffix(4).joined(separator: " "))
        }
    }

    /// Runs the program with `arguments` and no input, reading both its outputs to the
    /// end before waiting for it.
    ///
    /// - Throws: the error `Process.run` throws when the program cannot be started.
    func run(_ arguments: [String]) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let errorReader = Worker { error.fileHandleForReading.readDataToEndOfFile() }
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        let complained = (try? errorReader.wait()) ?? Data()
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus, standardOutput: Array(printed),
            standardError: Array(complained))
    }
}

/// Text from outside (a server's message, a program's output) with control characters
/// replaced, so it cannot move the cursor or recolour the terminal it is printed on.
func printable(_ text: String) -> String {
    String(
        String.UnicodeScalarView(
            text.unicodeScalars.map {
                $0.properties.generalCategory == .control ? " " : $0
            }))
}

/// Whether an environment variable holds one of gcloud's words for true.
package func isTrue(_ value: String?) -> Bool {
    guard let value else { return false }
    return ["true", "1", "yes", "on"].contains(value.lowercased())
}
