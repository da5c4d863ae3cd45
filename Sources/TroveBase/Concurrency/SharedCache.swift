import Foundation

/// A dictionary shared by worker threads that holds at most `capacity` worth of values
/// (each value's cost as its maker says), forgetting the oldest first: what a run learns
/// of a file once, kept for the other records that name it, in bounded memory.
package final class SharedCache<Key: Hashable & Sendable, Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private let capacity: Int
    private var values: [Key: (value: Value, cost: Int)] = [:]
    /// Keys in the order they came, from `oldest` on.
    private var order: [Key] = []
    private var oldest = 0
    private var total = 0

    /// - Parameter capacity: the most the values may cost together.
    package init(capacity: Int) {
        self.capacity = capacity
    }

    /// The value stored under `key`, if it is still held.
    package subscript(key: Key) -> Value? {
        lock.withLock { values[key]?.value }
    }

    /// Stores `value` under `key`, unless it alone costs more than the capacity; forgets
    /// the oldest values until the rest fit.
    package func store(_ value: Value, for key: Key, cost: Int = 1) {
        guard cost <= capacity else { return }
        lock.withLock {
            if let old = values.updateValue((value, cost), forKey: key) {
                total -= old.cost
            } else {
                order.append(key)
            }
            total += cost
            while total > capacity, oldest < order.count {
                let key = order[oldest]
                oldest += 1
                if let gone = values.removeValue(forKey: key) { total -= gone.cost }
            }
            if oldest > 1024 && oldest * 2 > order.count {
                order.removeFirst(oldest)
                oldest = 0
            }
        }
    }
}
