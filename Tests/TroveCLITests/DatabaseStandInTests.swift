import Foundation
import Testing

/// The stand-in's Swift helpers that later tests lean on: the app's writes, a restart on
/// the same port with the same data, the stream controls. What the stand-in answers is
/// tested by `Tests/Support/test_rtdb_standin.py`.
@Suite(
    .enabled(if: DatabaseStandIn.isAvailable, "python3 is not installed (the stand-in needs it)"))
struct DatabaseStandInTests {
    @Test func theAppsWritesLandAsSent() throws {
        let database = try DatabaseStandIn(seed: #"{"Locations": {"a": {"d": 1}}}"#)
        try database.put(path: "Locations/b", json: #"{"d": 2}"#)
        try database.patch(path: "/Locations/", json: #"{"a/d": 3, "c": {"d": 4}}"#)
        try database.delete(path: "Locations/b")
        #expect(try database.treeText() == #"{"Locations":{"a":{"d":3},"c":{"d":4}}}"#)
        let writes = try database.log().filter { $0["method"] as? String != "GET" }
        #expect(
            writes.map { $0["path"] as? String } == [
                "/Locations/b.json", "/Locations.json", "/Locations/b.json",
            ])
    }

    @Test func aRestartKeepsThePortAndTheData() throws {
        let database = try DatabaseStandIn(requireToken: "ya29.first", seed: #"{"v": 1}"#)
        try database.patch(path: "/", json: #"{"w": 2}"#)
        let url = database.url
        database.stop()
        #expect(throws: ServiceError.self) { try database.tree() }
        try database.start()
        #expect(database.url == url)
        #expect(try database.treeText() == #"{"v":1,"w":2}"#)
        try database.restart()
        #expect(try database.treeText() == #"{"v":1,"w":2}"#)
    }

    @Test func theStreamControlsCountTheStreamsTheyEnd() throws {
        let database = try DatabaseStandIn(requireToken: "ya29.old", keepAliveSeconds: 0.2)
        #expect(try database.sendCancel() == 0)
        #expect(try database.dropStreams(path: "/Locations") == 0)
        #expect(try database.sendAuthRevoked(requireToken: "ya29.new") == 0)
        // Its own requests now send the new token.
        try database.put(path: "v", json: "1")
        #expect(try database.waitForStreams(count: 0) == [])
        #expect(throws: ServiceError.self) { try database.waitForStreams(count: 1, timeout: 0.2) }
        try database.redirectNextStreams()
        #expect(try database.log().last?["status"] as? Int == 204)
    }
}
