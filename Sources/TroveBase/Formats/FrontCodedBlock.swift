/// Entries given in path order, packed into blocks: each entry's path as the length it
/// shares with the path before it and the rest (front coding, restarted in every block),
/// then the entry's own bytes. The export's recorded state and the Storage plan both keep
/// a million sorted paths this way.
package struct FrontCodedBlock {
    package private(set) var bytes: [UInt8] = []
    package private(set) var entries = 0
    private var previous: [UInt8] = []
    package let entriesPerBlock: Int

    package init(entriesPerBlock: Int) {
        self.entriesPerBlock = entriesPerBlock
    }

    /// Starts an entry with its path; its own bytes follow with `writeVarint`/`write`.
    package mutating func begin(path: UnsafeBufferPointer<UInt8>) {
        let shared = entries > 0 ? previous.withUnsafeBufferPointer { sharedPrefix($0, path) } : 0
        writeVarint(shared)
        writeVarint(path.count - shared)
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: path[shared...]))
        previous.removeAll(keepingCapacity: true)
        previous.append(contentsOf: path)
        entries += 1
    }

    /// The length of the prefix `a` and `b` share; sorted paths share long ones, compared
    /// eight bytes at a time.
    private func sharedPrefix(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>)
        -> Int
    {
        let limit = min(a.count, b.count)
        guard limit > 0, let left = a.baseAddress, let right = b.baseAddress else { return 0 }
        var shared = 0
        while shared + 8 <= limit {
            let x = UnsafeRawPointer(left).loadUnaligned(fromByteOffset: shared, as: UInt64.self)
            let y = UnsafeRawPointer(right).loadUnaligned(fromByteOffset: shared, as: UInt64.self)
            if x != y {
                return shared + (UInt64(littleEndian: x) ^ UInt64(littleEndian: y))
                    .trailingZeroBitCount / 8
            }
            shared += 8
        }
        while shared < limit && left[shared] == right[shared] { shared += 1 }
        return shared
    }

    package mutating func write(_ data: some Sequence<UInt8>) {
        bytes.append(contentsOf: data)
    }

    /// `write` for bytes in place: the generic one is not specialized across modules, and
    /// the state and the plan write a few hundred thousand entries a run.
    package mutating func write(_ data: UnsafeBufferPointer<UInt8>) {
        bytes.append(contentsOf: data)
    }

    /// Writes `value` as eight little-endian bytes.
    package mutating func writeUInt64(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) {
            bytes.append(contentsOf: $0.assumingMemoryBound(to: UInt8.self))
        }
    }

    package mutating func writeVarint(_ value: Int) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// Whether the block holds as many entries as it should.
    package var isFull: Bool { entries == entriesPerBlock }

    /// Empties the block for the next entries, once it has been stored.
    package mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        entries = 0
    }
}

/// Reads back, in order, the entries `FrontCodedBlock` packed: each entry's path, then
/// its own bytes through `readVarint`, `readBytes` and `readUInt64`. Blocks come from
/// `nextBlock` as the one before is used up; the export's recorded state and the Storage
/// plan read theirs from SQLite rows.
package struct FrontCodedReader {
    private let nextBlock: () throws -> [UInt8]?
    /// Thrown when a block does not decode.
    private let damaged: any Error
    private var block: [UInt8] = []
    private var offset = 0
    /// Whether every entry has been read.
    package private(set) var isAtEnd = false
    /// The current entry's path; meaningless once `isAtEnd`.
    package private(set) var path: [UInt8] = []

    /// - Parameters:
    ///   - damaged: what to throw when a block does not decode.
    ///   - nextBlock: the next block, nil after the last.
    package init(damaged: any Error, nextBlock: @escaping () throws -> [UInt8]?) {
        self.damaged = damaged
        self.nextBlock = nextBlock
    }

    /// Reads the entries of one block on its own.
    package init(block: [UInt8], damaged: any Error) {
        var given = false
        self.init(damaged: damaged) {
            defer { given = true }
            return given ? nil : block
        }
    }

    /// Moves to the next entry and reads its path, or sets `isAtEnd`.
    ///
    /// - Throws: `damaged`, or what `nextBlock` throws.
    package mutating func advance() throws {
        guard !isAtEnd else { return }
        while offset >= block.count {
            guard let next = try nextBlock() else {
                isAtEnd = true
                return
            }
            block = next
            offset = 0
            path.removeAll(keepingCapacity: true)
        }
        let shared = try readVarint()
        let suffix = try readVarint()
        guard shared <= path.count, offset + suffix <= block.count else { throw damaged }
        path.removeLast(path.count - shared)
        path.append(contentsOf: block[offset..<offset + suffix])
        offset += suffix
    }

    /// - Throws: `damaged`.
    package mutating func readVarint() throws -> Int {
        var value = 0
        var shift = 0
        while true {
            guard offset < block.count, shift < 63 else { throw damaged }
            let byte = block[offset]
            offset += 1
            value |= Int(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
    }

    /// The next `count` bytes of the current entry.
    ///
    /// - Throws: `damaged`.
    package mutating func readBytes(_ count: Int) throws -> ArraySlice<UInt8> {
        guard count >= 0, offset + count <= block.count else { throw damaged }
        defer { offset += count }
        return block[offset..<offset + count]
    }

    /// The next 8 bytes of the current entry, little-endian.
    ///
    /// - Throws: `damaged`.
    package mutating func readUInt64() throws -> UInt64 {
        guard offset + 8 <= block.count else { throw damaged }
        var value: UInt64 = 0
        for index in 0..<8 { value |= UInt64(block[offset + index]) << (8 * UInt64(index)) }
        offset += 8
        return value
    }
}
