import Foundation
import Testing

@testable import TroveBase

@Suite struct ConcurrencyTests {
    private struct Failure: Error, Equatable {}

    @Test func batchesDeliverEveryResultOnceInIndexOrder() throws {
        var seen: [Int] = []
        let done = try parallelBatches(
            count: 1_000, threads: 3, batchSize: 64, interval: 60, { $0 * 2 }
        ) { batch in
            #expect(batch.map(\.index) == batch.map(\.index).sorted())
            #expect(batch.allSatisfy { $0.result == $0.index * 2 })
            seen += batch.map(\.index)
        }
        #expect(done == 1_000)
        #expect(seen.sorted() == Array(0..<1_000))
    }

    @Test func cancelledBatchesDeliverWhatWasStartedAndStop() throws {
        let stop = Cancelled()
        var seen: [Int] = []
        let done = try parallelBatches(
            count: 10_000, threads: 2, batchSize: 10, interval: 60,
            isCancelled: { stop.value },
            { index in
                if index == 100 { stop.set() }
                return index
            }
        ) { batch in
            seen += batch.map(\.index)
        }
        // Item 100 asks to stop; the other thread may have taken a few more by then.
        #expect(done > 100 && done < 10_000)
        #expect(seen.sorted() == Array(0..<done))
    }

    @Test func aFailedDeliveryStopsTheThreadsAndIsThrown() {
        #expect(throws: Failure.self) {
            _ = try parallelBatches(count: 10_000, threads: 2, batchSize: 5, interval: 60, { $0 }) {
                _ in throw Failure()
            }
        }
    }

    @Test func aSharedCacheForgetsTheOldestBeyondItsCapacity() {
        let cache = SharedCache<String, Int>(capacity: 10)
        cache.store(1, for: "a", cost: 4)
        cache.store(2, for: "b", cost: 4)
        cache.store(3, for: "c", cost: 4)
        #expect(cache["a"] == nil)
        #expect(cache["b"] == 2 && cache["c"] == 3)
        cache.store(4, for: "huge", cost: 11)
        #expect(cache["huge"] == nil && cache["c"] == 3)
    }

    @Test func aClosedChannelHandsOutWhatItHoldsThenEnds() throws {
        let channel = BoundedChannel<Int>(capacity: 4)
        let producer = Worker {
            for item in 0..<50 { _ = channel.send(item) }
            channel.close()
        }
        var seen: [Int] = []
        while let item = try channel.next() { seen.append(item) }
        try producer.wait()
        #expect(seen == Array(0..<50))
    }

    @Test func aCancelledChannelStopsItsProducer() throws {
        let channel = BoundedChannel<Int>(capacity: 2)
        let producer = Worker { () -> Int in
            var sent = 0
            while channel.send(sent) { sent += 1 }
            return sent
        }
        #expect(try channel.next() == 0)
        channel.cancel()
        // The producer returns instead of waiting for room forever. It got item 0 out and
        // at most two more into the buffer; how many depends on when it was cancelled.
        #expect((1...3).contains(try producer.wait()))
    }

    @Test func aWorkerGivesBackWhatItsBodyThrewOnEveryWait() {
        let worker = Worker { () throws -> Int in throw Failure() }
        #expect(throws: Failure.self) { try worker.wait() }
        #expect(throws: Failure.self) { try worker.wait() }
    }

    @Test func aSpillFileReadsBackInOrderAndNoFurther() {
        let spill = SpillFile()
        let first: [UInt8] = [1, 2, 3]
        let second: [UInt8] = [4, 5]
        #expect(first.withUnsafeBytes { a in second.withUnsafeBytes { spill.append([a, $0]) } })
        var read = [UInt8](repeating: 0, count: 4)
        let readFour = read.withUnsafeMutableBytes(spill.read)
        #expect(readFour)
        #expect(read == [1, 2, 3, 4])
        #expect(spill.hasUnread)
        // Two bytes asked, one left: nothing is read.
        var two = [UInt8](repeating: 0, count: 2)
        let readTwo = two.withUnsafeMutableBytes(spill.read)
        #expect(!readTwo)
        var one: [UInt8] = [0]
        let readOne = one.withUnsafeMutableBytes(spill.read)
        #expect(readOne)
        #expect(one == [5])
        #expect(!spill.hasUnread)
    }
}

/// A flag set on one thread and read on others.
private final class Cancelled: @unchecked Sendable {
    private let lock = NSLock()
    private var flag = false
    var value: Bool { lock.withLock { flag } }
    func set() { lock.withLock { flag = true } }
}
