/// Entries given in path order, packed into blocks: each entry's path as the length it
/// shares with the path before it and the rest (front coding, restarted in every block),
/// then the entry's own bytes. The export's recorded state and the Storage plan both keep
/// a million sorted paths this way.
struct FrontCodedBlock {
    private(set) var bytes: [UInt8] = []
    private(set) var entries = 0
    private var previous: [UInt8] = []
    let entriesPerBlock: Int

    init(entriesPerBlock: Int) {
        self.entriesPerBlock = entriesPerBlock
    }

    /// Starts an entry with its path; its own bytes follow with `writeVarint`/`write`.
    mutating func begin(path: UnsafeBufferPointer<UInt8>) {
        var shared = 0
        if entries > 0 {
            let limit = min(previous.count, path.count)
            while shared < limit && previous[shared] == path[shared] { shared += 1 }
        }
        writeVarint(shared)
        writeVarint(path.count - shared)
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: path[shared...]))
        previous.removeAll(keepingCapacity: true)
        previous.append(contentsOf: path)
        entries += 1
    }

    mutating func write(_ data: some Sequence<UInt8>) {
        bytes.append(contentsOf: data)
    }

    mutating func writeVarint(_ value: Int) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// Whether the block holds as many entries as it should.
    var isFull: Bool { entries == entriesPerBlock }

    /// Empties the block for the next entries, once it has been stored.
    mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        entries = 0
    }
}
