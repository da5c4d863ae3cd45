import Foundation

/// `body` on a thread of its own, started at once; `wait` returns what it returned or
/// throws what it threw. A thread rather than the dispatch pool: the export's readers
/// block on SQLite for their whole run, one connection each, and need a deeper stack
/// than a pool thread's for deeply nested records.
package final class Worker<Value: Sendable>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var outcome: Result<Value, any Error>?
    /// Set by the waiting thread only, so that a second `wait` does not block.
    private var joined = false

    package init(stackSize: Int = 1 << 22, _ body: @escaping @Sendable () throws -> Value) {
        let thread = Thread { [self] in
            do {
                outcome = .success(try body())
            } catch {
                outcome = .failure(error)
            }
            done.signal()
        }
        thread.stackSize = stackSize
        thread.start()
    }

    /// Waits until `body` has returned; its value.
    ///
    /// - Throws: what `body` threw.
    package func wait() throws -> Value {
        if !joined {
            done.wait()
            joined = true
        }
        return try outcome!.get()
    }
}
