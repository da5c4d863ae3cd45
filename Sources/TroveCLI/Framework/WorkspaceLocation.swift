import Foundation
import TroveCommandLine
import TroveStore

/// Which workspace a command line names and how long its writers wait, worked out once
/// for the parser's look-ups, the command and its error messages: `-w`/`--workspace`,
/// else `$TROVE_WORKSPACE`, else `./trove.sqlite`, made absolute against the current
/// directory; `$TROVE_BUSY_TIMEOUT` seconds, else the workspace's default.
struct WorkspaceLocation {
    let path: String
    /// The wait, or why `$TROVE_BUSY_TIMEOUT` cannot be used.
    let busyTimeout: Result<Int32, BusyTimeoutProblem>

    struct BusyTimeoutProblem: Error {
        let message: String
    }

    /// - Parameter option: the value of `-w`/`--workspace`, if given.
    init(option: String?, context: Context) {
        let named = option ?? context.environment["TROVE_WORKSPACE"] ?? "trove.sqlite"
        path =
            named.hasPrefix("/")
            ? named
            : URL(fileURLWithPath: context.currentDirectory).appendingPathComponent(named)
                .standardizedFileURL.path
        guard let text = context.environment["TROVE_BUSY_TIMEOUT"], !text.isEmpty else {
            busyTimeout = .success(Workspace.defaultBusyTimeout)
            return
        }
        guard let seconds = Double(text), seconds >= 0, seconds <= 86_400 else {
            busyTimeout = .failure(
                BusyTimeoutProblem(
                    message:
                        "TROVE_BUSY_TIMEOUT must be a number of seconds from 0 to 86400, not '\(text)'"
                ))
            return
        }
        busyTimeout = .success(Int32((seconds * 1000).rounded()))
    }

    /// The location a command line names, read before it is parsed (the parser asks
    /// whether a word is a post id of that workspace).
    init(scanning arguments: [String], context: Context) {
        var option: String?
        for (index, word) in arguments.enumerated() {
            if word == "--" { break }
            if word == "-w" || word == "--workspace", index + 1 < arguments.count {
                option = arguments[index + 1]
            } else if word.hasPrefix("--workspace=") {
                option = String(word.dropFirst("--workspace=".count))
            }
        }
        self.init(option: option, context: context)
    }

    /// The wait for a message about a workspace problem, whatever the variable says.
    var busyTimeoutForMessages: Int32 {
        (try? busyTimeout.get()) ?? Workspace.defaultBusyTimeout
    }
}
