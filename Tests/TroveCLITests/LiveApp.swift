import Foundation
import Testing
import TroveBase
import TroveStore

/// The litter app's backend for tests of `import posts --from` and `review serve --follow`:
/// the database stand-in holding its posts and fake-gcs-server holding their photos, and
/// the writes the app makes to both.
final class LiveApp {
    let database: DatabaseStandIn
    let storage: StorageEmulator
    static let bucket = "litter-app.appspot.com"

    static let available = DatabaseStandIn.isAvailable && StorageEmulator.isAvailable
    static var skipReason: Comment {
        Comment(
            rawValue: DatabaseStandIn.isAvailable
                ? StorageEmulator.unavailable ?? "" : "python3 is not installed")
    }

    init(seed: String? = nil, requireToken: String? = nil, keepAliveSeconds: Double? = nil)
        throws
    {
        database = try DatabaseStandIn(
            requireToken: requireToken, seed: seed, keepAliveSeconds: keepAliveSeconds)
        storage = try StorageEmulator(buckets: [Self.bucket])
    }

    /// What points trove at both: the stand-in's REST API and the emulator, no credentials.
    var environment: [String: String] {
        database.environment.merging(storage.environment) { $1 }
    }

    /// The flat location the app writes, `…/Locations`.
    var locations: String { database.url + "/Locations" }

    /// The Firebase download URL the app stores for a photo it uploaded.
    static func downloadURL(_ name: String, token: String = "0e7c") -> String {
        let encoded = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? name
        return
            "https://firebasestorage.googleapis.com/v0/b/\(bucket)/o/\(encoded)?alt=media&token=\(token)"
    }

    /// A post as the app writes it under `Locations/{id}`.
    static func record(
        _ id: String, user: String = "u1", lat: Double = 38.7223, lon: Double = -9.1393,
        description: String = "Bottles by the bench", date: String = "2024-05-01T10:00:00Z",
        photo: String? = nil, extra: [String: Any] = [:]
    ) -> [String: Any] {
        var record: [String: Any] = [
            "uid": user, "Latitude": lat, "Longitude": lon, "LocationDescription": description,
            "Date": date,
        ]
        if let photo { record["photoURL"] = photo }
        for (key, value) in extra { record[key] = value }
        return record
    }

    static func json(_ value: Any) -> String {
        String(
            decoding: (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]))
                ?? Data(), as: UTF8.self)
    }

    /// Uploads a photo under `photos/NAME.jpg`, as the app does before it writes the post.
    func upload(_ name: String, seed: Int, gps: (Double, Double)? = (38.7223, -9.1393)) throws {
        try storage.put(
            Self.bucket, "photos/\(name).jpg", try PostPhotos.jpeg(seed: seed, gps: gps))
    }

    /// Writes a post as the app does.
    func write(_ id: String, _ record: [String: Any]) throws {
        try database.put(path: "Locations/\(id)", json: Self.json(record))
    }
}

extension RunResult {
    /// The JSON object printed on stdout (`--format json`).
    var object: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(stdout.utf8))) as? [String: Any] ?? [:]
    }
}

extension Sandbox {
    /// Every post of the workspace by id, as `review list --status all --format json`
    /// prints it.
    func posts() throws -> [String: [String: Any]] {
        let result = run("review", "list", "--status", "all", "--format", "json")
        let list =
            (try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
            ?? []
        var byID: [String: [String: Any]] = [:]
        for post in list { if let id = post["id"] as? String { byID[id] = post } }
        return byID
    }

    /// The files in the workspace's photo folder, without its `.gitignore`.
    func photoFiles() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: workspace + ".photos")) ?? [])
            .filter { !$0.hasPrefix(".") }.sorted()
    }
}
