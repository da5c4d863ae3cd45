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
