import Foundation
import Testing
import TroveHTTP

/// TroveHTTP's answers taken as they arrive: server-sent events read in pieces, a response
/// that never ends read through a handler, and a `send` ended from another thread.
@Suite struct HTTPStreamingTests {
    func events(_ pieces: [String], maxDataBytes: Int = 1 << 20) -> [ServerSentEvent] {
        var parser = EventStreamParser(maxDataBytes: maxDataBytes)
        var events: [ServerSentEvent] = []
        for piece in pieces {
            parser.feed(Array(piece.utf8)) {
                events.append($0)
                return true
            }
        }
        return events
    }

    @Test func eventsAreReadWhereverThePiecesEnd() {
        let stream =
            "event: put\ndata: {\"path\":\"/\",\"data\":null}\n\n: a comment\r\n"
            + "event: keep-alive\r\ndata: null\r\n\r\nevent: patch\rdata: {\"a\":\rdata: 1}\r\r"
            + "data: no name\n\n"
        let whole = events([stream])
        #expect(
            whole == [
                ServerSentEvent(name: "put", data: Array(#"{"path":"/","data":null}"#.utf8)),
                ServerSentEvent(name: "keep-alive", data: Array("null".utf8)),
                ServerSentEvent(name: "patch", data: Array("{\"a\":\n1}".utf8)),
                ServerSentEvent(name: "message", data: Array("no name".utf8)),
            ])
        // Byte by byte, and with a CRLF split between two pieces.
        #expect(events(stream.map { String($0) }) == whole)
    }

    @Test func anEventTooLargeKeepsItsStartAndSaysSo() {
        let data = "{\"path\":\"/p1\",\"data\":\"" + String(repeating: "x", count: 5000) + "\"}"
        let found = events(["event: put\n", "data: " + data + "\n", "\n"], maxDataBytes: 100)
        #expect(found.count == 1)
        #expect(found.first?.isTruncated == true)
        #expect(found.first?.data == Array(data.utf8.prefix(100)))
        #expect(
            events(["event: put\ndata: short\n\n"], maxDataBytes: 100).first?.isTruncated == false)
    }

    /// Collects a stream's events on the thread that reads it.
    final class Collector: HTTPResponseHandler, @unchecked Sendable {
        private let lock = NSCondition()
        private var parser = EventStreamParser()
        private(set) var status = 0
        private var names: [String] = []

        func head(_ head: HTTPResponseHead) -> Bool {
            lock.lock()
            status = head.status
            lock.unlock()
            return true
        }

        func body(_ bytes: UnsafeRawBufferPointer) -> Bool {
            parser.feed(bytes) { event in
                lock.lock()
                names.append(event.name)
                lock.broadcast()
                lock.unlock()
                return true
            }
        }

        /// Waits until `count` events arrived; their names.
        func wait(for count: Int) -> [String] {
            lock.lock()
            defer { lock.unlock() }
            let deadline = Date().addingTimeInterval(15)
            while names.count < count, lock.wait(until: deadline) {}
            return names
        }
    }

    /// The reading thread's client, and how its `send` ended.
    final class Ending: @unchecked Sendable {
        private let condition = NSCondition()
        private var interrupter: HTTPInterrupter?
        private var outcome: HTTPOutcome?

        func set(interrupter: HTTPInterrupter) {
            condition.lock()
            self.interrupter = interrupter
            condition.broadcast()
            condition.unlock()
        }

        func set(outcome: HTTPOutcome) {
            condition.lock()
            self.outcome = outcome
            condition.broadcast()
            condition.unlock()
        }

        func interrupt() {
            condition.lock()
            while interrupter == nil { condition.wait() }
            condition.unlock()
            interrupter?.interrupt()
        }

        func waitForOutcome() -> HTTPOutcome? {
            condition.lock()
            defer { condition.unlock() }
            let deadline = Date().addingTimeInterval(15)
            while outcome == nil, condition.wait(until: deadline) {}
            return outcome
        }
    }

    @Test(.enabled(if: DatabaseStandIn.isAvailable))
    func aStreamIsReadAsItArrivesUntilItIsInterrupted() throws {
        let database = try DatabaseStandIn(keepAliveSeconds: 60)
        try database.put(path: "Locations/p1", json: #"{"lat": 1}"#)
        let collector = Collector()
        let ending = Ending()
        let url = database.url + "/Locations.json"
        let reader = Thread {
            let client = HTTPClient()
            ending.set(interrupter: client.interrupter)
            client.send(
                count: 1,
                request: { _ in
                    HTTPRequest(method: "GET", url: url, headers: ["Accept: text/event-stream"])
                },
                handler: { _ in collector }
            ) { _, answer in
                ending.set(outcome: answer)
                return true
            }
        }
        reader.start()
        #expect(collector.wait(for: 1) == ["put"])
        #expect(collector.status == 200)
        try database.put(path: "Locations/p2", json: #"{"lat": 2}"#)
        #expect(collector.wait(for: 2) == ["put", "put"])
        ending.interrupt()
        let final = ending.waitForOutcome()
        #expect(final == .failed(message: "interrupted", attempts: 1))
    }
}
