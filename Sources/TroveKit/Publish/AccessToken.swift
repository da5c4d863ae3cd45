import Foundation

/// Where a transport's `Authorization` comes from: nothing (an emulator, with
/// `CLOUDSDK_AUTH_DISABLE_CREDENTIALS=True`), a token given, or `gcloud auth
/// print-access-token`, run the first time a request needs it and kept for the rest of
/// the run.
public final class AccessToken: @unchecked Sendable {
    private enum Source {
        case none
        case fixed(String)
        case gcloud(command: String, environment: [String: String])
    }

    private let source: Source
    private let lock = NSLock()
    private var fetched: Result<String, TransportError>?

    private init(_ source: Source) { self.source = source }

    /// No credentials: requests carry no `Authorization` header.
    public static let none = AccessToken(.none)

    /// Always `token`.
    public static func fixed(_ token: String) -> AccessToken { AccessToken(.fixed(token)) }

    /// The token `COMMAND auth print-access-token` prints, `COMMAND` being `GCLOUD` or
    /// `gcloud`; none at all when `CLOUDSDK_AUTH_DISABLE_CREDENTIALS` is true, as gcloud
    /// itself does.
    ///
    /// One token serves the whole process: the Storage and the database transports of a
    /// publish share it, so gcloud runs once (per command and gcloud settings).
    public static func gcloud(_ cloud: CloudEnvironment) -> AccessToken {
        if cloud.credentialsDisabled { return .none }
        let command = cloud.gcloud
        let environment = cloud.processEnvironment
        let key = ([command] + cloud.gcloudSettings.map { "\($0.0)=\($0.1)" }).joined(
            separator: "\n")
        shared.lock.lock()
        defer { shared.lock.unlock() }
        if let token = shared.tokens[key] { return token }
        let token = AccessToken(.gcloud(command: command, environment: environment))
        shared.tokens[key] = token
        return token
    }

    /// The gcloud tokens of this process, by command and settings.
    private final class Shared: @unchecked Sendable {
        let lock = NSLock()
        var tokens: [String: AccessToken] = [:]
    }

    private static let shared = Shared()

    /// The `Authorization` header line, or nil without credentials.
    ///
    /// - Throws: `TransportError` when gcloud is missing or prints no token; the same
    ///   error again on later calls, without running it twice.
    func header() throws(TransportError) -> String? {
        guard let token = try value() else { return nil }
        return "Authorization: Bearer \(token)"
    }

    /// The token itself, or nil without credentials.
    ///
    /// - Throws: `TransportError`, as `header`.
    func value() throws(TransportError) -> String? {
        switch source {
        case .none: return nil
        case .fixed(let token): return token
        case .gcloud(let command, let environment):
            lock.lock()
            defer { lock.unlock() }
            if fetched == nil { fetched = Self.fetch(command: command, environment: environment) }
            return try fetched!.get()
        }
    }

    /// Forgets a token fetched from gcloud, so the next request runs it again: the
    /// database said the token it was sent no longer holds (`auth_revoked`).
    func renew() {
        lock.lock()
        defer { lock.unlock() }
        fetched = nil
    }

    private static func fetch(command: String, environment: [String: String]) -> Result<
        String, TransportError
    > {
        let arguments = ["auth", "print-access-token"]
        guard let gcloud = ExternalCommand(command, environment: environment) else {
            return .failure(
                TransportError(
                    "cannot get an access token: \(command) is not installed (install the "
                        + "Google Cloud CLI, or set GCLOUD to the gcloud command)"))
        }
        let output: ExternalCommand.Output
        do {
            output = try gcloud.run(arguments)
        } catch {
            return .failure(
                TransportError(
                    "cannot get an access token: cannot run \(gcloud.executable): \(error)"))
        }
        let token = String(decoding: output.standardOutput, as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard output.status == 0, !token.isEmpty, !token.contains(where: \.isWhitespace) else {
            let said = output.errorText.isEmpty ? "" : ": \(output.errorText)"
            return .failure(
                TransportError(
                    "cannot get an access token: '\(command) auth print-access-token' "
                        + "exited with status \(output.status)\(said); log in with "
                        + "'gcloud auth login'"))
        }
        return .success(token)
    }
}
