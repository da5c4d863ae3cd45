import Foundation
import TroveBase

/// Applies multi-path updates through firebase-tools, as
/// `firebase database:update / FILE --project PROJECT --instance INSTANCE --force
/// --non-interactive`, with the update written to a private temporary file: for people
/// whose access to the database is through `firebase login`.
///
/// The project and instance come from the database URL: the instance is the host's first
/// label (or the `ns` query item), the project that name without `-default-rtdb`. A failed
/// run is tried again twice, after 1 and 2 seconds, unless it says the login is at fault.
public struct FirebaseCLITransport: DatabaseTransport {
    /// The command, as `FIREBASE` names it.
    public let command: String
    let cloud: CloudEnvironment
    /// Seconds before the first retry; doubled for the next.
    let retryDelay: Double

    public init(command: String, cloud: CloudEnvironment, retryDelay: Double = 1) {
        self.command = command
        self.cloud = cloud
        self.retryDelay = retryDelay
    }

    private var environment: [String: String] { cloud.processEnvironment }

    public func update(_ body: [UInt8], databaseURL: String) throws {
        let database = try DatabaseURL(databaseURL)
        guard let firebase = ExternalCommand(command, environment: environment) else {
            throw TransportError(
                "cannot update the database: \(printable(command)) is not installed (install "
                    + "firebase-tools, or set FIREBASE to its command, or to nothing to use "
                    + "the REST API)")
        }
        let file = try temporaryFile(holding: body)
        defer { unlink(file) }
        let arguments = [
            "database:update", "/", file, "--project", database.project, "--instance",
            database.instance, "--force", "--non-interactive",
        ]
        let failed: Failure
        switch try run(firebase, arguments, doing: "update the database") {
        case .success: return
        case .failure(let failure): failed = failure
        }
        var message =
            "cannot update the database \(database.root): '\(command) database:update' "
            + "exited with status \(failed.status)\(failed.said)"
        if failed.attempts > 1 { message += " (after \(failed.attempts) attempts)" }
        message +=
            failed.loginProblem
            ? "; log in with 'firebase login' as an account that may write to project "
                + database.project
            : "; publish again later to carry on"
        throw TransportError(message)
    }

    /// Reads through `firebase database:get PATH --export`, with `--order-by-key`,
    /// `--start-at` and `--limit-to-first` for a page of children; tried again as an
    /// update is.
    public func read(_ read: DatabaseRead, databaseURL: String) throws -> [UInt8] {
        let database = try DatabaseURL(databaseURL)
        guard let firebase = ExternalCommand(command, environment: environment) else {
            throw TransportError(
                "cannot read the database: \(printable(command)) is not installed (install "
                    + "firebase-tools, or set FIREBASE to its command, or to nothing to use "
                    + "the REST API)")
        }
        var arguments = [
            "database:get", "/" + read.path, "--project", database.project, "--instance",
            database.instance, "--export", "--non-interactive",
        ]
        if let limit = read.limit {
            arguments.append("--order-by-key")
            if let startAt = read.startAt { arguments += ["--start-at", startAt] }
            arguments += ["--limit-to-first", String(limit)]
        }
        let failed: Failure
        switch try run(firebase, arguments, doing: "read the database") {
        case .success(let output): return output.standardOutput
        case .failure(let failure): failed = failure
        }
        throw TransportError(
            "cannot read /\(read.path) of the database \(database.root): '\(command) "
                + "database:get' exited with status \(failed.status)\(failed.said)"
                + (failed.loginProblem
                    ? "; log in with 'firebase login' as an account that may read project "
                        + database.project : "; try again later"))
    }

    /// How firebase-tools failed the last time it was run.
    private struct Failure: Error {
        var status: Int32
        /// Its error text, as `: TEXT`, or empty.
        var said: String
        var attempts: Int
        /// Whether the text blames the login, which no retry mends.
        var loginProblem: Bool
    }

    /// Runs firebase-tools with `arguments`, again after `retryDelay` and then twice that
    /// while it fails for a reason other than the login: its output, or how it failed last.
    ///
    /// - Throws: `TransportError` when it cannot be run at all.
    private func run(_ firebase: ExternalCommand, _ arguments: [String], doing what: String)
        throws -> Result<ExternalCommand.Output, Failure>
    {
        var attempts = 0
        while true {
            attempts += 1
            let output: ExternalCommand.Output
            do {
                output = try firebase.run(arguments)
            } catch {
                throw TransportError(
                    "cannot \(what): cannot run \(firebase.executable): \(error)")
            }
            if output.status == 0 { return .success(output) }
            let said = output.errorText.isEmpty ? "" : ": \(output.errorText)"
            let loginProblem = ["login", "authenticat", "permission", "credential"].contains {
                said.lowercased().contains($0)
            }
            if attempts < 3, !loginProblem {
                usleep(UInt32(retryDelay * Double(1 << (attempts - 1)) * 1e6))
                continue
            }
            return .failure(
                Failure(
                    status: output.status, said: said, attempts: attempts,
                    loginProblem: loginProblem))
        }
    }

    /// A new file only this user can read, holding `bytes`; its path.
    private func temporaryFile(holding bytes: [UInt8]) throws(TransportError) -> String {
        let folder = cloud.temporaryFolder
        var template = Array("\(folder)/trove-update-XXXXXX.json".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer {
            mkstemps($0.baseAddress!, 5)
        }
        guard descriptor >= 0 else {
            throw TransportError(
                "cannot write the update for firebase-tools in \(folder): \(errorText(errno))")
        }
        let path = String(
            decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let written = bytes.withUnsafeBytes { FileIO.writeAll(descriptor, $0) }
        close(descriptor)
        guard written else {
            unlink(path)
            throw TransportError(
                "cannot write the update for firebase-tools to \(path): \(errorText(errno))")
        }
        return path
    }
}

func errorText(_ code: Int32) -> String { String(cString: strerror(code)) }
