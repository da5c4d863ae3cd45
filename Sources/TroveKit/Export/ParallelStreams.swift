import Foundation
import TroveSQLite

/// Entries handed from a producer thread to the merging thread, in compact batches.
struct EntryBatch {
    var bytes: [UInt8] = []
    /// Per entry, where its path, value and record key end in `bytes`.
    var ends: [Int] = []
    /// Per entry, `valueHash` of its value, computed on the producer's thread.
    var hashes: [UInt64] = []
    var count: Int { hashes.count }

    init() {
        bytes.reserveCapacity(Self.capacity * 128)
        ends.reserveCapacity(Self.capacity * 3)
        hashes.reserveCapacity(Self.capacity)
    }

    /// Entries per batch.
    static let capacity = 1024
}

/// A queue of batches between one producer and one consumer.
///
/// A few batches wait in memory; beyond that the producer spills them to an anonymous
/// temporary file rather than waiting. Templates write separate parts of the tree, so the
/// merging thread often takes all of one stream before any of the next: the later
/// streams work ahead through the spill instead of idling, and memory stays bounded.
final class EntryChannel: @unchecked Sendable {
    private let condition = NSCondition()
    private var batches: [EntryBatch] = []
    private var finished = false
    private var cancelled = false
    private var failure: Error?
    private(set) var recordCount = 0
    private static let capacity = 8
    private var spill: SpillFile?
    /// Batches in the spill file not yet taken; while there are any, new batches go there
    /// too, to keep their order.
    private var spilled = 0

    /// Queues `batch`; false once the consumer has cancelled.
    func push(_ batch: EntryBatch) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if cancelled { return false }
            if spilled == 0 && batches.count < Self.capacity {
                batches.append(batch)
                break
            }
            if spill == nil { spill = SpillFile() }
            if let spill, spill.write(batch) {
                spilled += 1
                break
            }
            // No room on disk either: wait for the consumer as a bounded queue would.
            condition.wait()
        }
        condition.broadcast()
        return true
    }

    func finish(recordCount: Int, failure: Error?) {
        condition.lock()
        self.recordCount = recordCount
        self.failure = failure
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    /// The next batch; nil at the end.
    ///
    /// - Throws: whatever the producer threw.
    func pop() throws -> EntryBatch? {
        condition.lock()
        defer { condition.unlock() }
        while batches.isEmpty && spilled == 0 && !finished { condition.wait() }
        if !batches.isEmpty {
            condition.broadcast()
            return batches.removeFirst()
        }
        if spilled > 0 {
            guard let batch = spill?.read() else {
                throw ExportError.cannotWrite(
                    path: "a temporary file", reason: "entries set aside there cannot be read back")
            }
            spilled -= 1
            condition.broadcast()
            return batch
        }
        if let failure { throw failure }
        return nil
    }

    /// Waits until the producer has stopped.
    func waitUntilFinished() {
        condition.lock()
        while !finished { condition.wait() }
        condition.unlock()
    }

    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }
}

/// Batches written to and read back from an anonymous temporary file, first in first out.
final class SpillFile {
    private let file: UnsafeMutablePointer<FILE>?
    private var writeOffset: off_t = 0
    private var readOffset: off_t = 0

    /// Opens a file that disappears when closed (or when the process ends).
    init() {
        file = tmpfile()
    }

    deinit {
        if let file { fclose(file) }
    }

    /// Appends `batch`; false when it could not be written.
    func write(_ batch: EntryBatch) -> Bool {
        guard let file else { return false }
        let descriptor = fileno(file)
        let header = [Int64(batch.bytes.count), Int64(batch.ends.count), Int64(batch.hashes.count)]
        var offset = writeOffset
        func put(_ raw: UnsafeRawBufferPointer) -> Bool {
            defer { offset += off_t(raw.count) }
            return Self.transferAll(raw.count) {
                pwrite(descriptor, raw.baseAddress! + $0, raw.count - $0, offset + off_t($0))
            }
        }
        guard header.withUnsafeBytes(put), batch.bytes.withUnsafeBytes(put),
            batch.ends.withUnsafeBytes(put), batch.hashes.withUnsafeBytes(put)
        else { return false }
        writeOffset = offset
        return true
    }

    /// The oldest batch not yet read; nil when the file cannot be read back.
    func read() -> EntryBatch? {
        guard let file else { return nil }
        let descriptor = fileno(file)
        var offset = readOffset
        func get(_ raw: UnsafeMutableRawBufferPointer) -> Bool {
            defer { offset += off_t(raw.count) }
            return Self.transferAll(raw.count) {
                pread(descriptor, raw.baseAddress! + $0, raw.count - $0, offset + off_t($0))
            }
        }
        var header = [Int64](repeating: 0, count: 3)
        guard header.withUnsafeMutableBytes(get) else { return nil }
        var batch = EntryBatch()
        batch.bytes = [UInt8](repeating: 0, count: Int(header[0]))
        batch.ends = [Int](repeating: 0, count: Int(header[1]))
        batch.hashes = [UInt64](repeating: 0, count: Int(header[2]))
        guard batch.bytes.withUnsafeMutableBytes(get), batch.ends.withUnsafeMutableBytes(get),
            batch.hashes.withUnsafeMutableBytes(get)
        else { return nil }
        readOffset = offset
        return batch
    }

    /// Calls `move` (a `pread` or `pwrite` given the bytes done so far) until `count` bytes
    /// are done; false on an error or the end of the file.
    private static func transferAll(_ count: Int, _ move: (Int) -> Int) -> Bool {
        var done = 0
        while done < count {
            let moved = move(done)
            if moved < 0 && errno == EINTR { continue }
            if moved <= 0 { return false }
            done += moved
        }
        return true
    }
}

/// A template stream running on its own thread and connection, sending its entries
/// through a channel.
final class ParallelStream: @unchecked Sendable {
    private let stream: TemplateStream
    private let database: Database
    private let problemsOfStream: ExportProblems
    let channel = EntryChannel()
    private var started = false

    var recordCount: Int { channel.recordCount }
    /// Valid once the stream is done.
    var problems: ExportProblems { problemsOfStream }

    init(stream: TemplateStream, database: Database) {
        self.stream = stream
        self.database = database
        problemsOfStream = stream.problems
    }

    func start() {
        started = true
        let thread = Thread { [self] in produce() }
        thread.stackSize = 1 << 22
        thread.start()
    }

    private func produce() {
        // A local copy: a struct on this thread's stack needs no runtime access checks.
        var stream = self.stream
        var batch = EntryBatch()
        do {
            while true {
                try stream.advance()
                if stream.isDone { break }
                batch.bytes.append(contentsOf: stream.path)
                batch.ends.append(batch.bytes.count)
                batch.bytes.append(contentsOf: stream.value)
                batch.ends.append(batch.bytes.count)
                batch.bytes.append(contentsOf: stream.recordKey.utf8)
                batch.ends.append(batch.bytes.count)
                batch.hashes.append(stream.value.withUnsafeBufferPointer(valueHash))
                if batch.count == EntryBatch.capacity {
                    guard channel.push(batch) else { break }
                    batch = EntryBatch()
                }
            }
            if batch.count > 0 { _ = channel.push(batch) }
            channel.finish(recordCount: stream.recordCount, failure: nil)
        } catch {
            channel.finish(recordCount: stream.recordCount, failure: error)
        }
    }

    /// Stops the producer and waits for it, so its connection is free to close.
    func cancel() {
        guard started else { return }
        channel.cancel()
        channel.waitUntilFinished()
    }
}

/// The merging thread's view of one parallel stream: its current entry, read in place
/// from the batch that holds it.
final class StreamCursor {
    private let channel: EntryChannel
    private var batch = EntryBatch()
    private var index = 0
    private var valueRange = 0..<0
    private var keyRange = 0..<0

    private(set) var isDone = false
    /// The current entry's path (copied: paths are compared often).
    private(set) var path: [UInt8] = []
    private(set) var hash: UInt64 = 0

    init(_ stream: ParallelStream) {
        channel = stream.channel
    }

    /// Swaps the current entry's path buffer with `other`; the path is refilled by
    /// `advance`.
    func exchangePath(with other: inout [UInt8]) {
        swap(&path, &other)
    }

    /// The current entry's record key.
    var recordKey: String { String(decoding: batch.bytes[keyRange], as: UTF8.self) }

    /// Copies the current entry's record key into `bytes`.
    func copyRecordKey(into bytes: inout [UInt8]) {
        bytes.removeAll(keepingCapacity: true)
        batch.bytes.withUnsafeBufferPointer {
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: $0[keyRange]))
        }
    }

    /// Calls `body` with the current entry's path, value and value hash.
    func withEntry<Result>(
        _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>, UInt64) throws -> Result
    ) rethrows -> Result {
        try path.withUnsafeBufferPointer { path in
            try batch.bytes.withUnsafeBufferPointer {
                try body(path, UnsafeBufferPointer(rebasing: $0[valueRange]), hash)
            }
        }
    }

    /// Moves to the next entry, or sets `isDone`.
    ///
    /// - Throws: whatever the producer threw (`SQLiteError`).
    func advance() throws {
        while index >= batch.count {
            guard let next = try channel.pop() else {
                isDone = true
                return
            }
            batch = next
            index = 0
        }
        let start = index == 0 ? 0 : batch.ends[index * 3 - 1]
        let pathEnd = batch.ends[index * 3]
        let valueEnd = batch.ends[index * 3 + 1]
        valueRange = pathEnd..<valueEnd
        keyRange = valueEnd..<batch.ends[index * 3 + 2]
        hash = batch.hashes[index]
        path.removeAll(keepingCapacity: true)
        batch.bytes.withUnsafeBufferPointer {
            path.append(contentsOf: UnsafeBufferPointer(rebasing: $0[start..<pathEnd]))
        }
        index += 1
    }
}
