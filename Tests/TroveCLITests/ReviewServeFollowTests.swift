import Foundation
import Testing
import TroveBase
import TroveHTTP

@_spi(Testing) @testable import TroveKit

/// `trove review serve --follow URL`: the queue kept in step with the app's database while
/// the page is open, through restarts, dropped streams, cancels and revoked credentials.
@Suite struct ReviewServeFollowTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        sandbox.run("init")
    }

    /// Waits until `condition` holds, for at most `seconds`: a bound on failure, not a
    /// pause (the condition is asked again every 50 ms).
    func eventually(
        _ what: String, seconds: Double = 60, _ condition: () throws -> Bool
    ) throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            usleep(50_000)
        }
        Issue.record("not within \(seconds) s: \(what)")
        return false
    }

    func follow(_ client: ServedQueue.Client) throws -> [String: Any] {
        try client.get("/api/changes?since=0").json["follow"] as? [String: Any] ?? [:]
    }

    /// The ids in the queue with their statuses (every status).
    func queue(_ client: ServedQueue.Client) throws -> [String: String] {
        let posts =
            try client.get("/api/queue?status=all&limit=500").json["posts"] as? [[String: Any]]
            ?? []
        var byID: [String: String] = [:]
        for post in posts {
            if let id = post["id"] as? String { byID[id] = post["status"] as? String }
        }
        return byID
    }

    @Test func eventsNameThePostsTheyTouch() {
        func changes(_ name: String, _ data: String, _ shape: LiveLocation.Shape = .flat)
            -> [LocationChange]
        {
            LocationChange.of(ServerSentEvent(name: name, data: Array(data.utf8)), shape: shape)
        }
        #expect(changes("put", #"{"path":"/","data":{"p1":{}}}"#) == [.everything])
        #expect(changes("put", #"{"path":"/p1","data":null}"#) == [.post("p1")])
        #expect(changes("put", #"{"path":"/p1/Date","data":"x"}"#) == [.post("p1")])
        #expect(
            changes("patch", #"{"path":"/","data":{"p1/a":1,"p2":{"b":2},"p1/c":3}}"#)
                == [.post("p1"), .post("p2")])
        #expect(changes("keep-alive", "null").isEmpty)
        #expect(
            changes("put", #"{"path":"/u1/TaggedLocations/a1/Date","data":"x"}"#, .nested)
                == [.taggedPost(user: "u1", field: "TaggedLocations", id: "a1")])
        #expect(changes("put", #"{"path":"/u1","data":{}}"#, .nested) == [.user("u1")])
        #expect(changes("put", #"{"path":"/u1/email","data":"a@b"}"#, .nested).isEmpty)
        // Too large to keep: the path at its start still says which post.
        let truncated = ServerSentEvent(
            name: "put", data: Array(#"{"path":"/p\"9","data":{"description":"xxxx"#.utf8),
            isTruncated: true)
        #expect(LocationChange.of(truncated, shape: .flat) == [.post("p\"9")])
    }

    @Test func streamsFollowRedirectsOnlyToTheDatabasesOwnServers() {
        let home = "https://demo-default-rtdb.firebaseio.com/Locations.json"
        #expect(
            PostFollower.mayFollow(
                from: home, to: "https://s-usc1a-nss-2041.firebaseio.com/Locations.json?ns=demo"))
        #expect(!PostFollower.mayFollow(from: home, to: "https://evil.example/Locations.json"))
        #expect(!PostFollower.mayFollow(from: home, to: "http://x.firebaseio.com/Locations.json"))
        #expect(
            PostFollower.mayFollow(
                from: "http://127.0.0.1:9000/Locations.json",
                to: "http://localhost:9000/Locations.json"))
    }

    @Test(.enabled(if: LiveApp.available, LiveApp.skipReason))
    func theQueueFollowsTheAppThroughRestartsAndDrops() throws {
        let app = try LiveApp(keepAliveSeconds: 0.5)
        try app.upload("p1", seed: 1)
        try app.write("p1", LiveApp.record("p1", photo: LiveApp.downloadURL("photos/p1.jpg")))
        let served = try ServedQueue(
            sandbox, arguments: ["--follow", app.locations], environment: app.environment)
        let ann = try served.signIn(served.addModerator("ann"))
        #expect(
            try eventually("following, p1 in the queue") {
                try follow(ann)["state"] as? String == "following" && queue(ann)["p1"] == "pending"
            })
        let first = try follow(ann)
        #expect(first["url"] as? String == app.locations)
        #expect((first["since"] as? String)?.isEmpty == false)
        #expect(try ann.get("/api/me").json["follow"] as? [String: Any] != nil)

        // The app writes a post while the page is open: its photo comes with it.
        try app.upload("p2", seed: 2)
        try app.write("p2", LiveApp.record("p2", photo: LiveApp.downloadURL("photos/p2.jpg")))
        #expect(try eventually("p2 arrives") { try queue(ann)["p2"] == "pending" })
        #expect(sandbox.photoFiles().count == 2)

        // The database restarts: the follow reconnects and reads the location again.
        try app.database.restart()
        try app.database.waitForStreams(count: 1, timeout: 60)
        #expect(
            try eventually("the whole location read again after the restart") {
                try app.database.log().contains {
                    $0["path"] as? String == "/Locations.json"
                        && ($0["query"] as? [String: String])?["limitToFirst"] != nil
                }
            })
        try app.write("p3", LiveApp.record("p3", description: "after the restart"))
        #expect(
            try eventually("p3 arrives after the restart") { try queue(ann)["p3"] == "pending" })

        // A dropped stream, then a cancel: both reconnect.
        #expect(try app.database.dropStreams() == 1)
        try app.database.waitForStreams(count: 1, timeout: 60)
        try app.database.delete(path: "Locations/p1")
        #expect(try eventually("p1 withdrawn") { try queue(ann)["p1"] == "withdrawn" })
        #expect(try app.database.sendCancel() == 1)
        try app.database.waitForStreams(count: 1, timeout: 60)
        try app.database.patch(path: "Locations/p2", json: #"{"LocationDescription": "cans"}"#)
        #expect(
            try eventually("p2's edit arrives") {
                let post = try ann.get("/api/post?id=p2").json
                return post["description"] as? String == "cans"
            })
        #expect(
            try eventually("following again") { try follow(ann)["state"] as? String == "following" }
        )

        // Sent to another of the database's servers: followed there.
        try app.database.redirectNextStreams(count: 1, host: "localhost")
        #expect(try app.database.dropStreams() == 1)
        try app.write("p4", LiveApp.record("p4", description: "after a redirect"))
        #expect(try eventually("p4 arrives after a redirect") { try queue(ann)["p4"] == "pending" })
        let streams = try app.database.log().filter { $0["stream"] as? Bool == true }
        #expect(streams.map { $0["status"] as? Int }.suffix(2) == [307, 200])

        let stopped = served.stop()
        #expect(stopped.status == 0)
        #expect(stopped.stderr.contains("stopped; every accepted decision is in the workspace"))
    }

    @Test(.enabled(if: LiveApp.available, LiveApp.skipReason))
    func revokedCredentialsAreRenewedAndRepeatedRefusalsStopTheFollow() throws {
        let app = try LiveApp(requireToken: "token-1", keepAliveSeconds: 0.5)
        try app.database.put(path: "Locations/p1", json: LiveApp.json(LiveApp.record("p1")))
        // gcloud as a script that prints whatever token the file holds now.
        let tokenFile = try sandbox.write("token", "token-1\n")
        let gcloud = try sandbox.write("gcloud", "#!/bin/sh\ncat '\(tokenFile)'\n")
        chmod(gcloud, 0o755)
        var environment = app.storage.environment
        environment["CLOUDSDK_AUTH_DISABLE_CREDENTIALS"] = nil
        environment["GCLOUD"] = gcloud
        environment["FIREBASE"] = ""
        let served = try ServedQueue(
            sandbox, arguments: ["--follow", app.locations], environment: environment)
        let ann = try served.signIn(served.addModerator("ann"))
        #expect(
            try eventually("following") {
                try follow(ann)["state"] as? String == "following" && queue(ann)["p1"] != nil
            })

        // The token expires: the follow asks gcloud again and goes on.
        try sandbox.write("token", "token-2\n")
        #expect(try app.database.sendAuthRevoked(requireToken: "token-2") == 1)
        try app.database.waitForStreams(count: 1, timeout: 60)
        try app.database.put(path: "Locations/p2", json: LiveApp.json(LiveApp.record("p2")))
        #expect(try eventually("p2 arrives with the new token") { try queue(ann)["p2"] != nil })

        // Revoked again, and gcloud has nothing better: refused until the follow gives up,
        // the queue still served.
        #expect(try app.database.sendAuthRevoked(requireToken: "token-3") == 1)
        #expect(
            try eventually("the follow stops") {
                try follow(ann)["state"] as? String == "stopped"
            })
        let message = try follow(ann)["message"] as? String ?? ""
        #expect(message.contains("refusals in a row"))
        #expect(message.contains("401"))
        #expect(try queue(ann).keys.sorted() == ["p1", "p2"])
        let stopped = served.stop()
        #expect(stopped.stderr.contains("stopped following \(app.locations)"))
    }

    @Test(.enabled(if: LiveApp.available && Chromium.path != nil, LiveApp.skipReason))
    func thePageSaysItIsFollowing() throws {
        let chromium = try #require(Chromium.path)
        let app = try LiveApp(keepAliveSeconds: 0.5)
        try app.write("p1", LiveApp.record("p1"))
        let served = try ServedQueue(
            sandbox, arguments: ["--follow", app.locations], environment: app.environment)
        Chromium.oneAtATime.lock()
        defer { Chromium.oneAtATime.unlock() }
        let browser = try BrowserSession(chromium: chromium)
        _ = try browser.openIsolated(served.addModerator("ann"))
        let line = "document.getElementById('follow-status')"
        #expect(
            try eventually("the page says it follows") {
                let text = try browser.evaluate("\(line) && !\(line).hidden && \(line).textContent")
                return (text as? String)?.hasPrefix("following the database since ") == true
            })
        try app.write("p2", LiveApp.record("p2"))
        #expect(
            try eventually("the page counts the post that came in") {
                let text = try browser.evaluate("\(line).textContent") as? String
                return text?.contains("1 posts in since start") == true
            })
        #expect(
            try browser.evaluate("\(line).title") as? String == app.locations)
    }
}
