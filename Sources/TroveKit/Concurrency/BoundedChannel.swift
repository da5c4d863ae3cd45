import Foundation

/// A queue between one producing thread and one consuming thread that holds at most
/// `capacity` items, so memory stays flat whatever the input's size: the producer waits
/// while it is full, the consumer while it is empty. The consumer can cancel; the
/// producer then stops at its next `send`.
final class BoundedChannel<Item: Sendable>: @unchecked Sendable {
    private let capacity: Int
    private let condition = NSCondition()
    private var items: [Item] = []
    private var cancelled = false

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Queues `item`, waiting while the queue is full; false once the consumer has
    /// cancelled (the producer should stop).
    func send(_ item: Item) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while items.count >= capacity && !cancelled { condition.wait() }
        if cancelled { return false }
        items.append(item)
        condition.broadcast()
        return true
    }

    /// The next item, waiting while there is none.
    func receive() -> Item {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty { condition.wait() }
        let item = items.removeFirst()  // at most `capacity` items: cheap
        condition.broadcast()
        return item
    }

    /// Tells the producer to stop; the items it queued are dropped.
    func cancel() {
        condition.lock()
        cancelled = true
        items.removeAll()
        condition.broadcast()
        condition.unlock()
    }
}
