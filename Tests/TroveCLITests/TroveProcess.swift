import Foundation
import Testing

/// The real `trove` binary in a process of its own, for what only a separate process
/// shows: what a kill leaves, and how much memory and time a hostile file costs under a
/// limit on the address space (`ulimit -v`).
struct TroveProcess {
    let process: Process
    let stdoutPath: String
    let stderrPath: String
    let started = Date()

    /// Starts `trove arguments` in `folder`, its output into files there (so nothing waits
    /// on a full pipe); with `addressSpaceKiB`, under `ulimit -v` of that many KiB.
    static func launch(
        _ arguments: [String], in folder: String, addressSpaceKiB: Int? = nil
    ) throws -> TroveProcess {
        try BuiltBinary.require()
        let process = Process()
        let tag = UUID().uuidString.prefix(8)
        let stdoutPath = (folder as NSString).appendingPathComponent(".out-\(tag)")
        let stderrPath = (folder as NSString).appendingPathComponent(".err-\(tag)")
        FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        FileManager.default.createFile(atPath: stderrPath, contents: nil)
        if let limit = addressSpaceKiB {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments =
                ["-c", "ulimit -v \(limit); exec \"$0\" \"$@\"", BuiltBinary.path] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: BuiltBinary.path)
            process.arguments = arguments
        }
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        process.environment = ["PATH": "/usr/bin:/bin", "USER": "tester", "HOME": folder]
        process.standardOutput = FileHandle(forWritingAtPath: stdoutPath)
        process.standardError = FileHandle(forWritingAtPath: stderrPath)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return TroveProcess(
            process: process, stdoutPath: stdoutPath, stderrPath: stderrPath)
    }

    /// Runs `trove arguments` to its end. A run still going after `patience` seconds is
    /// killed and reported (a hang must fail its test, not stop the suite).
    static func run(
        _ arguments: [String], in folder: String, addressSpaceKiB: Int? = nil,
        patience: TimeInterval = 120
    ) throws -> Outcome {
        let running = try launch(arguments, in: folder, addressSpaceKiB: addressSpaceKiB)
        return running.wait(patience: patience)
    }

    /// What a finished run did.
    struct Outcome {
        var status: Int32
        /// Whether it ended by a signal (a crash, an out-of-memory abort, or our kill).
        var signalled: Bool
        /// Whether it was still running at the end of the patience, and killed.
        var hung: Bool
        var stdout: String
        var stderr: String
        var seconds: Double
    }

    /// Waits for the end (polling, as `Process` offers no wait with a deadline).
    func wait(patience: TimeInterval = 120) -> Outcome {
        var hung = false
        while process.isRunning {
            if Date().timeIntervalSince(started) > patience {
                hung = true
                kill(process.processIdentifier, SIGKILL)
                break
            }
            usleep(5_000)
        }
        process.waitUntilExit()
        return outcome(hung: hung)
    }

    /// Kills the process now and waits for it.
    func killNow() -> Outcome {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return outcome(hung: false)
    }

    /// Sends `signal` and waits for the process to end.
    func signal(_ signal: Int32) -> Outcome {
        kill(process.processIdentifier, signal)
        return wait()
    }

    /// Runs `arguments` on larger and larger work (`size`, times 4 up to three times, each
    /// in the sandbox `prepare` makes) until `stop` ends a run after `progressed` held and
    /// before it finished (`endedEarly` says it did); a run that finished first must have
    /// succeeded. Returns that run's sandbox, size and outcome; nil when every run finished.
    static func stoppedMidway(
        _ arguments: [String], size: Int, prepare: (Int) throws -> Sandbox,
        progressed: (Sandbox) -> Bool, stop: (TroveProcess) -> Outcome,
        endedEarly: (Outcome) -> Bool
    ) throws -> (sandbox: Sandbox, size: Int, outcome: Outcome)? {
        var size = size
        for _ in 0..<4 {
            let sandbox = try prepare(size)
            let running = try launch(arguments, in: sandbox.folder.path)
            let caught = running.waitWhileRunning { progressed(sandbox) }
            let outcome = caught ? stop(running) : running.wait()
            if caught && !endedEarly(outcome) { return (sandbox, size, outcome) }
            #expect(outcome.status == 0, "\(outcome.stderr)")
            size *= 4
        }
        return nil
    }

    private func outcome(hung: Bool) -> Outcome {
        let out = (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? ""
        let err = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(atPath: stdoutPath)
        try? FileManager.default.removeItem(atPath: stderrPath)
        return Outcome(
            status: process.terminationStatus,
            signalled: process.terminationReason == .uncaughtSignal, hung: hung, stdout: out,
            stderr: err, seconds: Date().timeIntervalSince(started))
    }

    /// Waits until `ready` holds or the process ends; true when `ready` held while the
    /// process still ran.
    func waitWhileRunning(until ready: () -> Bool) -> Bool {
        while process.isRunning {
            if ready() { return process.isRunning }
            usleep(1_000)
        }
        return false
    }

    /// The size of the file at `path`, 0 when there is none.
    static func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }
}
