import CCurl
import Foundation

/// Sends many HTTP requests at once from one thread, over libcurl's multi interface
/// (https://curl.se/libcurl/c/libcurl-multi.html).
///
/// At most `maxConnections` transfers are in flight; connections are kept alive and
/// reused (and multiplexed over HTTP/2 where the server offers it), so thousands of small
/// requests cost little more than their bytes. Answers that may succeed later (408, 429,
/// 5xx) and failed connections are retried with exponential backoff while the other
/// transfers go on. Not thread-safe: one client belongs to the thread that calls `send`
/// (its `interrupter` is the exception, for ending a `send` from elsewhere).
public final class HTTPClient {
    public let configuration: HTTPConfiguration
    /// Ends this client's `send` from another thread.
    public let interrupter: HTTPInterrupter
    private let multi: UnsafeMutableRawPointer
    /// Easy handles between transfers, reset before reuse.
    private var idle: [UnsafeMutableRawPointer] = []

    /// A client with its own connection pool.
    public init(configuration: HTTPConfiguration = HTTPConfiguration()) {
        precondition(CurlLibrary.initialized, "curl_global_init failed")
        self.configuration = configuration
        guard let multi = curl_multi_init() else { fatalError("curl_multi_init failed") }
        self.multi = multi
        interrupter = HTTPInterrupter(multi: multi)
        let connections = max(1, configuration.maxConnections)
        _ = trove_curl_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, connections)
        _ = trove_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, connections)
        _ = trove_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, connections)
    }

    deinit {
        interrupter.detach()
        for easy in idle { curl_easy_cleanup(easy) }
        curl_multi_cleanup(multi)
    }

    /// Sends `count` requests, built by `request` as their turn comes, and reports each
    /// one's final outcome through `finished` on this thread, in the order they end.
    ///
    /// When `finished` returns false no further request is started; those in flight are
    /// still reported (their return value ignored), and then `send` returns.
    public func send(
        count: Int, request: (Int) -> HTTPRequest, finished: (Int, HTTPOutcome) -> Bool
    ) {
        send(count: count, request: request, handler: { _ in nil }, finished: finished)
    }

    /// Sends `count` requests as `send(count:request:finished:)` does; a request for which
    /// `handler` gives a handler has its answer delivered to it as it arrives (its
    /// outcome's body is then empty), the others are kept up to `maxResponseBytes`.
    ///
    /// A transfer its handler abandons ends as failed and is not sent again.
    public func send(
        count: Int, request: (Int) -> HTTPRequest,
        handler: (Int) -> (any HTTPResponseHandler)?, finished: (Int, HTTPOutcome) -> Bool
    ) {
        var next = 0
        var stopping = false
        var active: [UnsafeMutableRawPointer: Transfer] = [:]
        var retries:
            [(
                due: UInt64, index: Int, attempts: Int, request: HTTPRequest,
                handler: (any HTTPResponseHandler)?
            )] = []
        let limit = max(1, configuration.maxConnections)

        func report(_ index: Int, _ outcome: HTTPOutcome) {
            if stopping {
                _ = finished(index, outcome)
            } else if !finished(index, outcome) {
                stopping = true
            }
        }

        func start(
            _ index: Int, attempts: Int, _ request: HTTPRequest,
            _ handler: (any HTTPResponseHandler)?
        ) {
            switch begin(index: index, attempts: attempts + 1, request: request, handler: handler)
            {
            case .success(let transfer): active[transfer.easy] = transfer
            case .failure(let failure):
                report(index, .failed(message: failure.message, attempts: 0))
            }
        }

        while true {
            if interrupter.isInterrupted {
                // Abandon everything: what is in flight ends as failed, nothing more starts.
                stopping = true
                retries.removeAll()
                for (easy, transfer) in active {
                    curl_multi_remove_handle(multi, easy)
                    idle.append(easy)
                    report(
                        transfer.index, .failed(message: "interrupted", attempts: transfer.attempts)
                    )
                }
                active.removeAll()
                break
            }
            if !stopping {
                let now = DispatchTime.now().uptimeNanoseconds
                while active.count < limit, let due = retries.firstIndex(where: { $0.due <= now }) {
                    let retry = retries.remove(at: due)
                    start(retry.index, attempts: retry.attempts, retry.request, retry.handler)
                }
                while active.count < limit, next < count, !stopping {
                    start(next, attempts: 0, request(next), handler(next))
                    next += 1
                }
            }
            if active.isEmpty, stopping || (retries.isEmpty && next >= count) { break }

            var running: Int32 = 0
            _ = curl_multi_perform(multi, &running)
            var left: Int32 = 0
            while let message = curl_multi_info_read(multi, &left) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                    let transfer = active.removeValue(forKey: easy)
                else { continue }
                let outcome = transfer.outcome(code: message.pointee.data.result)
                curl_multi_remove_handle(multi, easy)
                idle.append(easy)
                if !stopping, transfer.isRetryable(outcome),
                    transfer.attempts < configuration.maxAttempts
                {
                    let delay = configuration.retryDelay(
                        afterAttempt: transfer.attempts, retryAfter: transfer.retryAfter)
                    let due = DispatchTime.now().uptimeNanoseconds + UInt64(delay * 1e9)
                    retries.append(
                        (due, transfer.index, transfer.attempts, transfer.request, transfer.handler)
                    )
                } else {
                    report(transfer.index, outcome)
                }
            }
            if stopping { retries.removeAll() }
            if active.isEmpty, stopping || (retries.isEmpty && next >= count) { break }

            var wait = 1000
            if let soonest = retries.map(\.due).min() {
                let now = DispatchTime.now().uptimeNanoseconds
                wait = soonest <= now ? 0 : min(wait, Int((soonest - now) / 1_000_000) + 1)
            }
            // With no transfer in flight this waits for the next retry, or for an interrupt.
            if wait > 0 { _ = curl_multi_poll(multi, nil, 0, Int32(wait), nil) }
        }
    }

    /// Sends one request and waits for its final outcome.
    public func send(_ request: HTTPRequest) -> HTTPOutcome {
        var result = HTTPOutcome.failed(message: "not sent", attempts: 0)
        send(count: 1, request: { _ in request }) { _, outcome in
            result = outcome
            return true
        }
        return result
    }

    // MARK: - One transfer

    private func begin(
        index: Int, attempts: Int, request: HTTPRequest, handler: (any HTTPResponseHandler)?
    ) -> Result<Transfer, BodyFileError> {
        let reader: BodyReader
        do {
            reader = try BodyReader(request.body)
        } catch {
            return .failure(error)
        }
        let easy: UnsafeMutableRawPointer
        if let reused = idle.popLast() {
            curl_easy_reset(reused)
            easy = reused
        } else {
            guard let created = curl_easy_init() else { fatalError("curl_easy_init failed") }
            easy = created
        }
        let transfer = Transfer(
            easy: easy, index: index, attempts: attempts, request: request, reader: reader,
            handler: handler, maxResponseBytes: configuration.maxResponseBytes)
        transfer.configure(configuration)
        let added = curl_multi_add_handle(multi, easy)
        if added != CURLM_OK {
            idle.append(easy)
            return .failure(
                BodyFileError(message: String(cString: curl_multi_strerror(added))))
        }
        return .success(transfer)
    }
}

/// One attempt at one request: the easy handle's options and the state its callbacks
/// write into.
private final class Transfer {
    let easy: UnsafeMutableRawPointer
    let index: Int
    let attempts: Int
    let request: HTTPRequest
    let reader: BodyReader
    /// Takes the answer as it arrives, when the caller gave one.
    let handler: (any HTTPResponseHandler)?
    private let maxResponseBytes: Int
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
    var response: [UInt8] = []
    /// Seconds from the answer's `Retry-After` header.
    var retryAfter: Double?
    /// The header fields of the answer so far (of the last header block).
    private var fields: [HTTPHeaderField] = []
    /// Whether the handler abandoned the transfer.
    private(set) var abandoned = false

    init(
        easy: UnsafeMutableRawPointer, index: Int, attempts: Int, request: HTTPRequest,
        reader: BodyReader, handler: (any HTTPResponseHandler)?, maxResponseBytes: Int
    ) {
        self.easy = easy
        self.index = index
        self.attempts = attempts
        self.request = request
        self.reader = reader
        self.handler = handler
        self.maxResponseBytes = maxResponseBytes
        errorBuffer.initialize(to: 0)
    }

    deinit {
        curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }

    func configure(_ configuration: HTTPConfiguration) {
        let me = Unmanaged.passUnretained(self).toOpaque()
        _ = trove_curl_setopt_pointer(easy, CURLOPT_URL, request.url)
        _ = trove_curl_setopt_pointer(easy, CURLOPT_PROTOCOLS_STR, "http,https")
        _ = trove_curl_setopt_pointer(easy, CURLOPT_USERAGENT, configuration.userAgent)
        _ = trove_curl_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer)
        _ = trove_curl_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        _ = trove_curl_setopt_long(easy, CURLOPT_TCP_KEEPALIVE, 1)
        _ = trove_curl_setopt_long(
            easy, CURLOPT_CONNECTTIMEOUT_MS, Int(configuration.connectTimeout * 1000))
        _ = trove_curl_setopt_long(easy, CURLOPT_LOW_SPEED_LIMIT, 1)
        _ = trove_curl_setopt_long(
            easy, CURLOPT_LOW_SPEED_TIME, max(1, Int(configuration.stallTimeout.rounded(.up))))

        // No `Expect: 100-continue`: it costs a round trip per upload.
        for line in request.headers + ["Expect:"] {
            headerList = curl_slist_append(headerList, line)
        }
        _ = trove_curl_setopt_pointer(easy, CURLOPT_HTTPHEADER, headerList)

        if request.body.isEmpty {
            if request.method != "GET" {
                _ = trove_curl_setopt_pointer(easy, CURLOPT_CUSTOMREQUEST, request.method)
            }
        } else {
            _ = trove_curl_setopt_long(easy, CURLOPT_POST, 1)
            _ = trove_curl_setopt_offset(
                easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(reader.length))
            if request.method != "POST" {
                _ = trove_curl_setopt_pointer(easy, CURLOPT_CUSTOMREQUEST, request.method)
            }
            _ = trove_curl_setopt_pointer(easy, CURLOPT_READDATA, me)
            _ = trove_curl_setopt_data_function(easy, CURLOPT_READFUNCTION) {
                buffer, size, count, user in
                guard let buffer, let user else { return Int(CURL_READFUNC_ABORT) }
                let transfer = Unmanaged<Transfer>.fromOpaque(user).takeUnretainedValue()
                return transfer.reader.read(into: buffer, capacity: size * count)
                    ?? Int(CURL_READFUNC_ABORT)
            }
            _ = trove_curl_setopt_pointer(easy, CURLOPT_SEEKDATA, me)
            _ = trove_curl_setopt_seek_function(easy, CURLOPT_SEEKFUNCTION) {
                user, offset, origin in
                guard let user, offset == 0, origin == SEEK_SET else {
                    return CURL_SEEKFUNC_CANTSEEK
                }
                Unmanaged<Transfer>.fromOpaque(user).takeUnretainedValue().reader.rewind()
                return CURL_SEEKFUNC_OK
            }
        }

        _ = trove_curl_setopt_pointer(easy, CURLOPT_WRITEDATA, me)
        _ = trove_curl_setopt_data_function(easy, CURLOPT_WRITEFUNCTION) {
            buffer, size, count, user in
            guard let user else { return 0 }
            let transfer = Unmanaged<Transfer>.fromOpaque(user).takeUnretainedValue()
            let bytes = size * count
            if let handler = transfer.handler {
                let taken = handler.body(UnsafeRawBufferPointer(start: buffer, count: bytes))
                if !taken { transfer.abandoned = true }
                return taken ? bytes : 0
            }
            let room = transfer.maxResponseBytes - transfer.response.count
            if let buffer, room > 0 {
                buffer.withMemoryRebound(to: UInt8.self, capacity: bytes) {
                    transfer.response.append(
                        contentsOf: UnsafeBufferPointer(start: $0, count: min(room, bytes)))
                }
            }
            return bytes
        }
        _ = trove_curl_setopt_pointer(easy, CURLOPT_HEADERDATA, me)
        _ = trove_curl_setopt_data_function(easy, CURLOPT_HEADERFUNCTION) {
            buffer, size, count, user in
            guard let user else { return 0 }
            let bytes = size * count
            guard let buffer else { return bytes }
            let line = buffer.withMemoryRebound(to: UInt8.self, capacity: bytes) {
                String(decoding: UnsafeBufferPointer(start: $0, count: bytes), as: UTF8.self)
            }
            let transfer = Unmanaged<Transfer>.fromOpaque(user).takeUnretainedValue()
            if line.lowercased().hasPrefix("retry-after:") {
                let value = line.dropFirst("retry-after:".count).trimmingCharacters(
                    in: .whitespacesAndNewlines)
                transfer.retryAfter = Double(value)
            }
            return transfer.header(line) ? bytes : 0
        }
    }

    /// Takes one header line: a status line starts a block, a blank line ends it and
    /// hands the head to the handler. False when the handler abandons the transfer.
    private func header(_ line: String) -> Bool {
        let text = line.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasPrefix("HTTP/") {
            fields = []
            return true
        }
        if !text.isEmpty {
            if let colon = text.firstIndex(of: ":") {
                fields.append(
                    HTTPHeaderField(
                        name: String(text[..<colon]),
                        value: text[text.index(after: colon)...].trimmingCharacters(
                            in: .whitespaces)))
            }
            return true
        }
        guard let handler else { return true }
        var status = 0
        _ = trove_curl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        if handler.head(HTTPResponseHead(status: status, fields: fields)) { return true }
        abandoned = true
        return false
    }

    /// The outcome of this attempt, from libcurl's result code.
    func outcome(code: CURLcode) -> HTTPOutcome {
        if code == CURLE_OK {
            var status = 0
            _ = trove_curl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
            return .response(HTTPResponse(status: status, body: response), attempts: attempts)
        }
        if let failure = reader.failure {
            return .failed(message: failure, attempts: attempts)
        }
        if abandoned { return .failed(message: "abandoned by its receiver", attempts: attempts) }
        var message = String(cString: errorBuffer)
        if message.isEmpty { message = String(cString: curl_easy_strerror(code)) }
        return .failed(message: message, attempts: attempts)
    }

    /// Whether sending again may succeed: a transient status, or a connection that failed
    /// (not a body file that cannot be read).
    func isRetryable(_ outcome: HTTPOutcome) -> Bool {
        switch outcome {
        case .response(let response, _):
            return HTTPConfiguration.retryable(status: response.status)
        case .failed:
            return reader.failure == nil && !abandoned
        }
    }
}

/// `curl_global_init`, once per process, before the first handle.
private enum CurlLibrary {
    static let initialized: Bool = curl_global_init(Int(CURL_GLOBAL_ALL)) == CURLE_OK
}
