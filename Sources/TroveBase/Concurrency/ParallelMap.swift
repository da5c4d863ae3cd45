import Foundation

/// `body(0) … body(count - 1)` on `threads` threads at once, the results in index
/// order. Indexes are handed out one at a time, so a slow item never holds up a whole
/// share; `progress` hears how many are done after each. Threads of their own, not the
/// dispatch pool, so `--jobs N` means N even beyond the core count.
package func parallelMap<Result: Sendable>(
    count: Int, threads: Int, progress: @escaping @Sendable (Int) -> Void = { _ in },
    _ body: @escaping @Sendable (Int) -> Result
) -> [Result] {
    guard count > 0 else { return [] }
    let state = ParallelMapState<Result>(count: count)
    let group = DispatchGroup()
    for _ in 0..<max(1, min(threads, count)) {
        group.enter()
        Thread.detachNewThread {
            while let index = state.take() {
                progress(state.finish(index, with: body(index)))
            }
            group.leave()
        }
    }
    group.wait()
    return state.results.map { $0! }
}

/// The next index to hand out and the results so far, behind one lock.
private final class ParallelMapState<Result: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var next = 0
    private var done = 0
    private(set) var results: [Result?]

    init(count: Int) {
        results = Array(repeating: nil, count: count)
    }

    func take() -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard next < results.count else { return nil }
        next += 1
        return next - 1
    }

    /// Stores a result; returns how many are done.
    func finish(_ index: Int, with result: Result) -> Int {
        lock.lock()
        defer { lock.unlock() }
        results[index] = result
        done += 1
        return done
    }
}

/// `body(0) … body(count - 1)` on `threads` threads at once, the results handed to
/// `deliver` on the calling thread in batches as they finish (each batch by index):
/// whenever `batchSize` are waiting, `interval` seconds after the last batch, and at the
/// end. A command that records each batch in its own transaction keeps what was done when
/// it is killed.
///
/// Once `isCancelled` returns true no further index is handed out: the items under way
/// finish and are delivered. When `deliver` throws, none are handed out either, and the
/// error is thrown once the threads have stopped.
///
/// - Returns: how many items were done (`count` unless cancelled).
package func parallelBatches<Result: Sendable>(
    count: Int, threads: Int, batchSize: Int, interval: TimeInterval,
    isCancelled: @escaping @Sendable () -> Bool = { false },
    progress: @escaping @Sendable (Int) -> Void = { _ in },
    _ body: @escaping @Sendable (Int) -> Result,
    deliver: ([(index: Int, result: Result)]) throws -> Void
) throws -> Int {
    guard count > 0 else { return 0 }
    let state = BatchState<Result>(count: count)
    let workers = max(1, min(threads, count))
    state.running = workers
    for _ in 0..<workers {
        Thread.detachNewThread {
            while let index = state.take(isCancelled: isCancelled) {
                progress(state.finish(index, with: body(index)))
            }
        }
    }
    var last = Date()
    while true {
        let (batch, finished) = state.next(
            batchSize: max(1, batchSize), deadline: last.addingTimeInterval(interval))
        if !batch.isEmpty {
            do {
                try deliver(batch.sorted { $0.index < $1.index })
            } catch {
                state.stop()
                throw error
            }
        }
        last = Date()
        if finished { return state.done }
    }
}

/// The next index, the results not yet delivered and the threads still working, behind
/// one condition.
private final class BatchState<Result: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private let count: Int
    private var handedOut = 0
    private var stopped = false
    private var ready: [(index: Int, result: Result)] = []
    private(set) var done = 0
    var running = 0

    init(count: Int) {
        self.count = count
    }

    /// The next index to work on; nil once all are handed out or the work is stopped (the
    /// thread then ends).
    func take(isCancelled: () -> Bool) -> Int? {
        condition.lock()
        defer { condition.unlock() }
        if !stopped && isCancelled() { stopped = true }
        guard !stopped, handedOut < count else {
            running -= 1
            condition.broadcast()
            return nil
        }
        handedOut += 1
        return handedOut - 1
    }

    /// Stores a result; returns how many are done.
    func finish(_ index: Int, with result: Result) -> Int {
        condition.lock()
        defer { condition.unlock() }
        ready.append((index, result))
        done += 1
        condition.broadcast()
        return done
    }

    /// Waits for `batchSize` results, the deadline or the last thread's end; returns the
    /// results waiting and whether every thread has ended.
    func next(batchSize: Int, deadline: Date) -> ([(index: Int, result: Result)], Bool) {
        condition.lock()
        defer { condition.unlock() }
        while ready.count < batchSize && running > 0 && condition.wait(until: deadline) {}
        let batch = ready
        ready = []
        return (batch, running == 0)
    }

    /// Hands out no more indexes and waits for the threads to end.
    func stop() {
        condition.lock()
        defer { condition.unlock() }
        stopped = true
        while running > 0 { condition.wait() }
    }
}
