import Foundation

/// A queue between one producing thread and one consuming thread that holds at most
/// `capacity` items, so memory stays flat whatever the input's size: the producer waits
/// while it is full, the consumer while it is empty. The consumer can cancel; the
/// producer then stops at its next `send`.
///
/// With an `overflow`, a full queue sets further items aside there instead of making the
/// producer wait (the producer waits only when the overflow has no room either), and
/// the consumer takes them back in order: a producer can then work ahead while the
/// consumer is busy elsewhere, without holding its items in memory.
package final class BoundedChannel<Item: Sendable>: @unchecked Sendable {
    private let capacity: Int
    private let condition = NSCondition()
    private var items: [Item] = []
    private var cancelled = false
    private var closed = false
    private let overflow: (any ChannelOverflow<Item>)?
    /// Items in the overflow not yet taken; while there are any, new items go there too,
    /// to keep their order.
    private var overflowed = 0

    package init(capacity: Int, overflow: (any ChannelOverflow<Item>)? = nil) {
        self.capacity = max(1, capacity)
        self.overflow = overflow
    }

    /// Queues `item`, waiting while the queue is full; false once the consumer has
    /// cancelled (the producer should stop).
    package func send(_ item: Item) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if cancelled { return false }
            if overflowed == 0 && items.count < capacity {
                items.append(item)
                break
            }
            if let overflow, overflow.push(item) {
                overflowed += 1
                break
            }
            condition.wait()
        }
        condition.broadcast()
        return true
    }

    /// The next item, waiting while there is none.
    package func receive() -> Item {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty { condition.wait() }
        let item = items.removeFirst()  // at most `capacity` items: cheap
        condition.broadcast()
        return item
    }

    /// The next item, waiting while there is none; nil once the producer has closed the
    /// channel and every item has been taken.
    ///
    /// - Throws: what the overflow throws when an item set aside cannot be read back.
    package func next() throws -> Item? {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty && overflowed == 0 && !closed { condition.wait() }
        if !items.isEmpty {
            condition.broadcast()
            return items.removeFirst()
        }
        if let overflow, overflowed > 0 {
            let item = try overflow.pop()
            overflowed -= 1
            condition.broadcast()
            return item
        }
        return nil
    }

    /// Tells the consumer that no more items come (`next` returns nil after the last).
    package func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    /// Tells the producer to stop; the items it queued are dropped.
    package func cancel() {
        condition.lock()
        cancelled = true
        items.removeAll()
        condition.broadcast()
        condition.unlock()
    }
}

/// Where a `BoundedChannel` sets items aside when it is full, first in first out. Called
/// under the channel's lock, from one thread at a time.
package protocol ChannelOverflow<Item>: AnyObject {
    associatedtype Item
    /// Sets `item` aside; false when there is no room (the producer then waits).
    func push(_ item: Item) -> Bool
    /// The oldest item set aside.
    ///
    /// - Throws: when it cannot be read back.
    func pop() throws -> Item
}
