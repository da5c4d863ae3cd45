/// One event of a `text/event-stream`.
public struct ServerSentEvent: Sendable, Equatable {
    /// The `event:` field; `message` when the event named none.
    public var name: String
    /// The `data:` lines joined with line feeds, cut at the parser's limit.
    public var data: [UInt8]
    /// Whether `data` was cut: the event's data was longer than the limit.
    public var isTruncated: Bool

    public init(name: String, data: [UInt8], isTruncated: Bool = false) {
        self.name = name
        self.data = data
        self.isTruncated = isTruncated
    }
}

/// Reads a `text/event-stream` (the HTML standard's server-sent events,
/// https://html.spec.whatwg.org/multipage/server-sent-events.html) from bytes as they
/// arrive, in memory bounded by `maxDataBytes` whatever the stream sends.
///
/// Lines end with CRLF, LF or CR; `event:` names the event, `data:` lines make its data,
/// a line starting with `:` is a comment, a blank line dispatches the event. `id:` and
/// `retry:` are read and ignored. Data beyond `maxDataBytes` is dropped and the event
/// marked truncated, so a huge event costs no memory; its start is kept.
public struct EventStreamParser {
    /// The most data bytes kept per event.
    public let maxDataBytes: Int
    private var line: [UInt8] = []
    /// The current line went past the limit; its start is kept.
    private var lineTruncated = false
    private var name = ""
    private var data: [UInt8] = []
    private var hasData = false
    private var truncated = false
    /// The last byte was a CR: an LF right after it ends nothing more.
    private var afterCR = false

    public init(maxDataBytes: Int = 1 << 20) {
        self.maxDataBytes = max(64, maxDataBytes)
    }

    /// Reads `bytes` and calls `dispatch` for each event they complete, in order; stops
    /// early when `dispatch` returns false (the rest of the bytes is dropped).
    ///
    /// - Returns: false when `dispatch` stopped it.
    @discardableResult
    public mutating func feed(
        _ bytes: UnsafeRawBufferPointer, dispatch: (ServerSentEvent) -> Bool
    ) -> Bool {
        for byte in bytes {
            if afterCR {
                afterCR = false
                if byte == 0x0A { continue }
            }
            if byte == 0x0A || byte == 0x0D {
                afterCR = byte == 0x0D
                if !endLine(dispatch) { return false }
                continue
            }
            // A field name and its value fit in the limit plus a little; the rest of an
            // overlong line is dropped.
            if line.count < maxDataBytes + 16 {
                line.append(byte)
            } else {
                lineTruncated = true
            }
        }
        return true
    }

    /// Convenience for tests and callers holding an array.
    @discardableResult
    public mutating func feed(_ bytes: [UInt8], dispatch: (ServerSentEvent) -> Bool) -> Bool {
        bytes.withUnsafeBytes { feed($0, dispatch: dispatch) }
    }

    private mutating func endLine(_ dispatch: (ServerSentEvent) -> Bool) -> Bool {
        defer {
            line.removeAll(keepingCapacity: line.count <= 4096)
            lineTruncated = false
        }
        if line.isEmpty {
            guard hasData || !name.isEmpty else { return true }
            let event = ServerSentEvent(
                name: name.isEmpty ? "message" : name, data: data, isTruncated: truncated)
            name = ""
            data.removeAll(keepingCapacity: data.count <= 4096)
            hasData = false
            truncated = false
            return dispatch(event)
        }
        if line[0] == 0x3A { return true }  // a comment
        let colon = line.firstIndex(of: 0x3A) ?? line.count
        let field = String(decoding: line[..<colon], as: UTF8.self)
        var start = colon < line.count ? colon + 1 : line.count
        if start < line.count, line[start] == 0x20 { start += 1 }
        let value = line[start...]
        switch field {
        case "event": name = String(decoding: value, as: UTF8.self)
        case "data":
            if hasData { append([0x0A]) }
            hasData = true
            append(value)
            if lineTruncated { truncated = true }
        default: break  // id, retry and unknown fields
        }
        return true
    }

    private mutating func append<Bytes: Collection>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        let room = maxDataBytes - data.count
        if bytes.count <= room {
            data.append(contentsOf: bytes)
        } else {
            data.append(contentsOf: bytes.prefix(max(0, room)))
            truncated = true
        }
    }
}
