import Foundation

/// The signal that asked the running command to stop; 0 while none did. Set by a signal
/// handler, so a plain word.
nonisolated(unsafe) private var requestedStop: sig_atomic_t = 0

/// SIGINT (Ctrl-C) and SIGTERM turned into a request to stop, for a command that records
/// its work in batches: it finishes what is under way, records it and says so, rather than
/// ending at once. Only while `watching` runs; the signals' default actions are back after.
enum Interruption {
    /// The signal that asked to stop, if one did.
    static var received: Int32? { requestedStop == 0 ? nil : requestedStop }

    /// Runs `body` with SIGINT and SIGTERM asking to stop instead of ending the process.
    static func watching<T>(_ body: () throws -> T) rethrows -> T {
        requestedStop = 0
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { number in
            if requestedStop == 0 { requestedStop = number }
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        sigaction(SIGINT, &action, nil)
        sigaction(SIGTERM, &action, nil)
        // A parent may have started us with these blocked.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        var previous = sigset_t()
        pthread_sigmask(SIG_UNBLOCK, &signals, &previous)
        defer {
            signal(SIGINT, SIG_DFL)
            signal(SIGTERM, SIG_DFL)
            pthread_sigmask(SIG_SETMASK, &previous, nil)
        }
        return try body()
    }
}
