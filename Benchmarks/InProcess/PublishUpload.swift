import Dispatch
import Foundation
import TroveKit

/// `trove-bench storage-upload FOLDER BUCKET PREFIX`: every file in FOLDER uploaded as
/// `PREFIX/FILE` with its own download token through the Storage transport a publish uses
/// (so `CLOUDSDK_API_ENDPOINT_OVERRIDES_STORAGE` points it at an emulator); prints the
/// objects sent and the seconds taken.
func benchmarkStorageUpload(folder: String, bucket: String, prefix: String) throws -> Int32 {
    let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
    let objects = names.map { name in
        StorageUpload(
            name: "\(prefix)/\(name)", file: "\(folder)/\(name)", contentType: "image/png",
            cacheControl: "public, max-age=31536000", token: UUID().uuidString.lowercased())
    }
    let environment = ProcessInfo.processInfo.environment
    let transport = try Transports.storage(
        CloudEnvironment(
            credentialsDisabled: environment["CLOUDSDK_AUTH_DISABLE_CREDENTIALS"] == "True",
            storageEndpoint: environment["CLOUDSDK_API_ENDPOINT_OVERRIDES_STORAGE"],
            processEnvironment: environment))
    var sent = 0
    let seconds = try elapsedSeconds {
        try transport.upload(objects, bucket: bucket) { _ in sent += 1 }
    }
    print(row("storage upload (\(sent) objects, own tokens)", String(format: "%8.2f s", seconds)))
    return sent == objects.count ? 0 : 1
}
