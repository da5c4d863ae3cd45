import Foundation
import TroveBase
import TroveSQLite
import TroveStore

// What a layout last exported, kept compactly for `export --update`: one 64-bit hash of
// each exported path's value, in database order, front-coded in blocks of a few thousand
// paths. A million treasures take a few megabytes and are read and written as a stream.

/// Orders database paths (`a/b/c`, segments joined by `/`) the way the tree is written:
/// segment by segment, each by UTF-8 bytes. Mapping `/` below every other byte gives
/// exactly that order, since no key may contain `/` or control characters.
func comparePaths(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
    let count = min(a.count, b.count)
    var index = 0
    // Shared prefixes are long (`treasureProfiles/t00...`): they are skipped eight bytes
    // at a time, and the first differing byte is found in the differing word.
    if count >= 8, let left = a.baseAddress, let right = b.baseAddress {
        let leftRaw = UnsafeRawPointer(left)
        let rightRaw = UnsafeRawPointer(right)
        while index + 8 <= count {
            let x = UInt64(
                littleEndian: leftRaw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            let y = UInt64(
                littleEndian: rightRaw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            if x != y {
                index += (x ^ y).trailingZeroBitCount / 8
                return orderOfDiffering(a[index], b[index])
            }
            index += 8
        }
    }
    while index < count {
        let left = a[index]
        let right = b[index]
        if left != right { return orderOfDiffering(left, right) }
        index += 1
    }
    return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
}

/// The order of two different bytes of paths: `/` before every other byte.
@inline(__always)
private func orderOfDiffering(_ left: UInt8, _ right: UInt8) -> Int {
    let l = left == UInt8(ascii: "/") ? 0 : Int(left) + 1
    let r = right == UInt8(ascii: "/") ? 0 : Int(right) + 1
    return l < r ? -1 : 1
}

/// `comparePaths` for arrays.
func comparePaths(_ a: [UInt8], _ b: [UInt8]) -> Int {
    a.withUnsafeBufferPointer { left in b.withUnsafeBufferPointer { comparePaths(left, $0) } }
}

/// `comparePaths` for render buffers (the merge loop's).
func comparePaths(_ a: RenderBuffer, _ b: RenderBuffer) -> Int {
    a.withUnsafeBufferPointer { left in b.withUnsafeBufferPointer { comparePaths(left, $0) } }
}

/// `pathOrder` for render buffers (the merge loop's).
func pathOrder(_ previous: RenderBuffer, _ next: RenderBuffer) -> (order: Int, overlaps: Bool) {
    previous.withUnsafeBufferPointer { a in next.withUnsafeBufferPointer { pathOrder(a, $0) } }
}

/// How `next` orders after `previous` (`comparePaths(previous, next)`), and whether
/// `previous` is `next` or one of its ancestors, so that writing both would overlap.
func pathOrder(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>)
    -> (order: Int, overlaps: Bool)
{
    let order = comparePaths(a, b)
    guard order <= 0, a.count <= b.count,
        a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0
    else { return (order, false) }
    return (order, a.count == b.count || b[a.count] == UInt8(ascii: "/"))
}

// MARK: - Reading

/// Streams the recorded (path, hash) pairs of one export in database order.
struct ExportStateReader {
    private var entries: FrontCodedReader
    /// The current path's value hash.
    private(set) var hash: UInt64 = 0

    /// Whether every pair has been read.
    var isAtEnd: Bool { entries.isAtEnd }
    /// The current path; meaningless once `isAtEnd`.
    package var path: [UInt8] { entries.path }

    /// Opens the last recorded state of `layout`; empty when it was never exported.
    ///
    /// - Throws: `SQLiteError`.
    package init(database: Database, layout: String, generation: Int64?) throws {
        try self.init(
            blocks: ExportStore(database).blocks(.paths, layout: layout, generation: generation))
    }

    /// Opens a state whose blocks `nextBlock` returns in order (nil after the last).
    ///
    /// - Throws: `SQLiteError`, `ExportError.damagedState`.
    package init(blocks nextBlock: @escaping () throws -> [UInt8]?) throws {
        entries = FrontCodedReader(damaged: ExportError.damagedState, nextBlock: nextBlock)
        try advance()
    }

    /// Moves to the next pair.
    ///
    /// - Throws: `SQLiteError`, `ExportError.damagedState`.
    mutating func advance() throws {
        try entries.advance()
        if !entries.isAtEnd { hash = try entries.readUInt64() }
    }
}

// MARK: - Writing

/// Appends (path, hash) pairs, in database order, as a new generation of a layout's state.
struct ExportStateWriter {
    /// Entries per block.
    static let entriesPerBlock = 4096
    /// Stores block `seq`.
    private let store: (_ seq: Int64, _ block: [UInt8]) throws -> Void
    private var block = FrontCodedBlock(entriesPerBlock: entriesPerBlock)
    private var sequence: Int64 = 0
    /// Paths appended so far.
    private(set) var count = 0

    /// - Throws: `SQLiteError`.
    package init(database: Database, layout: String, generation: Int64) throws {
        store = try ExportStore(database).blockWriter(
            .paths, layout: layout, generation: generation)
    }

    /// A writer that hands each full block, with its sequence number, to `store`.
    package init(store: @escaping (_ seq: Int64, _ block: [UInt8]) throws -> Void) {
        self.store = store
    }

    /// Records one path and its value's hash.
    ///
    /// - Throws: `SQLiteError`.
    package mutating func append(path: UnsafeBufferPointer<UInt8>, hash: UInt64) throws {
        block.begin(path: path)
        block.writeUInt64(hash)
        count += 1
        if block.isFull { try flush() }
    }

    /// Stores the last partial block.
    ///
    /// - Throws: `SQLiteError`.
    mutating func finish() throws {
        try flush()
    }

    private mutating func flush() throws {
        guard block.entries > 0 else { return }
        try store(sequence, block.bytes)
        sequence += 1
        block.reset()
    }
}
