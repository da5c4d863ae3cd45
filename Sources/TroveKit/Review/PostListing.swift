import CSQLite
import Foundation
import TroveSQLite

/// `review list --format json` at speed: rows go from SQLite's buffers straight into
/// JSON bytes, without a `String` per column.
///
/// A hundred thousand posts must list in well under 100 ms, and building Swift strings
/// for every column costs several times that; so this one query uses the C API on the
/// workspace's connection (`Database.handle`), which the wrapper exposes for such calls.
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
        let (sql, values) = PostQuery.listSQL(status: status, signal: signal, user: user)
        let database = workspace.database
        // Let SQLite read the file through a memory map: the listing touches every page
        // of the queue index once.
        try database.execute("PRAGMA mmap_size = 1073741824")
        var raw: OpaquePointer?
        let code = sqlite3_prepare_v2(database.handle, sql, -1, &raw, nil)
        guard code == SQLITE_OK, let raw else {
            throw SQLiteError(
                code: code, message: String(cString: sqlite3_errmsg(database.handle)), sql: sql)
        }
        defer { sqlite3_finalize(raw) }
        for (offset, value) in values.enumerated() {
            if case .text(let text) = value {
                sqlite3_bind_text(raw, Int32(offset + 1), text, -1, SQLITE_TRANSIENT_VALUE)
            }
        }
        var out = JSONBytes()
        defer { out.bytes.deallocate() }
        out.append("[")
        var count = 0
        while true {
            let step = sqlite3_step(raw)
            if step == SQLITE_DONE { break }
            guard step == SQLITE_ROW else {
                throw SQLiteError(
                    code: step, message: String(cString: sqlite3_errmsg(database.handle)),
                    sql: sql)
            }
            out.append(count == 0 ? "\n{\"id\": " : ",\n{\"id\": ")
            out.string(raw, 0)
            out.append(", \"user\": ")
            out.string(raw, 1)
            out.append(", \"lat\": ")
            out.number(raw, 2)
            out.append(", \"lon\": ")
            out.number(raw, 3)
            out.append(", \"date\": ")
            out.string(raw, 4)
            out.append(", \"description\": ")
            out.string(raw, 5)
            out.append(", \"status\": ")
            out.string(raw, 6)
            out.append(", \"signals\": [")
            out.names(raw, 7)
            out.append("]}")
            count += 1
            if out.bytes.count >= 1 << 16 {
                sink(out.bytes.contents)
                out.bytes.removeAll()
            }
        }
        out.append(count == 0 ? "]\n" : "\n]\n")
        sink(out.bytes.contents)
        return count
    }
}

// `SQLITE_TRANSIENT` is a macro Swift cannot import.
private let SQLITE_TRANSIENT_VALUE = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

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

    private mutating func reserve(_ extra: Int) {
        guard count + extra > capacity else { return }
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

    /// Column `index` as a JSON string, or `null`.
    mutating func string(_ statement: OpaquePointer, _ index: Int32) {
        guard let text = sqlite3_column_text(statement, index) else {
            append("null")
            return
        }
        let count = Int(sqlite3_column_bytes(statement, index))
        JSONText.appendString(bytes: UnsafeBufferPointer(start: text, count: count), to: &bytes)
    }

    /// Column `index` as a JSON number (as JavaScript prints it), or `null`.
    mutating func number(_ statement: OpaquePointer, _ index: Int32) {
        if sqlite3_column_type(statement, index) == SQLITE_NULL {
            append("null")
            return
        }
        JSONText.appendNumber(sqlite3_column_double(statement, index), to: &bytes)
    }

    /// The comma-joined signal names of column `index` as JSON strings.
    mutating func names(_ statement: OpaquePointer, _ index: Int32) {
        guard let text = sqlite3_column_text(statement, index) else { return }
        let count = Int(sqlite3_column_bytes(statement, index))
        guard count > 0 else { return }
        bytes.write(byte: UInt8(ascii: "\""))
        var runStart = 0
        for position in 0..<count where text[position] == UInt8(ascii: ",") {
            bytes.write(UnsafeBufferPointer(start: text + runStart, count: position - runStart))
            append("\", \"")
            runStart = position + 1
        }
        bytes.write(UnsafeBufferPointer(start: text + runStart, count: count - runStart))
        bytes.write(byte: UInt8(ascii: "\""))
    }
}
