import Foundation
import TroveBase

/// Findings put in compiler order (by file, then line or feature, findings at one place in
/// the order they were found) in bounded memory, whatever their number.
///
/// Files rank in the order their first record or finding arrives (`register(file:)`). A
/// full chunk is sorted and spilled to an anonymous temporary file; reading merges the
/// sorted runs. Memory is one chunk plus a small buffer per run, so a million findings
/// cost what a thousand do. When the temporary folder takes no more, runs stay in memory.
final class OrderedFindings {
    /// Where a finding goes in the order.
    private struct SortKey: Comparable {
        var file: Int32
        var place: Int
        /// Findings about a file as read come before the checks of its records.
        var phase: UInt8
        var sequence: Int

        static func < (lhs: SortKey, rhs: SortKey) -> Bool {
            (lhs.file, lhs.place, lhs.phase, lhs.sequence)
                < (rhs.file, rhs.place, rhs.phase, rhs.sequence)
        }
    }

    private struct Entry {
        var key: SortKey
        var finding: Diagnostic
    }

    /// A sorted run: spilled, or kept in memory when it could not be.
    private enum Run {
        case spilled(SpillFile)
        case kept([Entry])
    }

    private let chunkSize: Int
    private var chunk: [Entry] = []
    private var runs: [Run] = []
    private var fileRank: [String: Int32] = [:]
    private var lastRegistered: String?
    private var sequence = 0
    /// The counts of what was added.
    private(set) var errors = 0
    private(set) var warnings = 0

    /// A store that sorts and spills every `chunkSize` findings.
    package init(chunkSize: Int = 1 << 15) {
        precondition(chunkSize > 0)
        self.chunkSize = chunkSize
    }

    /// Gives `file` its place in the order, unless it has one already.
    func register(file: String?) {
        let name = file ?? ""
        // Records come file by file: most calls name the file of the call before.
        if name == lastRegistered { return }
        lastRegistered = name
        if fileRank[name] == nil { fileRank[name] = Int32(fileRank.count) }
    }

    /// Sets aside `count` places in the order after every finding added so far, for
    /// findings added out of order (`add(_:at:)`); returns the first.
    func reserve(_ count: Int) -> Int {
        defer { sequence += count }
        return sequence
    }

    /// Adds a finding. `asRead` marks one about the file as read (an unreadable row),
    /// which goes before the checks of a record at the same place. `reserved` is its
    /// place among those `reserve(_:)` set aside; by default it goes after all others.
    package func add(_ finding: Diagnostic, asRead: Bool = false, reserved: Int? = nil) {
        register(file: finding.location.file)
        let location = finding.location
        let key = SortKey(
            file: fileRank[location.file ?? ""]!, place: location.line ?? location.feature ?? 0,
            phase: asRead ? 0 : 1, sequence: reserved ?? sequence)
        if reserved == nil { sequence += 1 }
        switch finding.severity {
        case .error: errors += 1
        case .warning: warnings += 1
        }
        chunk.append(Entry(key: key, finding: finding))
        if chunk.count >= chunkSize { spill() }
    }

    /// Calls `body` with each finding in order. Reads the store once: it is empty after.
    ///
    /// - Throws: what `body` throws, or `SpillError` when a spilled run cannot be read
    ///   back.
    func drain(_ body: (Diagnostic) throws -> Void) throws {
        chunk.sort { $0.key < $1.key }
        if runs.isEmpty {
            let entries = chunk
            chunk = []
            for entry in entries { try body(entry.finding) }
            return
        }
        if !chunk.isEmpty { runs.append(.kept(chunk)) }
        chunk = []
        var readers = runs.map(RunReader.init)
        runs = []
        // The runs' heads in a binary heap, smallest first.
        var heap: [(key: SortKey, finding: Diagnostic, run: Int)] = []
        func siftDown(_ start: Int) {
            var parent = start
            while true {
                let left = 2 * parent + 1
                let right = left + 1
                var smallest = parent
                if left < heap.count, heap[left].key < heap[smallest].key { smallest = left }
                if right < heap.count, heap[right].key < heap[smallest].key { smallest = right }
                if smallest == parent { return }
                heap.swapAt(parent, smallest)
                parent = smallest
            }
        }
        for index in readers.indices {
            if let (key, finding) = try readers[index].next() {
                heap.append((key, finding, index))
            }
        }
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
        while let top = heap.first {
            try body(top.finding)
            if let (key, finding) = try readers[top.run].next() {
                heap[0] = (key, finding, top.run)
            } else {
                heap[0] = heap[heap.count - 1]
                heap.removeLast()
            }
            siftDown(0)
        }
    }

    // MARK: - Runs

    private func spill() {
        chunk.sort { $0.key < $1.key }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(chunk.count * 160)
        for entry in chunk { Self.encode(entry, into: &bytes) }
        let file = SpillFile()
        let written = bytes.withUnsafeBytes { file.append([$0]) }
        runs.append(written ? .spilled(file) : .kept(chunk))
        chunk.removeAll(keepingCapacity: true)
    }

    /// Reads a run back in order, a buffer at a time.
    private struct RunReader {
        var run: Run
        var position = 0
        var buffer: [UInt8] = []

        init(_ run: Run) {
            self.run = run
        }

        mutating func next() throws -> (SortKey, Diagnostic)? {
            switch run {
            case .kept(let entries):
                guard position < entries.count else { return nil }
                position += 1
                return (entries[position - 1].key, entries[position - 1].finding)
            case .spilled(let file):
                // An entry starts with its length.
                guard try fill(4, from: file) else { return nil }
                let length = buffer[position..<position + 4].reduce(0) { $0 << 8 | Int($1) }
                guard try fill(4 + length, from: file) else { throw SpillError(code: EIO) }
                var decoder = Decoder(bytes: buffer, position: position + 4)
                position += 4 + length
                return decoder.entry()
            }
        }

        /// Makes `count` unread bytes available from `position`; false at the run's end.
        ///
        /// - Throws: `SpillError` when the file cannot be read.
        private mutating func fill(_ count: Int, from file: SpillFile) throws -> Bool {
            if buffer.count - position >= count { return true }
            buffer.removeSubrange(..<position)
            position = 0
            let wanted = max(count - buffer.count, min(1 << 16, file.unreadCount))
            guard wanted <= file.unreadCount, file.unreadCount > 0 else { return false }
            let start = buffer.count
            buffer += repeatElement(0, count: wanted)
            let read = buffer.withUnsafeMutableBytes {
                file.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[start...]))
            }
            if !read { throw SpillError(code: errno) }
            return buffer.count - position >= count
        }
    }

    // MARK: - Encoding

    private static func encode(_ entry: Entry, into bytes: inout [UInt8]) {
        let start = bytes.count
        bytes += [0, 0, 0, 0]
        func integer(_ value: Int) {
            withUnsafeBytes(of: Int64(value).littleEndian) { bytes += $0 }
        }
        func optional(_ value: Int?) {
            bytes.append(value == nil ? 0 : 1)
            if let value { integer(value) }
        }
        func text(_ value: String?) {
            guard let value else {
                bytes.append(0)
                return
            }
            bytes.append(1)
            integer(value.utf8.count)
            bytes += value.utf8
        }
        integer(Int(entry.key.file))
        integer(entry.key.place)
        bytes.append(entry.key.phase)
        integer(entry.key.sequence)
        let finding = entry.finding
        bytes.append(finding.severity == .error ? 1 : 0)
        text(finding.code)
        text(finding.message)
        text(finding.hint)
        let location = finding.location
        text(location.file)
        optional(location.line)
        optional(location.column)
        optional(location.feature)
        text(location.jsonPath)
        text(location.key)
        let length = bytes.count - start - 4
        bytes[start] = UInt8(truncatingIfNeeded: length >> 24)
        bytes[start + 1] = UInt8(truncatingIfNeeded: length >> 16)
        bytes[start + 2] = UInt8(truncatingIfNeeded: length >> 8)
        bytes[start + 3] = UInt8(truncatingIfNeeded: length)
    }

    private struct Decoder {
        var bytes: [UInt8]
        var position: Int

        mutating func integer() -> Int {
            var value: Int64 = 0
            for shift in 0..<8 { value |= Int64(bytes[position + shift]) << (8 * shift) }
            position += 8
            return Int(value)
        }

        mutating func flag() -> Bool {
            position += 1
            return bytes[position - 1] != 0
        }

        mutating func optional() -> Int? {
            flag() ? integer() : nil
        }

        mutating func text() -> String? {
            guard flag() else { return nil }
            let count = integer()
            position += count
            return String(decoding: bytes[(position - count)..<position], as: UTF8.self)
        }

        mutating func entry() -> (SortKey, Diagnostic) {
            let key = SortKey(
                file: Int32(integer()), place: integer(), phase: flag() ? 1 : 0,
                sequence: integer())
            let severity: Diagnostic.Severity = flag() ? .error : .warning
            let code = text() ?? ""
            let message = text() ?? ""
            let hint = text()
            let location = Diagnostic.Location(
                file: text(), line: optional(), column: optional(), feature: optional(),
                jsonPath: text(), key: text())
            return (key, Diagnostic(severity, code, message, at: location, hint: hint))
        }
    }
}

/// Findings set aside in a temporary file could not be read back.
public struct SpillError: Error, CustomStringConvertible {
    /// The system's error number.
    public var code: Int32

    public var description: String {
        "findings set aside in a temporary file could not be read back: "
            + String(cString: strerror(code))
    }
}
