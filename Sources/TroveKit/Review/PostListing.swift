import Foundation
import TroveBase
import TroveSQLite
import TroveStore

/// `review list --format json` at speed: rows go from SQLite's buffers straight into
/// JSON bytes, without a `String` per column.
///
/// A hundred thousand posts must list in well under 100 ms, and building Swift strings
/// for every column costs several times that; so columns are read in place
/// (`Row.withUTF8`) and appended to one raw byte buffer.
public struct PostListing {
    let workspace: Workspace

    /// Works on `workspace`.
    public init(workspace: Workspace) {
        self.workspace = workspace
    }

    /// Writes the JSON array of matching posts (`[{"id", "user", "lat", "lon", "date",
    /// "description", "status", "signals"}]`) to `sink` in chunks.
    ///
    /// - Returns: the number of posts.
    /// - Throws: `SQLiteError`.
    @discardableResult
    public func writeJSON(
        status: PostStatus?, signal: String? = nil, user: String? = nil,
        to sink: (UnsafeRawBufferPointer) -> Void
    ) throws -> Int {
        let (statement, columns) = try PostStore(workspace).listing(
            status: status, signal: signal, user: user)
        var out = JSONBytes()
        defer { out.bytes.deallocate() }
        out.append("[")
        var count = 0
        // The listing touches every page of the queue index once: read it through a
        // memory map for the length of this query.
        try workspace.database.withMemoryMap(bytes: 1 << 30) {
            while let row = try statement.next() {
                out.append(count == 0 ? "\n{\"id\": " : ",\n{\"id\": ")
                out.string(row, columns.id)
                out.append(", \"user\": ")
                out.string(row, columns.user)
                out.append(", \"lat\": ")
                out.number(row, columns.lat)
                out.append(", \"lon\": ")
                out.number(row, columns.lon)
                out.append(", \"date\": ")
                out.string(row, columns.date)
                out.append(", \"description\": ")
                out.string(row, columns.description)
                out.append(", \"status\": ")
                out.string(row, columns.status)
                out.append(", \"signals\": [")
                out.names(row, columns.signalNames)
                out.append("]}")
                count += 1
                if out.bytes.count >= 1 << 16 {
                    sink(out.bytes.contents)
                    out.bytes.removeAll()
                }
            }
        }
        out.append(count == 0 ? "]\n" : "\n]\n")
        sink(out.bytes.contents)
        return count
    }
}

/// Bytes in memory the owner frees with `deallocate`: appending is a bounds check and a
/// copy, which matters at a few dozen small appends per listed post.
private struct ByteSink: JSONOutput {
    private var start = UnsafeMutablePointer<UInt8>.allocate(capacity: 1 << 17)
    private var capacity = 1 << 17
    private(set) var count = 0

    var contents: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: start, count: count) }

    mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        (start + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    mutating func write(byte: UInt8) {
        reserve(1)
        start[count] = byte
        count += 1
    }

    mutating func removeAll() { count = 0 }

    func deallocate() { start.deallocate() }

    @inline(__always)
    private mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(extra) }
    }

    @inline(never)
    private mutating func grow(_ extra: Int) {
        capacity = max(capacity * 2, count + extra)
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        grown.update(from: start, count: count)
        start.deallocate()
        start = grown
    }
}

/// A growing buffer of JSON text.
private struct JSONBytes {
    var bytes = ByteSink()

    mutating func append(_ literal: StaticString) {
        literal.withUTF8Buffer { bytes.write($0) }
    }

    /// `column` as a JSON string, or `null`.
    mutating func string(_ row: Row, _ column: Int) {
        let written: Void? = row.withUTF8(column) { JSONText.appendString(bytes: $0, to: &bytes) }
        if written == nil { append("null") }
    }

    /// `column` as a JSON number (as JavaScript prints it), or `null`.
    mutating func number(_ row: Row, _ column: Int) {
        guard let value = row.double(column) else {
            append("null")
            return
        }
        JSONText.appendNumber(value, to: &bytes)
    }

    /// The comma-joined signal names of `column` as JSON strings.
    mutating func names(_ row: Row, _ column: Int) {
        row.withUTF8(column) { text in
            guard !text.isEmpty else { return }
            bytes.write(byte: UInt8(ascii: "\""))
            var runStart = 0
            for position in text.indices where text[position] == UInt8(ascii: ",") {
                bytes.write(UnsafeBufferPointer(rebasing: text[runStart..<position]))
                append("\", \"")
                runStart = position + 1
            }
            bytes.write(UnsafeBufferPointer(rebasing: text[runStart...]))
            bytes.write(byte: UInt8(ascii: "\""))
        }
    }
}
