import Foundation
import Testing
import TroveHTTP
import TroveKit

@testable import TroveCLI

/// The Storage JSON API transport against fake-gcs-server, checked through the real
/// gcloud: what each object holds after uploads, token changes and deletes.
@Suite(.serialized, .enabled(if: StorageEmulator.isAvailable, StorageEmulator.skipReason))
struct StorageTransportTests {
    let sandbox: Sandbox
    let emulator: StorageEmulator
    let transport: any StorageTransport

    init() throws {
        sandbox = try Sandbox()
        emulator = try StorageEmulator(buckets: ["bucket"])
        transport = try Transports.storage(CloudEnvironment(reading: emulator.environment))
    }

    /// Files of varied sizes, one of several megabytes so its body is streamed in many
    /// reads, named as renditions and photos are, with a space and accents in one.
    func renditions() throws -> [StorageUpload] {
        let sizes = [
            ("treasures/hairy-harry/thumb-3fa2c9e1.png", 1_800, "image/png"),
            ("posts/p 1/photo-é.jpg", 12_345, "image/jpeg"),
            ("treasures/big/full-0011.png", 3 * 1024 * 1024 + 7, "image/png"),
            ("top.webp", 1, "image/webp"),
        ]
        return try sizes.enumerated().map { index, entry in
            let random = try #require(FileHandle(forReadingAtPath: "/dev/urandom"))
            let bytes = random.readData(ofLength: entry.1)
            let file = try sandbox.write("files/\(index).bin", bytes)
            return StorageUpload(
                name: entry.0, file: file, contentType: entry.2,
                cacheControl: index == 3 ? "no-cache" : "public, max-age=31536000",
                token: index == 3 ? nil : "token-\(index)-\(UUID().uuidString.lowercased())")
        }
    }

    /// Checks through gcloud that the bucket holds exactly `uploads`, with their metadata
    /// and (downloading them all, the slow part) with their bytes when `bytes` is set.
    func expectHolds(_ uploads: [StorageUpload], bucket: String = "bucket", bytes: Bool = true)
        throws
    {
        let objects = try emulator.objects(in: bucket)
        let contents = bytes ? try emulator.contents(of: bucket) : [:]
        #expect(Set(objects.keys) == Set(uploads.map(\.name)))
        for upload in uploads {
            let object = try #require(objects[upload.name], "\(upload.name) missing")
            #expect(object["content_type"] as? String == upload.contentType)
            #expect(object["cache_control"] as? String == upload.cacheControl)
            // A token removed (PATCH to null) is gone on Cloud Storage; fake-gcs-server
            // keeps the key with an empty value, which Firebase reads as no token too.
            #expect((object.downloadToken ?? "") == (upload.token ?? ""), "\(upload.name)")
            if bytes {
                #expect(contents[upload.name] == FileManager.default.contents(atPath: upload.file))
            }
        }
    }

    @Test func uploadsEachObjectWithItsBytesTypeCacheControlAndOwnToken() throws {
        let uploads = try renditions()
        for _ in 0..<2 {
            var done: [String] = []
            try transport.upload(uploads, bucket: "bucket") { done.append($0) }
            #expect(done.sorted() == uploads.map(\.name).sorted())
            try expectHolds(uploads)
        }
        let tokens = try emulator.objects(in: "bucket").values.compactMap(\.downloadToken)
        #expect(Set(tokens).count == 3)
    }

    @Test func setTokensChangesOnlyTheToken() throws {
        var uploads = try renditions()
        try transport.upload(uploads, bucket: "bucket") { _ in }
        let before = try emulator.objects(in: "bucket")
        let changes: [(name: String, token: String?)] = [
            (uploads[0].name, "rotated-0"), (uploads[1].name, nil), (uploads[3].name, "new-3"),
        ]
        uploads[0].token = "rotated-0"
        uploads[1].token = nil
        uploads[3].token = "new-3"
        for run in 0..<2 {
            var done: [String] = []
            try transport.setTokens(changes, bucket: "bucket", done: { done.append($0) }) {
                Issue.record("\($0) reported missing")
            }
            #expect(done.sorted() == changes.map(\.name).sorted())
            try expectHolds(uploads, bytes: run == 1)
        }
        let after = try emulator.objects(in: "bucket")
        for (name, object) in after {
            for field in ["md5_hash", "size", "generation", "content_type", "cache_control"] {
                #expect(
                    "\(object[field] ?? "")" == "\(before[name]?[field] ?? "")", "\(name) \(field)")
            }
        }
        #expect(after[uploads[2].name]?.downloadToken == before[uploads[2].name]?.downloadToken)
    }

    @Test func deletingObjectsAlreadyGoneSucceeds() throws {
        let uploads = try renditions()
        try transport.upload(uploads, bucket: "bucket") { _ in }
        let names = [uploads[0].name, uploads[2].name, "treasures/never/uploaded.png"]
        for _ in 0..<2 {
            var done: [String] = []
            try transport.delete(names, bucket: "bucket") { done.append($0) }
            #expect(done.sorted() == names.sorted())
            try expectHolds([uploads[1], uploads[3]], bytes: false)
        }
    }

    @Test func aMissingBucketNamesTheObjectTheStatusAndTheFix() throws {
        let uploads = try renditions()
        var done: [String] = []
        #expect {
            try transport.upload(uploads, bucket: "gs://no-such-bucket") { done.append($0) }
        } throws: { error in
            let message = "\(error)"
            return message.contains("to gs://no-such-bucket: HTTP 404")
                && uploads.contains { message.contains("cannot upload \($0.name)") }
                && message.contains("check that the bucket gs://no-such-bucket exists")
        }
        #expect(done.isEmpty)
    }

    @Test func anUnreadableFileStopsTheUploadAndNamesIt() throws {
        var uploads = try renditions()
        uploads[1].file = sandbox.path("files/vanished.jpg")
        var done: [String] = []
        #expect {
            try transport.upload(uploads, bucket: "bucket") { done.append($0) }
        } throws: { error in
            "\(error)".contains(
                "cannot upload \(uploads[1].name) to gs://bucket: cannot read \(uploads[1].file): "
                    + "No such file or directory")
        }
        // What was reported done is in the bucket, whole.
        try expectHolds(uploads.filter { done.contains($0.name) })
        #expect(!done.contains(uploads[1].name))
    }

    @Test func theAccessTokenComesFromGcloudOnceARun() throws {
        let calls = sandbox.path("gcloud-calls")
        let gcloud = try sandbox.write(
            "bin/gcloud", "#!/bin/sh\necho \"$@\" >> '\(calls)'\necho ya29.test-token\n")
        chmod(gcloud, 0o755)
        var environment = emulator.environment
        environment["CLOUDSDK_AUTH_DISABLE_CREDENTIALS"] = nil
        environment["GCLOUD"] = gcloud
        let transport = try Transports.storage(CloudEnvironment(reading: environment))
        let uploads = try renditions()
        try transport.upload(uploads, bucket: "bucket") { _ in }
        try transport.delete([uploads[0].name], bucket: "bucket") { _ in }
        #expect(try String(contentsOfFile: calls, encoding: .utf8) == "auth print-access-token\n")
    }
}

/// Failures that need no emulator: what the messages say.
struct StorageTransportErrorTests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    func upload() throws -> [StorageUpload] {
        [
            StorageUpload(
                name: "treasures/a.png", file: try sandbox.write("a.png", "png"),
                contentType: "image/png", cacheControl: "no-cache", token: "t")
        ]
    }

    @Test func aGcloudThatIsNotLoggedInSaysToLogIn() throws {
        let gcloud = try sandbox.write(
            "gcloud",
            "#!/bin/sh\necho 'ERROR: (gcloud.auth.print-access-token) You do not currently "
                + "have an active account selected.' >&2\nexit 1\n")
        chmod(gcloud, 0o755)
        let transport = try Transports.storage(CloudEnvironment(reading: ["GCLOUD": gcloud]))
        var done: [String] = []
        #expect {
            try transport.upload(try upload(), bucket: "bucket") { done.append($0) }
        } throws: { error in
            "\(error)"
                == "cannot get an access token: '\(gcloud) auth print-access-token' exited with "
                + "status 1: ERROR: (gcloud.auth.print-access-token) You do not currently have an "
                + "active account selected.; log in with 'gcloud auth login'"
        }
        #expect(done.isEmpty)
    }

    @Test func aMissingGcloudSaysHowToNameIt() throws {
        let transport = try Transports.storage(
            CloudEnvironment(reading: ["GCLOUD": sandbox.path("no-gcloud")]))
        #expect {
            try transport.delete(["a"], bucket: "bucket") { _ in }
        } throws: { error in
            "\(error)".contains("is not installed (install the Google Cloud CLI, or set GCLOUD")
        }
    }

    @Test func anEndpointOverrideThatIsNoURLIsRefused() {
        #expect {
            _ = try Transports.storage(
                CloudEnvironment(reading: [
                    "CLOUDSDK_API_ENDPOINT_OVERRIDES_STORAGE": "localhost:4443"
                ]))
        } throws: { error in
            "\(error)".contains("check CLOUDSDK_API_ENDPOINT_OVERRIDES_STORAGE")
        }
    }

    @Test func anUnreachableEndpointIsRetriedThenNamed() throws {
        let port = try #require(freeLoopbackPort())
        var configuration = HTTPConfiguration()
        configuration.maxAttempts = 3
        configuration.retryDelay = 0.01
        let transport = try StorageJSONTransport(
            endpoint: "http://127.0.0.1:\(port)/storage/v1/", accessToken: .none,
            configuration: configuration)
        #expect(transport.endpoint == "http://127.0.0.1:\(port)")
        var done: [String] = []
        #expect {
            try transport.upload(try upload(), bucket: "bucket") { done.append($0) }
        } throws: { error in
            let message = "\(error)"
            return message.hasPrefix("cannot upload treasures/a.png to gs://bucket: ")
                && message.contains("(after 3 attempts)")
                && message.contains("check the network connection to http://127.0.0.1:\(port)")
        }
        #expect(done.isEmpty)
    }
}
