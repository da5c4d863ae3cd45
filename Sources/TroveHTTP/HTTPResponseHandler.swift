import CCurl
import Foundation

/// The status line and header fields of an answer, as they arrived.
public struct HTTPResponseHead: Sendable, Equatable {
    /// The HTTP status code.
    public var status: Int
    /// The header fields in the order received, names as sent.
    public var fields: [HTTPHeaderField]

    public init(status: Int, fields: [HTTPHeaderField] = []) {
        self.status = status
        self.fields = fields
    }

    /// The value of the first field named `name` (compared without case), or nil.
    public func value(_ name: String) -> String? {
        let lowered = name.lowercased()
        return fields.first { $0.name.lowercased() == lowered }?.value
    }
}

/// One header field of an answer.
public struct HTTPHeaderField: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// Takes an answer as it arrives, instead of the client keeping its body: a download
/// written to a file, a page parsed as it comes, or a response that never ends (a
/// `text/event-stream`).
///
/// Both methods are called on the thread that runs `HTTPClient.send`. When a request is
/// sent again (a retryable status, a failed connection), `head` is called again for the
/// new attempt: whatever the handler kept of the earlier one is to be dropped.
public protocol HTTPResponseHandler: AnyObject {
    /// The status line and header fields have arrived; false abandons the transfer.
    func head(_ head: HTTPResponseHead) -> Bool
    /// The next bytes of the body; false abandons the transfer.
    func body(_ bytes: UnsafeRawBufferPointer) -> Bool
}

/// Ends the `send` of an `HTTPClient` from another thread: the transfers in flight are
/// abandoned and reported as failed ("interrupted"), no further request starts, and every
/// later `send` of that client ends at once the same way.
///
/// The client's loop is woken at once (`curl_multi_wakeup`), so a long-lived response
/// that is waiting for its next bytes does not hold it up.
public final class HTTPInterrupter: @unchecked Sendable {
    private let lock = NSLock()
    private var multi: UnsafeMutableRawPointer?
    private var interrupted = false

    init(multi: UnsafeMutableRawPointer) {
        self.multi = multi
    }

    /// Interrupts the client; safe from any thread, any number of times.
    public func interrupt() {
        lock.lock()
        defer { lock.unlock() }
        interrupted = true
        if let multi { _ = curl_multi_wakeup(multi) }
    }

    /// Whether `interrupt` was called.
    public var isInterrupted: Bool {
        lock.lock()
        defer { lock.unlock() }
        return interrupted
    }

    /// The client is going away: nothing is left to wake.
    func detach() {
        lock.lock()
        defer { lock.unlock() }
        multi = nil
    }
}
