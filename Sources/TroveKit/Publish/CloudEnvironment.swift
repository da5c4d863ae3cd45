/// What the environment says of the Google Cloud and Firebase tools, as values. The command
/// line reads the variables once (TroveCLI's `ToolEnvironment`) and hands this to publish,
/// pulls and follows; nothing below reads a variable by name.
public struct CloudEnvironment: Sendable, Equatable {
    /// The gcloud command (`GCLOUD`, default `gcloud`).
    public var gcloud: String
    /// No access token at all (`CLOUDSDK_AUTH_DISABLE_CREDENTIALS` true, as for gcloud).
    public var credentialsDisabled: Bool
    /// Another Cloud Storage endpoint, an emulator's (`CLOUDSDK_API_ENDPOINT_OVERRIDES_STORAGE`).
    public var storageEndpoint: String?
    /// The firebase-tools command (`FIREBASE`): nil when unset (firebase when it is on the
    /// `PATH`, else REST), empty for REST always.
    public var firebase: String?
    /// Where a file handed to firebase-tools is written (`TMPDIR`, default /tmp).
    public var temporaryFolder: String
    /// The environment gcloud and firebase-tools run with, passed through whole.
    public var processEnvironment: [String: String]

    public init(
        gcloud: String = "gcloud", credentialsDisabled: Bool = false,
        storageEndpoint: String? = nil, firebase: String? = nil,
        temporaryFolder: String = "/tmp", processEnvironment: [String: String] = [:]
    ) {
        self.gcloud = gcloud
        self.credentialsDisabled = credentialsDisabled
        self.storageEndpoint = storageEndpoint
        self.firebase = firebase
        self.temporaryFolder = temporaryFolder
        self.processEnvironment = processEnvironment
    }

    /// gcloud's own settings (`CLOUDSDK_*`), which decide which token it prints.
    var gcloudSettings: [(String, String)] {
        processEnvironment.filter { $0.key.hasPrefix("CLOUDSDK_") }.sorted { $0.key < $1.key }
    }
}
