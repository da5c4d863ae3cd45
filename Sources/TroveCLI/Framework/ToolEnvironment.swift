import TroveCommandLine
import TroveKit

// Every environment variable trove reads is read here, at the command line's edge, into
// values the library takes (the terminal's are read with the context, in
// TroveCommandLine). The manual lists them all (`TroveManual`), and a test checks it does.

extension CloudEnvironment {
    /// gcloud's and firebase-tools' variables of `environment`.
    init(reading environment: [String: String]) {
        func nonEmpty(_ value: String?) -> String? { value.flatMap { $0.isEmpty ? nil : $0 } }
        self.init(
            gcloud: nonEmpty(environment["GCLOUD"]) ?? "gcloud",
            credentialsDisabled: isTrue(environment["CLOUDSDK_AUTH_DISABLE_CREDENTIALS"]),
            storageEndpoint: nonEmpty(environment["CLOUDSDK_API_ENDPOINT_OVERRIDES_STORAGE"]),
            firebase: environment["FIREBASE"],
            temporaryFolder: nonEmpty(environment["TMPDIR"]) ?? "/tmp",
            processEnvironment: environment)
    }
}

extension Context {
    /// gcloud's and firebase-tools' settings, for publish, pulls and follows.
    var cloud: CloudEnvironment { CloudEnvironment(reading: environment) }

    /// The folder whose templates replace the built-in ones (`TROVE_TEMPLATES`).
    var templatesFolder: String? { environment["TROVE_TEMPLATES"] }

    /// The moderator's name when `--as` is not given: `TROVE_MODERATOR`, else `USER`.
    var moderatorNames: [String?] { [environment["TROVE_MODERATOR"], environment["USER"]] }
}
