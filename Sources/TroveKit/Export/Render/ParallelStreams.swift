import Foundation
import TroveBase
import TroveSQLite

// Each template streams on its own thread and connection (a `Worker`), sending its
// entries to the merging thread in batches through a `BoundedChannel`. A few batches
// wait in memory; beyond that the producer spills them to an anonymous temporary file
// rather than waiting. Templates write separate parts of the tree, so the merging thread
// often takes all of one stream before any of the next: the later streams work ahead
// through the spill instead of idling, and memory stays bounded. A process that may run
// on one processor only has no idle one to work ahead on: there the merging thread
// advances each stream itself, which saves the threads, the batches and their copies.

/// Entries handed from a producer thread to the merging thread, in compact batches.
struct EntryBatch {
    package var bytes: [UInt8] = []
    /// Per entry, where its path, value and record key end in `bytes`.
    var ends: [Int] = []
    /// Per entry, `valueHash` of its value, computed on the producer's thread.
    var hashes: [UInt64] = []
    package var count: Int { hashes.count }

    package init() {
        bytes.reserveCapacity(Self.capacity * 128)
        ends.reserveCapacity(Self.capacity * 3)
        hashes.reserveCapacity(Self.capacity)
    }

    /// Entries per batch.
    package static let capacity = 1024
}

/// The batches a stream's channel sets aside while the merging thread is busy with
/// other streams.
final class EntrySpill: ChannelOverflow {
    private let file = SpillFile()

    func push(_ batch: EntryBatch) -> Bool {
        let header = [Int64(batch.bytes.count), Int64(batch.ends.count), Int64(batch.hashes.count)]
        return header.withUnsafeBytes { header in
            batch.bytes.withUnsafeBytes { bytes in
                batch.ends.withUnsafeBytes { ends in
                    batch.hashes.withUnsafeBytes { file.append([header, bytes, ends, $0]) }
                }
            }
        }
    }

    /// - Throws: `ExportError.cannotWrite` when the batch cannot be read back.
    func pop() throws -> EntryBatch {
        var header = [Int64](repeating: 0, count: 3)
        var batch = EntryBatch()
        guard header.withUnsafeMutableBytes(file.read) else { throw Self.unreadable }
        batch.bytes = [UInt8](repeating: 0, count: Int(header[0]))
        batch.ends = [Int](repeating: 0, count: Int(header[1]))
        batch.hashes = [UInt64](repeating: 0, count: Int(header[2]))
        guard batch.bytes.withUnsafeMutableBytes(file.read),
            batch.ends.withUnsafeMutableBytes(file.read),
            batch.hashes.withUnsafeMutableBytes(file.read)
        else { throw Self.unreadable }
        return batch
    }

    private static let unreadable = ExportError.cannotWrite(
        path: "a temporary file", reason: "entries set aside there cannot be read back")
}

/// A template stream the merging thread advances itself, in place.
///
/// Only the merging thread touches it, so its stream skips the runtime's exclusivity
/// checks.
final class InlineStream {
    @exclusivity(unchecked) var stream: TemplateStream
    /// The stream's path and value buffers, read without going through the stream.
    package let path: RenderBuffer
    package let value: RenderBuffer

    package init(_ stream: TemplateStream) {
        self.stream = stream
        path = stream.path
        value = stream.value
    }
}

/// A template stream running on its own thread and connection, sending its entries
/// through a channel; or, where no other processor could run it, advanced by the merging
/// thread (`inline`).
final class ParallelStream: @unchecked Sendable {
    private let stream: TemplateStream
    /// Set when the merging thread advances the stream itself.
    let inline: InlineStream?
    /// Kept open while the stream reads from it.
    private let database: Database
    let channel = BoundedChannel<EntryBatch>(
        capacity: 8, overflow: ParallelStream.canWorkAhead ? EntrySpill() : nil)
    private var worker: Worker<TemplateStream.Counts>?
    /// Valid once the stream is done.
    let problems: ExportProblems
    /// What the stream counted; valid once `join` returned.
    private(set) var counts = TemplateStream.Counts()

    /// Whether the process may run on more than one processor, so that a stream can work
    /// ahead: Linux's `Cpus_allowed` mask (which `taskset` and cpusets narrow) has more
    /// than one bit, or cannot be read.
    static let canWorkAhead: Bool = {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") })
        else { return true }
        let processors = line.dropFirst("Cpus_allowed:".count).reduce(0) { count, digit in
            count + (digit.hexDigitValue?.nonzeroBitCount ?? 0)
        }
        return processors != 1
    }()

    package init(stream: TemplateStream, database: Database) {
        self.stream = stream
        self.database = database
        problems = stream.problems
        inline = Self.canWorkAhead ? nil : InlineStream(stream)
    }

    func start() {
        guard inline == nil else { return }
        worker = Worker { [self] in try produce() }
    }

    /// Sends every entry; returns what the stream counted.
    private func produce() throws -> TemplateStream.Counts {
        defer { channel.close() }
        // A local copy: a struct on this thread's stack needs no runtime access checks.
        var stream = self.stream
        var batch = EntryBatch()
        while true {
            try stream.advance()
            if stream.isDone { break }
            stream.path.withUnsafeBufferPointer { batch.bytes.append(contentsOf: $0) }
            batch.ends.append(batch.bytes.count)
            stream.value.withUnsafeBufferPointer { batch.bytes.append(contentsOf: $0) }
            batch.ends.append(batch.bytes.count)
            var key = stream.recordKey
            key.withUTF8 { batch.bytes.append(contentsOf: $0) }
            batch.ends.append(batch.bytes.count)
            batch.hashes.append(stream.value.withUnsafeBufferPointer(valueHash))
            if batch.count == EntryBatch.capacity {
                guard channel.send(batch) else { return stream.counts }
                batch = EntryBatch()
            }
        }
        if batch.count > 0 { _ = channel.send(batch) }
        return stream.counts
    }

    /// Waits for the producer, once its channel is drained.
    ///
    /// - Throws: whatever the producer threw (`SQLiteError`).
    func join() throws {
        if let inline {
            counts = inline.stream.counts
            return
        }
        counts = try worker?.wait() ?? TemplateStream.Counts()
    }

    /// Stops the producer and waits for it, so its connection is free to close.
    func cancel() {
        guard let worker else { return }
        channel.cancel()
        _ = try? worker.wait()
    }
}

/// The merging thread's view of one parallel stream: its current entry, read in place
/// from the batch that holds it.
///
/// Only the merging thread touches a cursor, and never two accesses at once, so its
/// state skips the runtime's exclusivity checks (four an entry, a million entries a
/// template).
final class StreamCursor {
    private let stream: ParallelStream
    private let inline: InlineStream?
    @exclusivity(unchecked) private var batch = EntryBatch()
    @exclusivity(unchecked) private var index = 0
    @exclusivity(unchecked) private var valueRange = 0..<0
    @exclusivity(unchecked) private var keyRange = 0..<0

    @exclusivity(unchecked) private(set) var isDone = false
    /// The current entry's path (copied: paths are compared often). A constant, so that
    /// comparing it takes no reference.
    package let path = RenderBuffer(capacity: 256)
    @exclusivity(unchecked) private(set) var hash: UInt64 = 0

    package init(_ stream: ParallelStream) {
        self.stream = stream
        inline = stream.inline
    }

    /// Copies the current entry's path into `other`.
    func copyPath(into other: RenderBuffer) {
        other.removeAll()
        path.withUnsafeBufferPointer { other.append(contentsOf: $0) }
    }

    /// The current entry's record key.
    var recordKey: String {
        if let inline { return inline.stream.recordKey }
        return String(decoding: batch.bytes[keyRange], as: UTF8.self)
    }

    /// Copies the current entry's record key into `bytes`.
    func copyRecordKey(into bytes: RenderBuffer) {
        bytes.removeAll()
        if inline != nil {
            var key = inline!.stream.recordKey
            key.withUTF8 { bytes.append(contentsOf: $0) }
            return
        }
        batch.bytes.withUnsafeBufferPointer {
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: $0[keyRange]))
        }
    }

    /// Calls `body` with the current entry's path, value and value hash.
    func withEntry<Result>(
        _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>, UInt64) throws -> Result
    ) rethrows -> Result {
        try path.withUnsafeBufferPointer { path in
            // `inline` is read in place rather than bound: binding takes a reference.
            if inline != nil {
                return try inline!.value.withUnsafeBufferPointer { try body(path, $0, hash) }
            }
            return try batch.bytes.withUnsafeBufferPointer {
                try body(path, UnsafeBufferPointer(rebasing: $0[valueRange]), hash)
            }
        }
    }

    /// Moves to the next entry, or sets `isDone`.
    ///
    /// - Throws: whatever the producer threw (`SQLiteError`).
    func advance() throws {
        if inline != nil { return try advanceInline() }
        while index >= batch.count {
            guard let next = try stream.channel.next() else {
                try stream.join()
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
        path.removeAll()
        batch.bytes.withUnsafeBufferPointer {
            path.append(contentsOf: UnsafeBufferPointer(rebasing: $0[start..<pathEnd]))
        }
        index += 1
    }

    private func advanceInline() throws {
        try inline!.stream.advance()
        if inline!.stream.isDone {
            try stream.join()
            isDone = true
            return
        }
        path.removeAll()
        inline!.path.withUnsafeBufferPointer { path.append(contentsOf: $0) }
        hash = inline!.value.withUnsafeBufferPointer(valueHash)
    }
}
