import Foundation

/// The transports a publish uses, chosen from the environment.
public enum Transports {
    /// The Cloud Storage JSON API at `https://storage.googleapis.com`, or at
    /// `CLOUDSDK_API_ENDPOINT_OVERRIDES_STORAGE` (the variable gcloud honours, so one
    /// setting points both at an emulator), authorised with a token from
    /// `$GCLOUD auth print-access-token` (`gcloud` by default), fetched once, the first
    /// time a request needs it; with none when `CLOUDSDK_AUTH_DISABLE_CREDENTIALS` is true.
    ///
    /// - Throws: `TransportError` when the endpoint override is not an http(s) URL.
    public static func storage(_ cloud: CloudEnvironment) throws -> any StorageTransport {
        let override = cloud.storageEndpoint ?? ""
        return try StorageJSONTransport(
            endpoint: override.isEmpty ? StorageJSONTransport.defaultEndpoint : override,
            accessToken: .gcloud(cloud))
    }

    /// firebase-tools when `FIREBASE` names a command, or when it is unset and `firebase`
    /// is on the `PATH`; otherwise (and with `FIREBASE` set empty) the REST API with a
    /// token from gcloud, as for `storage`.
    ///
    /// - Throws: `TransportError` when `FIREBASE` names a command that is not installed.
    public static func database(_ cloud: CloudEnvironment) throws -> any DatabaseTransport {
        let environment = cloud.processEnvironment
        if let firebase = cloud.firebase {
            guard !firebase.isEmpty else {
                return DatabaseRESTTransport(accessToken: .gcloud(cloud))
            }
            guard ExternalCommand(firebase, environment: environment) != nil else {
                throw TransportError(
                    "FIREBASE names \(printable(firebase)), which is not installed (install "
                        + "firebase-tools, or unset FIREBASE to use the REST API)")
            }
            return FirebaseCLITransport(command: firebase, cloud: cloud)
        }
        if ExternalCommand("firebase", environment: environment) != nil {
            return FirebaseCLITransport(command: "firebase", cloud: cloud)
        }
        return DatabaseRESTTransport(accessToken: .gcloud(cloud))
    }
}
