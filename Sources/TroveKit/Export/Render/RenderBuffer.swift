import TroveBase

/// Bytes a template renders into, record after record.
///
/// A path and a value take a few dozen appends a record, most of a few bytes; `Array`'s
/// generic `append(contentsOf:)` costs about a hundred instructions a call, here an append
/// is a capacity check and a copy. One thread owns a buffer and reuses it (`removeAll`)
/// for every record, so its state skips the runtime's exclusivity checks.
final class RenderBuffer: JSONOutput {
    @exclusivity(unchecked) private var start: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) private var capacity: Int
    @exclusivity(unchecked) private(set) var count = 0

    package init(capacity: Int = 512) {
        self.capacity = max(capacity, 16)
        start = .allocate(capacity: self.capacity)
    }

    deinit {
        start.deallocate()
    }

    package var isEmpty: Bool { count == 0 }

    /// A copy of the bytes.
    package var bytes: [UInt8] { withUnsafeBufferPointer { Array($0) } }

    func withUnsafeBufferPointer<Result>(
        _ body: (UnsafeBufferPointer<UInt8>) throws -> Result
    ) rethrows -> Result {
        try body(UnsafeBufferPointer(start: start, count: count))
    }

    @inline(__always)
    package func append(_ byte: UInt8) {
        reserve(1)
        start[count] = byte
        count += 1
    }

    @inline(__always)
    package func append(contentsOf bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        (start + count).update(from: base, count: bytes.count)
        count += bytes.count
    }

    package func append(contentsOf bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append(contentsOf: $0) }
    }

    /// Appends the UTF-8 bytes of a literal.
    @inline(__always)
    package func append(_ literal: StaticString) {
        literal.withUTF8Buffer { append(contentsOf: $0) }
    }

    /// Appends `count` spaces (indentation).
    @inline(__always)
    func appendSpaces(_ count: Int) {
        reserve(count)
        (start + self.count).initialize(repeating: 0x20, count: count)
        self.count += count
    }

    func removeLast() {
        precondition(count > 0, "removeLast on an empty buffer")
        count -= 1
    }

    func removeLast(_ n: Int) {
        precondition(n >= 0 && n <= count, "removeLast beyond the buffer")
        count -= n
    }

    func removeAll(keepingCapacity: Bool = true) {
        count = 0
    }

    /// Replaces the bytes with `bytes`.
    func replace(with bytes: [UInt8]) {
        count = 0
        append(contentsOf: bytes)
    }

    func write(_ bytes: UnsafeBufferPointer<UInt8>) { append(contentsOf: bytes) }

    func write(byte: UInt8) { append(byte) }

    @inline(__always)
    private func reserve(_ extra: Int) {
        if count + extra > capacity { grow(extra) }
    }

    @inline(never)
    private func grow(_ extra: Int) {
        capacity = max(capacity * 2, count + extra)
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        grown.update(from: start, count: count)
        start.deallocate()
        start = grown
    }
}
