import Foundation
import Testing
import TroveHTTP
import TroveKit

@testable import TroveCLI

/// The Realtime Database transports: REST against the local stand-in, firebase-tools
/// through a recording script in its place.
@Suite(
    .enabled(if: DatabaseStandIn.isAvailable, "python3 is not installed (the stand-in needs it)"))
struct DatabaseTransportTests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    /// Quick retries, so a test of them takes milliseconds.
    static var quick: HTTPConfiguration {
        var configuration = HTTPConfiguration()
        configuration.maxAttempts = 3
        configuration.retryDelay = 0.01
        return configuration
    }

    let seed = """
        {"treasures": {"a": {"name": "A"}, "b": {"name": "B"}},
         "geo": {"b": {"g": "u4pru"}}, "config": {"v": 1}}
        """

    let update = Array(
        #"{"treasures/c":{"name":"C"},"treasures/b":null,"geo/b":null,"geo/c/g":"u4prv"}"#.utf8)

    let applied =
        #"{"config":{"v":1},"geo":{"c":{"g":"u4prv"}},"treasures":{"a":{"name":"A"},"c":{"name":"C"}}}"#

    @Test func aMultiPathUpdateIsAppliedAndARepeatChangesNothing() throws {
        let database = try DatabaseStandIn(seed: seed)
        let transport = DatabaseRESTTransport(accessToken: .none, configuration: Self.quick)
        for _ in 0..<2 {
            try transport.update(update, databaseURL: database.url + "/")
            #expect(try database.treeText() == applied)
        }
    }

    @Test func theStandInsEnvironmentChoosesRESTWithoutCredentials() throws {
        let database = try DatabaseStandIn(seed: seed)
        let transport = try Transports.database(CloudEnvironment(reading: database.environment))
        #expect(transport is DatabaseRESTTransport)
        try transport.update(update, databaseURL: database.url)
        #expect(try database.treeText() == applied)
    }

    @Test func a503IsRetriedUntilTheUpdateLands() throws {
        let database = try DatabaseStandIn(seed: seed)
        try database.failNextWrites(status: 503, count: 2)
        let transport = DatabaseRESTTransport(accessToken: .none, configuration: Self.quick)
        try transport.update(update, databaseURL: database.url)
        #expect(try database.treeText() == applied)
        let writes = try database.log().filter { $0["method"] as? String == "PATCH" }
        #expect(writes.map { $0["status"] as? Int } == [503, 503, 204])
    }

    @Test func aDatabaseThatKeepsFailingSaysToPublishLater() throws {
        let database = try DatabaseStandIn(seed: seed)
        try database.failNextWrites(status: 503, count: 5, error: "The database is overloaded")
        let transport = DatabaseRESTTransport(accessToken: .none, configuration: Self.quick)
        #expect {
            try transport.update(update, databaseURL: database.url)
        } throws: { error in
            "\(error)"
                == "cannot update the database \(database.url): HTTP 503: The database is "
                + "overloaded (after 3 attempts); the database kept failing: publish again later "
                + "to carry on"
        }
    }

    @Test func aRefusedUpdateShowsTheDatabasesMessageAndChangesNothing() throws {
        let database = try DatabaseStandIn(seed: seed)
        let transport = DatabaseRESTTransport(accessToken: .none, configuration: Self.quick)
        let overlapping = Array(#"{"treasures/c":{"name":"C"},"treasures":null}"#.utf8)
        #expect {
            try transport.update(overlapping, databaseURL: database.url)
        } throws: { error in
            "\(error)"
                == "cannot update the database \(database.url): HTTP 400: Invalid data; path "
                + "'/treasures' is an ancestor of '/treasures/c' in the same update; the "
                + "database refused the update as sent"
        }
        let before = try DatabaseStandIn(seed: seed).treeText()
        #expect(try database.treeText() == before)
    }

    @Test func theTokenFromGcloudIsSentAndFetchedOnce() throws {
        let database = try DatabaseStandIn(requireToken: "ya29.test", seed: seed)
        let calls = sandbox.path("calls")
        let gcloud = try sandbox.write(
            "gcloud", "#!/bin/sh\necho \"$@\" >> '\(calls)'\necho ya29.test\n")
        chmod(gcloud, 0o755)
        let transport = try Transports.database(
            CloudEnvironment(reading: ["GCLOUD": gcloud, "FIREBASE": ""]))
        #expect(transport is DatabaseRESTTransport)
        try transport.update(update, databaseURL: database.url)
        try transport.update(Array(#"{"config/v":2}"#.utf8), databaseURL: database.url)
        #expect(try String(contentsOfFile: calls, encoding: .utf8) == "auth print-access-token\n")
        #expect(try database.treeText().contains(#""config":{"v":2}"#))
    }

    @Test func storageAndDatabaseShareOneTokenFromGcloud() throws {
        let database = try DatabaseStandIn(requireToken: "ya29.shared")
        let calls = sandbox.path("calls")
        let gcloud = try sandbox.write(
            "gcloud", "#!/bin/sh\necho \"$@\" >> '\(calls)'\necho ya29.shared\n")
        chmod(gcloud, 0o755)
        // The stand-in answers Storage's DELETE with 404, which a delete counts as done.
        let environment = [
            "GCLOUD": gcloud, "FIREBASE": "",
            "CLOUDSDK_API_ENDPOINT_OVERRIDES_STORAGE": database.url,
        ]
        var deleted: [String] = []
        try Transports.storage(CloudEnvironment(reading: environment)).delete(
            ["a.png"], bucket: "b"
        ) {
            deleted.append($0)
        }
        try Transports.database(CloudEnvironment(reading: environment)).update(
            update, databaseURL: database.url)
        #expect(deleted == ["a.png"])
        #expect(try String(contentsOfFile: calls, encoding: .utf8) == "auth print-access-token\n")
        let requests = try database.log()
        #expect(requests.count == 2)
        #expect(requests.allSatisfy { $0["authorized"] as? Bool == true })
    }

    @Test func aRefusedTokenSaysHowToLogIn() throws {
        let database = try DatabaseStandIn(requireToken: "ya29.test")
        let transport = DatabaseRESTTransport(accessToken: .fixed("ya29.old"))
        #expect {
            try transport.update(update, databaseURL: database.url)
        } throws: { error in
            "\(error)".hasPrefix(
                "cannot update the database \(database.url): HTTP 401: Unauthorized request.; "
                    + "the account gcloud is logged in as may not write to it: log in as one "
                    + "that may ('gcloud auth login')")
        }
        #expect(try database.treeText() == "null")
    }

    @Test func anUpdateOverTheSizeLimitIsRefusedWithTheDatabasesWords() throws {
        let database = try DatabaseStandIn(seed: seed, maxRequestBytes: 40)
        let transport = DatabaseRESTTransport(accessToken: .none, configuration: Self.quick)
        #expect {
            try transport.update(update, databaseURL: database.url)
        } throws: { error in
            "\(error)"
                == "cannot update the database \(database.url): HTTP 413: Request payload too large."
        }
        try transport.update(Array(#"{"config/v":3}"#.utf8), databaseURL: database.url)
        #expect(try database.treeText().contains(#""config":{"v":3}"#))
    }

    @Test func aDatabaseURLThatIsNoURLIsRefused() {
        let transport = DatabaseRESTTransport(accessToken: .none)
        #expect {
            try transport.update(update, databaseURL: "demo-default-rtdb.firebaseio.com")
        } throws: { error in
            "\(error)".contains("is not an https:// URL")
        }
    }

    // MARK: - firebase-tools

    /// A `firebase` that records its arguments and the update file's contents, and fails
    /// the first `failures` runs with `message`.
    func firebase(failures: Int = 0, message: String = "Error: HTTP Error: 503") throws -> String {
        let folder = sandbox.path("firebase")
        return try sandbox.write(
            "firebase/firebase",
            """
            #!/bin/sh
            n=$(cat '\(folder)/runs' 2>/dev/null || echo 0); n=$((n + 1)); echo $n > '\(folder)/runs'
            printf '%s\\n' "$@" > '\(folder)/arguments'
            cp "$3" '\(folder)/update.json'
            if [ $n -le \(failures) ]; then echo '\(message)' >&2; exit 2; fi
            """)
    }

    func recorded(_ name: String) throws -> String {
        try String(contentsOfFile: sandbox.path("firebase/\(name)"), encoding: .utf8)
    }

    @Test(arguments: [
        ("https://demo-default-rtdb.firebaseio.com", "demo", "demo-default-rtdb"),
        ("https://legacy-app.firebaseio.com/", "legacy-app", "legacy-app"),
        (
            "https://eu-app-default-rtdb.europe-west1.firebasedatabase.app", "eu-app",
            "eu-app-default-rtdb"
        ),
        ("http://127.0.0.1:9000/?ns=local-default-rtdb", "local", "local-default-rtdb"),
    ])
    func firebaseToolsGetsTheUpdateAsAFileWithTheProjectFromTheURL(
        url: String, project: String, instance: String
    ) throws {
        let command = try firebase()
        chmod(command, 0o755)
        let transport = try Transports.database(CloudEnvironment(reading: ["FIREBASE": command]))
        #expect(transport is FirebaseCLITransport)
        try transport.update(update, databaseURL: url)
        let arguments = try recorded("arguments").split(separator: "\n").map(String.init)
        #expect(arguments.count == 9)
        let file = arguments.count > 2 ? arguments[2] : ""
        #expect(
            arguments == [
                "database:update", "/", file, "--project", project, "--instance", instance,
                "--force", "--non-interactive",
            ])
        #expect(try recorded("update.json") == String(decoding: update, as: UTF8.self))
        #expect(!FileManager.default.fileExists(atPath: file), "the temporary file is left")
    }

    @Test func aFailedFirebaseRunIsTriedAgain() throws {
        let command = try firebase(failures: 1)
        chmod(command, 0o755)
        let transport = FirebaseCLITransport(
            command: command, cloud: CloudEnvironment(), retryDelay: 0.01)
        try transport.update(update, databaseURL: "https://demo-default-rtdb.firebaseio.com")
        #expect(try recorded("runs") == "2\n")
    }

    @Test func aFirebaseLoginProblemIsNotRetriedAndSaysToLogIn() throws {
        let command = try firebase(
            failures: 5, message: "Error: Failed to authenticate, have you run firebase login?")
        chmod(command, 0o755)
        let transport = FirebaseCLITransport(
            command: command, cloud: CloudEnvironment(), retryDelay: 0.01)
        #expect {
            try transport.update(update, databaseURL: "https://demo-default-rtdb.firebaseio.com")
        } throws: { error in
            "\(error)"
                == "cannot update the database https://demo-default-rtdb.firebaseio.com: '"
                + command + " database:update' exited with status 2: Error: Failed to "
                + "authenticate, have you run firebase login?; log in with 'firebase login' as "
                + "an account that may write to project demo"
        }
        #expect(try recorded("runs") == "1\n")
    }

    @Test func aFirebaseThatIsNotInstalledIsNamed() {
        #expect {
            _ = try Transports.database(
                CloudEnvironment(reading: ["FIREBASE": "/nonexistent/firebase"]))
        } throws: { error in
            "\(error)"
                == "FIREBASE names /nonexistent/firebase, which is not installed (install "
                + "firebase-tools, or unset FIREBASE to use the REST API)"
        }
    }
}
