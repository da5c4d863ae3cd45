import Foundation
import Testing

@testable import TroveBase
@testable import TroveCLI
@_spi(Testing) @testable import TroveKit
@_spi(Testing) @testable import TroveStore

/// Buckets as pasted, download tokens, and the Storage plan written beside each export.
@Suite struct StorageTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        #expect(sandbox.run("init").status == 0)
    }

    /// Treasures a (local image), b (local image), r (remote image), gone (removed later);
    /// posts approved, pending, rejected and flagged, each with a photo rendition.
    func makeWorkspace() throws {
        let fixture = try Workspace(path: sandbox.workspace).fixture
        for (key, name, lat, lon, image) in [
            ("a", "A", 40.70, -74.00, "/art/a.png"), ("b", "B", 40.71, -74.01, "/art/b.jpg"),
            ("gone", "Gone", 40.72, -74.02, "/art/gone.png"),
            ("r", "R", 40.73, -74.03, "https://example.com/r.jpg"),
        ] {
            try fixture.addTreasure(key, name: name, lat: lat, lon: lon, image: image)
        }
        for (id, user, description, status) in [
            ("ok", "ann", "Cans", "approved"), ("wait", "bob", "Wait", "pending"),
            ("no", "bob", "No", "rejected"), ("flag", "bob", "Flag", "flagged"),
        ] {
            try fixture.addPost(
                id, user: user, lat: 40.7, lon: -74.0, description: description,
                date: "2024-01-24", photo: "/p/\(id).jpg", status: status)
        }
        for (key, source, ext) in [
            ("a", "/art/a.png", "png"), ("b", "/art/b.jpg", "jpg"),
            ("gone", "/art/gone.png", "png"),
        ] {
            for name in ["full", "thumb", "pin"] {
                try fixture.setRendition(
                    "treasure", key, name, source: source,
                    path: "treasures/\(key)/\(name)-0000000\(key.count).\(ext)")
            }
        }
        for id in ["ok", "wait", "no", "flag"] {
            try fixture.setRendition(
                "post", id, "full", source: "/p/\(id).jpg", path: "posts/\(id)/full-1111.jpg")
        }
        #expect(sandbox.run("geohash").status == 0)
    }

    /// Every image URL in an export, as (object path, token).
    func urls(in file: String) throws -> [String: String] {
        let text = try String(contentsOfFile: sandbox.path(file), encoding: .utf8)
        var found: [String: String] = [:]
        let pattern = try NSRegularExpression(
            pattern:
                #"https://firebasestorage\.googleapis\.com/v0/b/([^/]+)/o/([^?"]+)\?alt=media(&token=([0-9a-f-]+))?"#
        )
        for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            let path = String(text[Range(match.range(at: 2), in: text)!]).removingPercentEncoding!
            let token = Range(match.range(at: 4), in: text).map { String(text[$0]) } ?? ""
            found[path] = token
        }
        return found
    }

    struct Manifest: Decodable {
        struct Object: Decodable {
            let path: String
            let contentType: String
            let metadata: [String: String]
            let state: String
        }
        let bucket: String?
        let objects: [Object]
        let delete: [String]
    }

    func manifest(_ file: String) throws -> Manifest {
        try JSONDecoder().decode(
            Manifest.self, from: Data(contentsOf: URL(fileURLWithPath: sandbox.path(file))))
    }

    // MARK: - Buckets

    @Test(arguments: [
        "my-game.appspot.com", "gs://my-game.appspot.com", "gs://my-game.appspot.com/",
        " My-Game.appspot.com ",
        "https://console.firebase.google.com/project/my-game/storage/my-game.appspot.com/files",
        "https://console.firebase.google.com/u/0/project/my-game/storage/my-game.appspot.com/files/~2Ftreasures",
        "https://console.cloud.google.com/storage/browser/my-game.appspot.com",
    ])
    func everyBucketFormGivesTheSameURLs(form: String) throws {
        try makeWorkspace()
        let set = sandbox.run("config", "set", "storage.bucket", form)
        #expect(set.status == 0, "\(set.stderr)")
        #expect(sandbox.run("config", "get", "storage.bucket").stdout == "my-game.appspot.com\n")
        #expect(sandbox.run("config", "set", "storage.tokens", "off").status == 0)
        let exported = sandbox.run("export", "--layout", "flatirongo")
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(
            exported.stdout.contains(
                "\"https://firebasestorage.googleapis.com/v0/b/my-game.appspot.com/o/treasures%2Fa%2Ffull-00000001.png?alt=media\""
            ))
    }

    @Test func theNewFirebaseStorageDomainIsABucketToo() {
        #expect(
            StorageBucket.normalize("gs://my-game.firebasestorage.app")
                == "my-game.firebasestorage.app")
        #expect(
            StorageBucket.normalize("my-game.firebasestorage.app") == "my-game.firebasestorage.app")
        #expect(StorageBucket.normalize("gs://custom-bucket") == "custom-bucket")
    }

    /// A custom bucket named bare is the bucket `gs://NAME` names, with the same URLs.
    @Test(arguments: ["my-bucket", "gs://my-bucket", "My-Bucket", " my_bucket.example.com "])
    func aBareCustomBucketIsAcceptedLikeItsGSForm(form: String) throws {
        try makeWorkspace()
        let set = sandbox.run("config", "set", "storage.bucket", form)
        #expect(set.status == 0, "\(set.stderr)")
        let stored = form.trimmingCharacters(in: .whitespaces).lowercased()
            .replacingOccurrences(of: "gs://", with: "")
        #expect(sandbox.run("config", "get", "storage.bucket").stdout == stored + "\n")
        #expect(
            set.stderr.contains(
                "is used as a custom bucket; a Firebase project's default bucket is \(stored).appspot.com"
            ))
        #expect(sandbox.run("config", "set", "storage.tokens", "off").status == 0)
        let exported = sandbox.run("export", "--layout", "flatirongo")
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(
            exported.stdout.contains(
                "https://firebasestorage.googleapis.com/v0/b/\(stored)/o/treasures%2Fa%2F"))
    }

    @Test(arguments: [
        "gs://", "gs://my-game.appspot.com/folder", "https://example.com/x",
        "my game.appspot.com", "gs://-bad.appspot.com", "", "my-bucket/folder", "ab",
        "my-google-bucket", "goog-bucket", "192.168.5.4", String(repeating: "a", count: 64),
        "gs://-my-bucket", "my-bucket-", "My_Bucket!",
    ])
    func otherBucketsAreRefusedWithTheAcceptedForms(form: String) {
        #expect(StorageBucket.normalize(form) == nil)
        sandbox.run("config", "set", "storage.bucket", "kept.appspot.com")
        let result = sandbox.run("config", "set", "storage.bucket", form)
        #expect(result.status == 2)
        #expect(
            result.stderr.contains("expected NAME.appspot.com, NAME.firebasestorage.app, gs://NAME")
        )
        #expect(sandbox.run("config", "get", "storage.bucket").stdout == "kept.appspot.com\n")
    }

    @Test func aMissingBucketIsOneMessageWithTheCountAndStatusAndValidateSayItFirst() throws {
        try makeWorkspace()
        let exported = sandbox.run("export", "--layout", "flatirongo", "--out", "f.json")
        #expect(exported.status == 1)
        #expect(exported.stderr.components(separatedBy: "storage.bucket is not set").count == 2)
        #expect(exported.stderr.contains("3 treasure images have no download URL"))
        #expect(!FileManager.default.fileExists(atPath: sandbox.path("f.json")))
        let status = sandbox.run("status")
        #expect(
            status.stdout.hasPrefix(
                "storage.bucket is not set: 3 treasure images and 4 post photos"),
            "\(status.stdout)")
        let validate = sandbox.run("validate")
        #expect(
            validate.stdout.hasPrefix("workspace: warning[T210]: storage.bucket is not set"),
            "\(validate.stdout)")
    }

    // MARK: - URL templates

    @Test func urlTemplatesKnowPathRawpathBucketAndToken() throws {
        try makeWorkspace()
        sandbox.run("config", "set", "storage.bucket", "gs://my-game.appspot.com")
        let set = sandbox.run(
            "config", "set", "storage.url-template",
            "https://cdn.example.com/{bucket}/{rawpath}?t={token}&p={path}")
        #expect(set.status == 0, "\(set.stderr)")
        let exported = sandbox.run("export", "--layout", "flatirongo")
        #expect(exported.status == 0, "\(exported.stderr)")
        let token = try #require(
            try StorageTokens.token(
                of: "treasures/a/full-00000001.png", in: Workspace(path: sandbox.workspace)))
        #expect(
            exported.stdout.contains(
                "\"https://cdn.example.com/my-game.appspot.com/treasures/a/full-00000001.png?t=\(token)&p=treasures%2Fa%2Ffull-00000001.png\""
            ))
        // Remote images are exported as given, with one note for all of them.
        #expect(exported.stdout.contains("\"imageURL\": \"https://example.com/r.jpg\""))
        #expect(
            exported.stderr.components(separatedBy: "remote images get no renditions").count == 2)
    }

    @Test func anUnknownPlaceholderIsAUsageError() throws {
        let result = sandbox.run(
            "config", "set", "storage.url-template", "https://x/{path}?k={key}")
        #expect(result.status == 2)
        #expect(result.stderr.contains("unknown placeholder {key}"))
        // A template stored before the check is refused where it is read, as a workspace
        // problem: no flag given on this command line is wrong.
        try makeWorkspace()
        try Workspace(path: sandbox.workspace).setSetting(
            "storage.url-template", "https://x/{path}{tokn}")
        let exported = sandbox.run("export", "--layout", "flatirongo")
        #expect(exported.status == 4)
        #expect(exported.stderr.contains("unknown placeholder {tokn}"))
    }

    // MARK: - Tokens and the plan

    @Test func tokensMatchTheManifestDifferPerObjectStayAcrossRunsAndChangeOnlyWhenRotated() throws
    {
        try makeWorkspace()
        sandbox.run("config", "set", "storage.bucket", "my-game.appspot.com")
        #expect(
            sandbox.run("export", "--layout", "flatirongo", "--out", "build/f.json").status == 0)
        let first = try urls(in: "build/f.json")
        #expect(first.count == 3)
        #expect(Set(first.values).count == 3)
        #expect(first.values.allSatisfy { UUID(uuidString: $0) != nil })
        let plan = try manifest("build/f.storage.json")
        for object in plan.objects {
            #expect(object.metadata["firebaseStorageDownloadTokens"] == first[object.path])
        }
        // One object a line; a plan that lists none still closes its array on a line.
        let listed = try String(
            contentsOfFile: sandbox.path("build/f.storage.json"), encoding: .utf8)
        #expect(listed.contains("\"objects\": [\n    {\"contentType\": "))
        #expect(listed.components(separatedBy: "\"},\n    {\"contentType\": ").count == 3)
        #expect(listed.hasSuffix("\"state\": \"new\"}\n  ],\n  \"delete\": []\n}\n"))
        #expect(
            sandbox.run("export", "--layout", "flatirongo", "--out", "build/f.json").status == 0)
        #expect(try urls(in: "build/f.json") == first)
        let none = try String(contentsOfFile: sandbox.path("build/f.storage.json"), encoding: .utf8)
        #expect(none.hasSuffix("\"objects\": [\n  ],\n  \"delete\": []\n}\n"))

        let rotated = sandbox.run("storage", "rotate", "treasures/a/full-00000001.png")
        #expect(rotated.status == 0, "\(rotated.stderr)")
        #expect(
            sandbox.run("export", "--layout", "flatirongo", "--out", "build/f.json").status == 0)
        let after = try urls(in: "build/f.json")
        #expect(after["treasures/a/full-00000001.png"] != first["treasures/a/full-00000001.png"])
        #expect(
            after.filter { $0.key != "treasures/a/full-00000001.png" }
                == first.filter { $0.key != "treasures/a/full-00000001.png" })
        let replanned = try manifest("build/f.storage.json")
        // Only what changes is listed, unless every object is asked for.
        #expect(replanned.objects.map(\.state) == ["rotated"])
        #expect(
            sandbox.run(
                "export", "--layout", "flatirongo", "--out", "build/f.json", "--all-objects"
            ).status == 0)
        #expect(
            try manifest("build/f.storage.json").objects.map(\.state)
                == ["unchanged", "unchanged", "unchanged"])

        let unknown = sandbox.run("storage", "rotate", "treasures/nope.png")
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("no stored object for 'treasures/nope.png'"))
    }

    /// `--all` rotates what is live, not every rendition: nothing before any export or
    /// publish, then exactly the objects the recorded export references.
    @Test func rotateAllRotatesOnlyTheObjectsThatAreLive() throws {
        try makeWorkspace()
        sandbox.run("config", "set", "storage.bucket", "my-game.appspot.com")
        for _ in 0..<2 {
            let nothing = sandbox.run("storage", "rotate", "--all")
            #expect(nothing.status == 0, "\(nothing.stderr)")
            #expect(nothing.stdout.isEmpty)
            #expect(nothing.stderr.contains("rotated 0 tokens: no live object to rotate"))
        }
        #expect(
            sandbox.run("export", "--layout", "flatirongo", "--out", "build/f.json").status == 0)
        let exported = try urls(in: "build/f.json")
        for _ in 0..<2 {
            let rotated = sandbox.run("storage", "rotate", "--all")
            #expect(rotated.status == 0, "\(rotated.stderr)")
            #expect(
                rotated.stdout.split(separator: "\n").map(String.init) == exported.keys.sorted())
            #expect(rotated.stderr.contains("rotated 3 tokens; run trove export"))
        }
    }

    @Test func thePlanUploadsExactlyWhatTheURLsReferenceAndDeletesWhatIsGone() throws {
        try makeWorkspace()
        sandbox.run("config", "set", "storage.bucket", "my-game.appspot.com")
        #expect(
            sandbox.run("export", "--layout", "trashmapper", "--out", "build/t.json").status == 0)
        #expect(
            sandbox.run("export", "--layout", "flatirongo", "--out", "build/f.json").status == 0)
        let posts = try manifest("build/t.storage.json")
        #expect(posts.objects.map(\.path) == Array(try urls(in: "build/t.json").keys))
        #expect(posts.objects.map(\.path) == ["posts/ok/full-1111.jpg"])
        let treasures = try manifest("build/f.storage.json")
        #expect(Set(treasures.objects.map(\.path)) == Set(try urls(in: "build/f.json").keys))
        #expect(treasures.objects.map(\.contentType) == ["image/png", "image/jpeg", "image/png"])
        #expect(treasures.delete == [])

        // A removed treasure and a post that is no longer approved leave the next plans.
        #expect(sandbox.run("treasures", "rm", "gone").status == 0)
        #expect(
            sandbox.run("review", "flag", "ok", "--note", "second look", "--force").status
                == 0)
        #expect(
            sandbox.run("export", "--layout", "flatirongo", "--out", "build/f.json").status == 0)
        #expect(
            sandbox.run("export", "--layout", "trashmapper", "--out", "build/t.json").status == 0)
        let later = try manifest("build/f.storage.json")
        #expect(later.objects.isEmpty)
        #expect(later.delete == ["treasures/gone/full-00000004.png"])
        #expect(try manifest("build/t.storage.json").delete == ["posts/ok/full-1111.jpg"])
        #expect(try manifest("build/t.storage.json").objects.isEmpty)
    }

    /// The plan merges the objects, read in path order, with the treasures they belong to;
    /// paths that do not follow the treasures' keys, renditions of an image a treasure no
    /// longer has and renditions of no treasure are planned as a lookup per object would.
    @Test func thePlanHoldsTheCurrentRenditionsWhateverOrderTheirPathsTake() throws {
        sandbox.run("config", "set", "storage.bucket", "my-game.appspot.com")
        let fixture = try Workspace(path: sandbox.workspace).fixture
        // (key, path, image now): in path order `-` sorts before `/`, `/` before `0`, so
        // the keys come as z, old, a-b, a, a0, ghost, zy, zz, zzz.
        let remote = "https://example.com/now.jpg"
        let renditions: [(String, String, String?)] = [
            ("z", "treasures/0z/full.png", "/art/z.png"),
            ("old", "treasures/a-a/full.png", remote),
            ("a-b", "treasures/a-b/full.png", "/art/a-b.png"),
            ("a", "treasures/a/full.png", "/art/a.png"),
            ("a0", "treasures/a0/full.png", "/art/a0.png"),
            ("ghost", "treasures/ghost/full.png", nil),
            ("zy", "treasures/zy/full.png", nil),
            ("zz", "treasures/zz/full.png", remote),
            ("zzz", "treasures/zzz/full.png", "/art/zzz.png"),
        ]
        for (index, (key, path, image)) in renditions.enumerated() {
            if let image {
                try fixture.addTreasure(
                    key, name: key, lat: 40.7 + Double(index) / 100, lon: -74.0, image: image)
            }
            try fixture.setRendition("treasure", key, "full", source: "/art/\(key).png", path: path)
        }
        #expect(sandbox.run("geohash").status == 0)
        let export = sandbox.run("export", "--layout", "flatirongo", "--out", "build/f.json")
        #expect(export.status == 0, "\(export.stderr)")
        let plan = try manifest("build/f.storage.json")
        #expect(
            plan.objects.map(\.path) == [
                "treasures/0z/full.png", "treasures/a-b/full.png", "treasures/a/full.png",
                "treasures/a0/full.png", "treasures/zzz/full.png",
            ])
        let tokens = try urls(in: "build/f.json")
        #expect(Set(plan.objects.map(\.path)) == Set(tokens.keys))
        #expect(plan.objects.allSatisfy { $0.metadata.values.first == tokens[$0.path] })
    }

    @Test func theScriptRunsGcloudWithEveryPathHeaderAndToken() throws {
        try makeWorkspace()
        sandbox.run("config", "set", "storage.bucket", "gs://my-game.appspot.com")
        #expect(
            sandbox.run("export", "--layout", "flatirongo", "--out", "build/f.json").status == 0)
        // A gcloud stand-in on PATH that records its arguments, one per line.
        let log = sandbox.path("gcloud.log")
        try sandbox.write(
            "bin/gcloud",
            "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done >> '\(log)'\necho --- >> '\(log)'\n"
        )
        try FileManager.default.setAttributes(
            [.posixPermissions: 0o755], ofItemAtPath: sandbox.path("bin/gcloud"))
        func script(_ arguments: String...) throws -> (Int32, [[String]]) {
            try? FileManager.default.removeItem(atPath: log)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = [sandbox.path("build/f.storage.sh")] + arguments
            process.environment = ["PATH": sandbox.path("bin") + ":/usr/bin:/bin"]
            process.currentDirectoryURL = URL(fileURLWithPath: "/")
            try process.run()
            process.waitUntilExit()
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            let calls = text.components(separatedBy: "---\n").dropLast().map {
                $0.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(
                    String.init)
            }
            return (process.terminationStatus, calls)
        }
        let tokens = try urls(in: "build/f.json")
        func upload(_ path: String, _ type: String) -> [String] {
            [
                "storage", "cp", "--content-type=\(type)",
                "--cache-control=public, max-age=31536000, immutable",
                "--custom-metadata=firebaseStorageDownloadTokens=\(tokens[path]!)",
                "images/\(path)",
                "gs://my-game.appspot.com/\(path)",
            ]
        }
        let (status, calls) = try script("upload")
        #expect(status == 0)
        #expect(
            calls == [
                upload("treasures/a/full-00000001.png", "image/png"),
                upload("treasures/b/full-00000001.jpg", "image/jpeg"),
                upload("treasures/gone/full-00000004.png", "image/png"),
            ])
        // Nothing new after a second export; a removed treasure's object is deleted only by
        // the separate delete step.
        #expect(sandbox.run("treasures", "rm", "gone").status == 0)
        #expect(
            sandbox.run("export", "--layout", "flatirongo", "--out", "build/f.json").status == 0)
        #expect(try script("upload").1.isEmpty)
        // This plan lists only what changes: uploading everything needs one that lists it.
        let refused = try script("upload", "--all")
        #expect(refused.0 == 2)
        #expect(refused.1.isEmpty)
        #expect(
            try script("delete").1 == [
                ["storage", "rm", "gs://my-game.appspot.com/treasures/gone/full-00000004.png"]
            ])
        #expect(
            sandbox.run(
                "export", "--layout", "flatirongo", "--out", "build/f.json", "--all-objects"
            ).status == 0)
        #expect(try script("upload").1.isEmpty)
        #expect(try script("upload", "--all").1.count == 2)
        // A rotated token reaches the object's metadata in the upload step.
        sandbox.run("storage", "rotate", "treasure:a")
        #expect(
            sandbox.run("export", "--layout", "flatirongo", "--out", "build/f.json").status == 0)
        let rotated = try urls(in: "build/f.json")["treasures/a/full-00000001.png"]!
        #expect(
            try script("upload").1 == [
                [
                    "storage", "objects", "update",
                    "gs://my-game.appspot.com/treasures/a/full-00000001.png",
                    "--update-custom-metadata=firebaseStorageDownloadTokens=\(rotated)",
                ]
            ])
        #expect(try script("bogus").0 == 2)
    }
}
