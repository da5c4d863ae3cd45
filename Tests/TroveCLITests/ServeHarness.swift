import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A `trove review serve` process on a free loopback port, and a plain socket client
/// that sends exactly the bytes a test writes.
final class ServedQueue {
    let sandbox: Sandbox
    let process: Process
    let port: Int
    private let errors: Pipe

    /// Starts the server on the sandbox's workspace.
    /// What the server printed as it started.
    let startup: String

    init(
        _ sandbox: Sandbox, listen: String = "127.0.0.1:0", arguments: [String] = [],
        environment: [String: String] = [:]
    ) throws {
        try BuiltBinary.require()
        self.sandbox = sandbox
        process = Process()
        process.executableURL = URL(fileURLWithPath: BuiltBinary.path)
        process.arguments =
            ["-w", sandbox.workspace, "review", "serve", "--listen", listen] + arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) {
                $1
            }
        }
        process.currentDirectoryURL = sandbox.folder
        process.standardOutput = FileHandle.nullDevice
        errors = Pipe()
        process.standardError = errors
        try process.run()
        // The 'serving' line names the address.
        var text = ""
        let handle = errors.fileHandleForReading
        while !text.contains("(Ctrl-C stops)") {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let range = text.range(of: "on http://") ?? text.range(of: "on https://"),
            let colon = text[range.upperBound...].firstIndex(of: ":"),
            let port = Int(text[text.index(after: colon)...].prefix { $0.isNumber })
        else { throw BrowserSession.Failure(description: "the server did not start: \(text)") }
        self.port = port
        startup = text
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    var host: String { "127.0.0.1:\(port)" }
    var base: String { "http://\(host)" }

    /// Stops the server with SIGTERM (or Ctrl-C's SIGINT); its exit status and what it
    /// printed after.
    func stop(interrupt: Bool = false) -> (status: Int32, stderr: String) {
        if interrupt { process.interrupt() } else { process.terminate() }
        let rest = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: rest, as: UTF8.self))
    }

    /// A sign-in link for a new moderator.
    func addModerator(_ name: String) -> String {
        let result = sandbox.run("review", "moderators", "add", name, "--url", base)
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    // MARK: - Raw HTTP

    /// An open TCP connection to the server.
    func connect() throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if connected != 0 {
            close(socket)
            throw BrowserSession.Failure(description: "cannot connect: \(errno)")
        }
        return socket
    }

    /// Sends `bytes` and reads until the server closes the connection or `timeout`
    /// seconds pass.
    static func exchange(_ socket: Int32, _ bytes: [UInt8], timeout: Double = 10) -> String {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if sent <= 0 { break }
            offset += sent
        }
        return readAll(socket, timeout: timeout)
    }

    /// Everything the server sends until it closes, or until a whole response (by its
    /// Content-Length) has arrived, or `timeout` seconds.
    static func readAll(_ socket: Int32, timeout: Double) -> String {
        var received: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 65536)
        while Date() < deadline {
            var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, 100) <= 0 { continue }
            let count = recv(socket, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received += buffer[0..<count]
            if let response = Response(String(decoding: received, as: UTF8.self)),
                response.complete
            {
                break
            }
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// One request on a fresh connection.
    func request(
        _ method: String, _ path: String, host: String? = nil, headers: [String: String] = [:],
        body: String = ""
    ) throws -> Response {
        let socket = try connect()
        defer { close(socket) }
        var text =
            "\(method) \(path) HTTP/1.1\r\nHost: \(host ?? self.host)\r\nConnection: close\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            text += "\(name): \(value)\r\n"
        }
        if method == "POST" || !body.isEmpty { text += "Content-Length: \(body.utf8.count)\r\n" }
        text += "\r\n" + body
        let answer = Self.exchange(socket, Array(text.utf8))
        guard let response = Response(answer) else {
            throw BrowserSession.Failure(description: "no HTTP response to \(path): \(answer)")
        }
        return response
    }

    /// A parsed response.
    struct Response {
        var status: Int
        var headers: [(String, String)]
        var body: String
        var complete: Bool

        init?(_ text: String) {
            guard let end = text.range(of: "\r\n\r\n") else { return nil }
            let lines = text[..<end.lowerBound].components(separatedBy: "\r\n")
            let parts = lines[0].split(separator: " ")
            guard parts.count >= 2, let status = Int(parts[1]) else { return nil }
            self.status = status
            headers = lines.dropFirst().compactMap { line in
                guard let colon = line.firstIndex(of: ":") else { return nil }
                return (
                    line[..<colon].lowercased(),
                    line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                )
            }
            let body = String(text[end.upperBound...])
            self.body = body
            let length = headers.first { $0.0 == "content-length" }.flatMap { Int($0.1) }
            complete = length.map { body.utf8.count >= $0 } ?? false
        }

        func header(_ name: String) -> String? {
            headers.first { $0.0 == name.lowercased() }?.1
        }

        var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:]
        }
    }

    /// A signed-in moderator speaking to the API from a plain client.
    struct Client {
        let server: ServedQueue
        let cookie: String
        let csrf: String

        func get(_ path: String) throws -> Response {
            try server.request("GET", path, headers: ["Cookie": cookie])
        }

        func post(_ path: String, _ body: [String: Any], csrf: String? = nil) throws -> Response {
            let data = try JSONSerialization.data(withJSONObject: body)
            return try server.request(
                "POST", path,
                headers: [
                    "Cookie": cookie, "X-CSRF-Token": csrf ?? self.csrf,
                    "Content-Type": "application/json",
                ], body: String(decoding: data, as: UTF8.self))
        }
    }

    /// Signs in with a link from `addModerator`.
    func signIn(_ link: String) throws -> Client {
        let path = String(link.dropFirst(base.count))
        let response = try request("GET", path)
        guard response.status == 303, let cookie = response.header("set-cookie"),
            let value = cookie.split(separator: ";").first
        else { throw BrowserSession.Failure(description: "sign-in failed: \(response.status)") }
        let me = try request("GET", "/api/me", headers: ["Cookie": String(value)])
        return Client(
            server: self, cookie: String(value), csrf: me.json["csrf"] as? String ?? "")
    }
}
