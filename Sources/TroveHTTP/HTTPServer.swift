import CMicroHTTPD
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One HTTP request, whole: GNU libmicrohttpd parsed it.
public struct ServerRequest: Sendable {
    /// `GET`, `POST` …
    public var method: String
    /// The path, percent-decoded, without the query.
    public var path: String
    /// The query's arguments, decoded (the last of a repeated name).
    public var query: [String: String]
    /// Header fields by lower-cased name.
    public var headers: [String: String]
    /// Cookies by name.
    public var cookies: [String: String]
    /// The body (at most the server's body limit).
    public var body: [UInt8]
    /// The address of the peer the request came over (IPv4 or IPv6 text; a proxy's,
    /// when there is one in front).
    public var peer: String

    /// Creates the value from its parts.
    public init(
        method: String, path: String, query: [String: String] = [:],
        headers: [String: String] = [:], cookies: [String: String] = [:], body: [UInt8] = [],
        peer: String = ""
    ) {
        self.peer = peer
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.cookies = cookies
        self.body = body
    }
}

/// One response.
public struct ServerResponse: Sendable {
    /// The status code.
    public var status: Int
    /// Header fields, in order.
    public var headers: [(String, String)]
    /// The body.
    public var body: [UInt8]
    /// Whom the request came from, when the handler knows them (a signed-in session): not
    /// sent. The connection then counts as theirs, not among the unknown ones.
    public var client: String?

    /// Creates the value from its parts.
    public init(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response with a body of `type`.
    public init(status: Int, type: String, body: [UInt8], headers: [(String, String)] = []) {
        self.init(status: status, headers: [("Content-Type", type)] + headers, body: body)
    }

    /// A plain-text response.
    public static func text(_ status: Int, _ text: String) -> ServerResponse {
        ServerResponse(status: status, type: "text/plain; charset=utf-8", body: Array(text.utf8))
    }
}

/// Why the server could not start.
public struct HTTPServerError: Error, CustomStringConvertible, Sendable {
    /// What went wrong.
    public let description: String
}

/// A small HTTP/1.1 server over GNU libmicrohttpd: each connection has a thread of its
/// own, which calls `handler` with each whole request, so a slow answer (a photo being
/// rendered) keeps no other request waiting.
///
/// Requests are bounded: a body over `Limits.body` bytes is answered 413 (at once when
/// its Content-Length says so), a connection idle for `idleTimeout` is closed, and a
/// request that has not arrived whole within `requestTimeout` of its connection opening
/// (or of the previous response on it) is cut off, however slowly its bytes trickle in.
/// libmicrohttpd caps connections in all. Connections are counted by whom they serve:
/// one whose requests the handler knows (`ServerResponse.client`) counts as that client's,
/// and each client may hold `Limits.connectionsPerClient`; the others, unknown, may hold
/// `Limits.unknownConnections` together, fewer than all, so that the rest stay for
/// known clients. Beyond either cap the oldest idle connection of the kind is closed, so
/// a flood of idle connections, from one address or many, ends only its own oldest and
/// never keeps a known client out. A request without exactly
/// one `Host` header is answered 400 before the handler sees it. What libmicrohttpd would
/// log (a line for every malformed request) is counted instead, and `report` is told the
/// count at most once every `Limits.reportInterval` and when the server stops.
public final class HTTPServer: @unchecked Sendable {
    /// The bounds of what the server accepts.
    public struct Limits: Sendable {
        /// Open connections at once.
        public var connections: UInt32 = 512
        /// Open connections not (yet) known to be a client's, together.
        public var unknownConnections = 256
        /// Open connections of one known client.
        public var connectionsPerClient = 16
        /// Seconds a connection may sit idle.
        public var idleTimeout: UInt32 = 10
        /// Seconds a request has to arrive whole (headers and body).
        public var requestTimeout: Double = 10
        /// Bytes of a request body.
        public var body = 64 * 1024
        /// Bytes libmicrohttpd keeps per connection (the request line and headers must fit).
        public var connectionMemory = 64 * 1024
        /// Seconds between two reports of what libmicrohttpd complained about.
        public var reportInterval: Double = 60

        /// The defaults.
        public init() {}
    }

    /// The handler: called on a connection's thread, concurrently with others.
    public typealias Handler = @Sendable (ServerRequest) -> ServerResponse
    /// Told, in a line of words, how many requests libmicrohttpd refused or cut off.
    public typealias Reporter = @Sendable (String) -> Void

    let handler: Handler
    let limits: Limits
    let report: Reporter
    /// Where libmicrohttpd's log lines go (to `complained`), for the daemon's life.
    private let log: UnsafeMutablePointer<trove_mhd_log>
    /// libmicrohttpd's log lines since the last report: how many, the last one, and when
    /// the last report was made.
    private var complaints = (count: 0, last: "", reported: 0.0)
    private var daemon: OpaquePointer?
    /// The port listened on.
    public private(set) var port: UInt16 = 0

    /// An open connection.
    struct Connection {
        var socket: Int32
        /// Since when it waits for a request to arrive (nil while one is being answered).
        var waitingSince: Double?
        /// When it opened, and whose it is (nil: unknown).
        var opened: Double
        var client: String?
        /// Closed by the server to make room: no longer counted.
        var closing = false
    }

    /// Open connections.
    private var connections: [OpaquePointer: Connection] = [:]
    private let lock = NSLock()
    private var watchdog: Thread?
    private var stopping = false

    /// A certificate chain and its private key, PEM text, to speak HTTPS with.
    public struct TLS: Sendable {
        /// The certificate (then any intermediates), PEM.
        public var certificate: String
        /// The private key, PEM, unencrypted.
        public var key: String

        /// The value from its parts.
        public init(certificate: String, key: String) {
            self.certificate = certificate
            self.key = key
        }
    }

    /// Whether this libmicrohttpd can speak HTTPS (it was built with GnuTLS).
    public static var supportsTLS: Bool { trove_mhd_has_tls() != 0 }

    /// Starts listening on `host` (an IPv4 or IPv6 address) and `port` (0: any free one),
    /// over HTTPS with `tls`.
    ///
    /// - Throws: `HTTPServerError` when the address is not one or cannot be listened on,
    ///   or when `tls` is given and this libmicrohttpd lacks TLS or refuses the
    ///   certificate or key.
    public init(
        host: String, port: UInt16, limits: Limits = Limits(), tls: TLS? = nil,
        report: @escaping Reporter = { _ in }, handler: @escaping Handler
    ) throws(HTTPServerError) {
        self.handler = handler
        self.limits = limits
        self.report = report
        log = .allocate(capacity: 1)
        var storage = sockaddr_storage()
        let parsed = withUnsafeMutablePointer(to: &storage) { pointer -> Bool in
            var v4 = sockaddr_in()
            if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
                v4.sin_family = sa_family_t(AF_INET)
                v4.sin_port = port.bigEndian
                UnsafeMutableRawPointer(pointer).storeBytes(of: v4, as: sockaddr_in.self)
                return true
            }
            var v6 = sockaddr_in6()
            if inet_pton(AF_INET6, host, &v6.sin6_addr) == 1 {
                v6.sin6_family = sa_family_t(AF_INET6)
                v6.sin6_port = port.bigEndian
                UnsafeMutableRawPointer(pointer).storeBytes(of: v6, as: sockaddr_in6.self)
                return true
            }
            return false
        }
        guard parsed else {
            throw HTTPServerError(description: "'\(host)' is not an IP address")
        }
        if tls != nil && !Self.supportsTLS {
            throw HTTPServerError(
                description: "this libmicrohttpd was built without TLS: serve plain HTTP "
                    + "behind a proxy that speaks HTTPS (--behind-proxy)")
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        log.initialize(to: trove_mhd_log(line: logLine, context: context))
        complaints.reported = Self.now()
        let started = withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                trove_mhd_start(
                    address, limits.connections, 0,
                    limits.idleTimeout, limits.connectionMemory, accessHandler, context,
                    requestCompleted, connectionNotice, context, log, tls?.certificate,
                    tls?.key)
            }
        }
        guard let started else {
            let reason = String(cString: strerror(errno))
            stopping = true
            // With TLS, what libmicrohttpd logged says what it thought of the key pair.
            let logged = complaints.last.trimmingCharacters(in: .whitespacesAndNewlines)
            complaints.count = 0
            if tls != nil, !logged.isEmpty {
                throw HTTPServerError(
                    description: "cannot serve HTTPS with this certificate and key: " + logged
                        + " (is the key the certificate's, and unencrypted?)")
            }
            throw HTTPServerError(description: "cannot listen on \(host):\(port): " + reason)
        }
        daemon = started
        self.port = trove_mhd_bound_port(started)
        let thread = Thread { [weak self] in
            while let server = self, server.watch() {
                Thread.sleep(forTimeInterval: 0.25)
            }
        }
        thread.name = "trove-http-watchdog"
        thread.start()
        watchdog = thread
    }

    deinit {
        stop()
        log.deinitialize(count: 1)
        log.deallocate()
    }

    /// Stops listening, lets requests being answered finish, and closes every connection;
    /// then reports what libmicrohttpd complained about since the last report.
    public func stop() {
        lock.lock()
        let daemon = self.daemon
        self.daemon = nil
        stopping = true
        lock.unlock()
        if let daemon { MHD_stop_daemon(daemon) }
        if let line = takeComplaints(final: true) { report(line) }
    }

    // MARK: - libmicrohttpd's log

    fileprivate func complained(_ text: String) {
        lock.lock()
        complaints.count += 1
        complaints.last = text
        lock.unlock()
    }

    /// The report of the complaints since the last one, and a new count; nil when there
    /// were none, or when the interval has not passed (unless `final`).
    private func takeComplaints(final: Bool) -> String? {
        let now = Self.now()
        lock.lock()
        defer { lock.unlock() }
        guard complaints.count > 0, final || now - complaints.reported >= limits.reportInterval
        else { return nil }
        let (count, last, since) = complaints
        complaints = (0, "", now)
        return Self.describeComplaints(count: count, last: last, seconds: now - since)
    }

    /// `3 requests refused or cut off in the last 60 s (malformed, or over a limit); the
    /// last: Failed to parse 'Content-Length' header.`
    static func describeComplaints(count: Int, last: String, seconds: Double) -> String {
        // libmicrohttpd quotes the HTML of its error page: its own words are enough.
        var words = last.trimmingCharacters(in: .whitespacesAndNewlines)
        if let page = words.range(of: " ('<html>") {
            if let end = words.range(of: "')", range: page.upperBound..<words.endIndex) {
                words.removeSubrange(page.lowerBound..<end.upperBound)
            } else {
                words = String(words[..<page.lowerBound]) + ")"
            }
        }
        if words.count > 160 { words = String(words.prefix(159)) + "…" }
        return "libmicrohttpd refused or cut off \(count) "
            + (count == 1 ? "request" : "requests")
            + " in the last \(Int(seconds.rounded())) s (malformed, or over a limit); the last: "
            + words
    }

    // MARK: - Connections

    /// Cuts off connections whose request is overdue and reports libmicrohttpd's
    /// complaints when it is time; false once stopped.
    private func watch() -> Bool {
        if let line = takeComplaints(final: false) { report(line) }
        let now = Self.now()
        lock.lock()
        defer { lock.unlock() }
        if stopping { return false }
        for (key, entry) in connections {
            if let since = entry.waitingSince, now - since > limits.requestTimeout {
                // The polling thread sees the socket end and closes the connection itself.
                shutdown(entry.socket, Int32(SHUT_RDWR))
                connections[key]?.waitingSince = nil
            }
        }
        return true
    }

    fileprivate func opened(_ connection: OpaquePointer) {
        let socket = trove_mhd_connection_socket(connection)
        let now = Self.now()
        lock.lock()
        connections[connection] = Connection(socket: socket, waitingSince: now, opened: now)
        makeRoom(for: nil, keeping: connection)
        lock.unlock()
    }

    /// The connection's request came from `client`: it counts as theirs from now on.
    fileprivate func served(_ connection: OpaquePointer, client: String) {
        lock.lock()
        if connections[connection] != nil, connections[connection]?.client != client {
            connections[connection]?.client = client
            makeRoom(for: client, keeping: connection)
        }
        lock.unlock()
    }

    /// Closes the oldest idle connections of `client` (nil: the unknown ones) beyond
    /// their cap, never `kept`. Called with the lock held.
    private func makeRoom(for client: String?, keeping kept: OpaquePointer) {
        let cap = client == nil ? limits.unknownConnections : limits.connectionsPerClient
        let theirs = connections.filter { $0.value.client == client && !$0.value.closing }
        guard theirs.count > cap else { return }
        let idle = theirs.filter { $0.key != kept && $0.value.waitingSince != nil }
            .sorted {
                ($0.value.waitingSince ?? 0, $0.value.opened) < (
                    $1.value.waitingSince ?? 0, $1.value.opened
                )
            }
        for (key, entry) in idle.prefix(theirs.count - cap) {
            // The polling thread sees the socket end and closes the connection itself.
            shutdown(entry.socket, Int32(SHUT_RDWR))
            connections[key]?.closing = true
            connections[key]?.waitingSince = nil
        }
    }

    fileprivate func closed(_ connection: OpaquePointer) {
        lock.lock()
        connections[connection] = nil
        lock.unlock()
    }

    /// The connection's request has arrived whole (`waiting` false) or been answered.
    fileprivate func setWaiting(_ connection: OpaquePointer, _ waiting: Bool) {
        lock.lock()
        if connections[connection] != nil {
            connections[connection]?.waitingSince = waiting ? Self.now() : nil
        }
        lock.unlock()
    }

    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    // MARK: - Requests

    /// What is known of a request while its body arrives.
    final class Pending {
        var body: [UInt8] = []
        var tooLarge = false
    }

    static func values(_ connection: OpaquePointer, _ kind: MHD_ValueKind) -> [String: String] {
        final class Box { var values: [String: String] = [:] }
        let box = Box()
        let pointer = Unmanaged.passUnretained(box).toOpaque()
        MHD_get_connection_values(
            connection, kind,
            { context, _, key, value in
                guard let context, let key else { return .YES }
                let box = Unmanaged<Box>.fromOpaque(context).takeUnretainedValue()
                box.values[String(cString: key)] = value.map { String(cString: $0) } ?? ""
                return .YES
            }, pointer)
        return box.values
    }

    /// How many times the field `name` (any case) occurs among the connection's values.
    static func count(_ connection: OpaquePointer, _ kind: MHD_ValueKind, name: String) -> Int {
        final class Box {
            let name: [UInt8]
            var count = 0
            init(_ name: String) { self.name = Array(name.lowercased().utf8) }
        }
        let box = Box(name)
        let pointer = Unmanaged.passUnretained(box).toOpaque()
        MHD_get_connection_values(
            connection, kind,
            { context, _, key, _ in
                guard let context, let key else { return .YES }
                let box = Unmanaged<Box>.fromOpaque(context).takeUnretainedValue()
                if Array(String(cString: key).lowercased().utf8) == box.name { box.count += 1 }
                return .YES
            }, pointer)
        return box.count
    }

    static func peer(_ connection: OpaquePointer) -> String {
        var text = [CChar](repeating: 0, count: 64)
        trove_mhd_connection_peer(connection, &text, text.count)
        return String(cString: text)
    }

    /// Whether `address` (IPv4 or IPv6 text) is a loopback address.
    public static func isLoopback(_ address: String) -> Bool {
        address.hasPrefix("127.") || address == "::1" || address.hasPrefix("::ffff:127.")
    }

    static func send(_ response: ServerResponse, on connection: OpaquePointer) -> MHD_Result {
        let made = response.body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(
                bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress),
                .RESPMEM_MUST_COPY)
        }
        guard let made else { return .NO }
        for (name, value) in response.headers {
            MHD_add_response_header(made, name, value)
        }
        let result = MHD_queue_response(connection, UInt32(response.status), made)
        MHD_destroy_response(made)
        return result
    }

    fileprivate func handle(
        _ connection: OpaquePointer, url: String, method: String, upload: UnsafePointer<CChar>?,
        uploadSize: UnsafeMutablePointer<Int>, state: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        guard let existing = state.pointee else {
            // The header is in: from here the body has its own time.
            setWaiting(connection, false)
            setWaiting(connection, true)
            let pending = Pending()
            state.pointee = Unmanaged.passRetained(pending).toOpaque()
            if let length = MHD_lookup_connection_value(
                connection, .HEADER_KIND, "Content-Length"),
                let bytes = Int(String(cString: length)), bytes > limits.body
            {
                setWaiting(connection, false)
                return Self.send(tooLarge, on: connection)
            }
            return .YES
        }
        let pending = Unmanaged<Pending>.fromOpaque(existing).takeUnretainedValue()
        if uploadSize.pointee > 0 {
            if let upload, !pending.tooLarge {
                if pending.body.count + uploadSize.pointee > limits.body {
                    pending.tooLarge = true
                    pending.body = []
                } else {
                    upload.withMemoryRebound(to: UInt8.self, capacity: uploadSize.pointee) {
                        pending.body.append(
                            contentsOf: UnsafeBufferPointer(start: $0, count: uploadSize.pointee))
                    }
                }
            }
            uploadSize.pointee = 0
            return .YES
        }
        setWaiting(connection, false)
        if pending.tooLarge { return Self.send(tooLarge, on: connection) }
        // One Host, as HTTP/1.1 demands (RFC 9112, 3.2): with two, the server and a proxy
        // in front of it could each check a different one.
        let hosts = Self.count(connection, .HEADER_KIND, name: "host")
        guard hosts == 1 else {
            return Self.send(
                .text(400, hosts == 0 ? "no Host header\n" : "more than one Host header\n"),
                on: connection)
        }
        let request = ServerRequest(
            method: method, path: url, query: Self.values(connection, .GET_ARGUMENT_KIND),
            headers: Dictionary(
                Self.values(connection, .HEADER_KIND).map { ($0.key.lowercased(), $0.value) },
                uniquingKeysWith: { _, last in last }),
            cookies: Self.values(connection, .COOKIE_KIND), body: pending.body,
            peer: Self.peer(connection))
        let response = handler(request)
        if let client = response.client { served(connection, client: client) }
        return Self.send(response, on: connection)
    }

    var tooLarge: ServerResponse {
        .text(413, "request body too large (at most \(limits.body) bytes)\n")
    }
}

private func accessHandler(
    context: UnsafeMutableRawPointer?, connection: OpaquePointer?, url: UnsafePointer<CChar>?,
    method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?,
    upload: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>?,
    state: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let context, let connection, let url, let method, let uploadSize, let state else {
        return .NO
    }
    let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
    return server.handle(
        connection, url: String(cString: url), method: String(cString: method), upload: upload,
        uploadSize: uploadSize, state: state)
}

private func requestCompleted(
    context: UnsafeMutableRawPointer?, connection: OpaquePointer?,
    state: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, code: MHD_RequestTerminationCode
) {
    if let state, let pending = state.pointee {
        Unmanaged<HTTPServer.Pending>.fromOpaque(pending).release()
        state.pointee = nil
    }
    guard let context, let connection else { return }
    // The next request on this connection has its own time to arrive.
    Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue().setWaiting(connection, true)
}

private func connectionNotice(
    context: UnsafeMutableRawPointer?, connection: OpaquePointer?,
    socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
    code: MHD_ConnectionNotificationCode
) {
    guard let context, let connection else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
    if code == .CONNECTION_NOTIFY_STARTED {
        server.opened(connection)
    } else {
        server.closed(connection)
    }
}

private func logLine(context: UnsafeMutableRawPointer?, text: UnsafePointer<CChar>?) {
    guard let context, let text else { return }
    Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue().complained(
        String(cString: text))
}
