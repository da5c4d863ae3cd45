import Foundation
import TroveBase
import TroveHTTP
import TroveStore

/// `trove review serve --follow URL`: keeps the workspace's posts in step with a live
/// location while moderators work, through the database's REST streaming
/// (`Accept: text/event-stream`).
///
/// Two threads. The stream's reads events and notes what they touched; the worker's,
/// with a workspace connection of its own, reads those posts again and stores them as a
/// pull does, downloading their photos, and withdraws the ones deleted. Every stream
/// begins with a `put` of the whole location, so every connection, the first and each
/// after a reconnect (when events were missed), reads the whole location again, in pages.
///
/// How the stream ends decides what follows:
/// - a dropped connection, a stalled one (no keep-alive for `stallSeconds`), an answer
///   429 or 5xx: reconnect after a growing wait (0.5 s doubling to 30 s), forever;
/// - `auth_revoked` (the token expired or was revoked): ask gcloud for a fresh token and
///   reconnect at once;
/// - `cancel` (the rules no longer let these credentials read the location), 401, 403,
///   400 or 404: a fresh token, then reconnect after the growing wait; after
///   `maxRefusals` of these in a row, with no stream delivering in between, stop
///   following and say why (the server goes on serving the queue as it is);
/// - a redirect (307) to the database's own servers is followed with the same
///   credentials; one elsewhere is a refusal.
public final class PostFollower: @unchecked Sendable {
    /// Whether and how the follow is going, for the review page.
    public struct Status: Sendable, Equatable {
        public enum State: String, Sendable {
            /// Opening the first stream.
            case connecting
            /// A stream is open and has delivered the location.
            case following
            /// The stream ended; waiting to open another.
            case reconnecting
            /// Given up (or the server is stopping); `message` says why.
            case stopped
        }

        /// The location followed.
        public var url: String
        public var state: State = .connecting
        /// When the open stream delivered the location (ISO 8601), while following.
        public var since: String?
        /// When the last event or keep-alive arrived.
        public var lastEvent: String?
        /// When the whole location was last read and the workspace brought in step.
        public var lastSync: String?
        /// Why it is reconnecting or stopped, or what last went wrong.
        public var message: String?
        /// Posts stored (new, changed or back) and withdrawn since the server started.
        public var stored = 0
        public var withdrawn = 0
        /// Posts not imported because their photo could not be downloaded (yet).
        public var refused: [String] = []
    }

    public let location: LiveLocation
    private let workspacePath: String
    private let busyTimeout: Int32
    private let cloud: CloudEnvironment
    private let log: @Sendable (String) -> Void
    /// Seconds without a byte (Firebase sends a keep-alive every 30) before a stream is
    /// taken for dead.
    public var stallSeconds: Double = 75
    /// Refusals in a row before the follow gives up.
    public var maxRefusals = 5
    /// The longest wait between two connections.
    public var maxBackoff: Double = 30

    private let condition = NSCondition()
    private var current: Status
    private var pending: [LocationChange] = []
    private var stopping = false
    private var streamInterrupter: HTTPInterrupter?
    private var pull: PostPull?
    private var running = 0

    /// A follow of `location` into the workspace at `workspacePath`, with the
    /// credentials and endpoints of `cloud`; `log` takes one line at a time, from
    /// the follow's threads.
    public init(
        workspacePath: String, busyTimeout: Int32, location: LiveLocation,
        cloud: CloudEnvironment, log: @escaping @Sendable (String) -> Void
    ) {
        self.workspacePath = workspacePath
        self.busyTimeout = busyTimeout
        self.location = location
        self.cloud = cloud
        self.log = log
        current = Status(url: location.origin)
    }

    /// The follow as it is now.
    public var status: Status {
        condition.lock()
        defer { condition.unlock() }
        return current
    }

    /// Starts the two threads.
    public func start() {
        condition.lock()
        running = 2
        condition.unlock()
        let stream = Thread { [self] in
            streamLoop()
            finished()
        }
        stream.name = "trove follow stream"
        stream.start()
        let worker = Thread { [self] in
            workLoop()
            finished()
        }
        worker.name = "trove follow worker"
        worker.start()
    }

    /// Stops following: the stream and any read in flight are abandoned (a batch being
    /// written completes or rolls back whole), and this returns once both threads ended.
    public func stop() {
        condition.lock()
        stopping = true
        streamInterrupter?.interrupt()
        pull?.interrupt()
        current.state = .stopped
        current.since = nil
        condition.broadcast()
        while running > 0 { condition.wait() }
        condition.unlock()
    }

    private func finished() {
        condition.lock()
        running -= 1
        condition.broadcast()
        condition.unlock()
    }

    private var isStopping: Bool {
        condition.lock()
        defer { condition.unlock() }
        return stopping
    }

    private func update(_ change: (inout Status) -> Void) {
        condition.lock()
        change(&current)
        condition.unlock()
    }

    /// Waits `seconds`, or less when the follow stops.
    private func pause(_ seconds: Double) {
        let deadline = Date().addingTimeInterval(seconds)
        condition.lock()
        while !stopping, condition.wait(until: deadline) {}
        condition.unlock()
    }

    // MARK: - The stream

    /// How one stream ended.
    private enum Ending: Equatable {
        case cancelled(String)
        case revoked(String)
    }

    private func streamLoop() {
        let token = AccessToken.gcloud(cloud)
        let home = location.restURL()
        var url = home
        var refusals = 0
        var failures = 0
        var redirects = 0
        while !isStopping {
            let client = streamClient()

            var headers = ["Accept: text/event-stream"]
            var problem: String?
            var refused = false
            var ending: Ending?
            var delivered = false
            do {
                if let authorization = try token.header() { headers.append(authorization) }
            } catch {
                problem = error.description
                refused = true
            }
            if problem == nil {
                let stream = EventStream { [self] event in
                    switch event.name {
                    case "put", "patch":
                        let changes = LocationChange.of(event, shape: location.shape)
                        if !delivered {
                            delivered = true
                            showFollowing()
                        }
                        enqueue(changes)
                    case "cancel":
                        ending = .cancelled(Self.text(event.data))
                        return false
                    case "auth_revoked":
                        ending = .revoked(Self.text(event.data))
                        return false
                    default: break  // keep-alive, and events this does not know
                    }
                    let now = timestamp()
                    update { $0.lastEvent = now }
                    return true
                }
                var outcome = HTTPOutcome.failed(message: "not sent", attempts: 0)
                client.send(
                    count: 1,
                    request: { _ in HTTPRequest(method: "GET", url: url, headers: headers) },
                    handler: { _ in stream }
                ) { _, result in
                    outcome = result
                    return true
                }
                condition.lock()
                streamInterrupter = nil
                condition.unlock()
                if isStopping { break }
                if let target = stream.redirect {
                    if redirects < 5, Self.mayFollow(from: home, to: target) {
                        redirects += 1
                        url = target
                        continue
                    }
                    problem =
                        "the database sent the stream to \(printable(target)), not one of its own servers"
                    refused = true
                } else {
                    (problem, refused) = whyItEnded(
                        stream, ending: ending, outcome: outcome, token: token)
                }
            }
            redirects = 0
            url = home
            if delivered {
                refusals = 0
                failures = 0
            }
            if refused { refusals += 1 } else { failures += 1 }
            if refusals >= maxRefusals {
                giveUp(after: refusals, problem: problem)
                return
            }
            let wait = backoff(refusals: refusals, failures: failures, ending: ending)
            update {
                $0.state = .reconnecting
                $0.since = nil
                $0.message = problem
            }
            log("reconnecting to \(location.origin)" + (problem.map { ": \($0)" } ?? ""))
            if wait > 0 { pause(wait) }
        }
    }

    /// A client for one stream, which `stop` can interrupt.
    private func streamClient() -> HTTPClient {
        var configuration = HTTPConfiguration()
        configuration.maxAttempts = 1
        configuration.maxConnections = 1
        configuration.stallTimeout = stallSeconds
        configuration.connectTimeout = 15
        let client = HTTPClient(configuration: configuration)
        condition.lock()
        streamInterrupter = client.interrupter
        if stopping { client.interrupter.interrupt() }
        condition.unlock()
        return client
    }

    /// Shows the first change a stream delivered: the location is followed.
    private func showFollowing() {
        let now = timestamp()
        update {
            $0.state = .following
            $0.since = now
            $0.message = nil
        }
        log("following \(location.origin)")
    }

    /// Why a stream that was not redirected ended, and whether the database refused it
    /// (which renews the token when it was the credentials).
    private func whyItEnded(
        _ stream: EventStream, ending: Ending?, outcome: HTTPOutcome, token: AccessToken
    ) -> (problem: String, refused: Bool) {
        if let ending {
            let problem: String
            switch ending {
            case .cancelled(let reason):
                problem = "the database cancelled the stream: \(reason)"
            case .revoked(let reason):
                problem =
                    "the database revoked the credentials: \(reason); asking gcloud for a fresh token"
            }
            token.renew()
            return (problem, true)
        } else if stream.status != 0, !(200..<300).contains(stream.status) {
            let answer = HTTPOutcome.response(
                HTTPResponse(status: stream.status, body: stream.errorBody), attempts: 1)
            let problem =
                LiveReader.error(answer, body: stream.errorBody, location: location)
                .description
            let refused = !HTTPConfiguration.retryable(status: stream.status)
            if stream.status == 401 || stream.status == 403 { token.renew() }
            return (problem, refused)
        } else {
            let problem =
                "the stream ended: "
                + (outcome.isConnectionFailure || outcome.status == nil
                    ? describe(outcome) : "the database closed it")
            return (problem, false)
        }
    }

    /// The seconds to wait before the next stream: none right after revoked credentials
    /// (a fresh token is asked for), else doubling with the streams that failed in a row,
    /// up to `maxBackoff`, with some jitter.
    private func backoff(refusals: Int, failures: Int, ending: Ending?) -> Double {
        let revoked: Bool = {
            if case .revoked? = ending { return true }
            return false
        }()
        let attempt = refusals + failures
        return revoked && refusals == 1
            ? 0
            : min(maxBackoff, 0.5 * pow(2, Double(max(0, attempt - 1))))
                * Double.random(in: 0.8...1.0)
    }

    /// Gives up following after `refusals` refusals in a row.
    private func giveUp(after refusals: Int, problem: String?) {
        let message =
            "stopped following \(location.origin) after \(refusals) refusals in a row: "
            + (problem ?? "refused")
            + "; the queue is served as it is (restart 'review serve' to follow again)"
        update {
            $0.state = .stopped
            $0.since = nil
            $0.message = message
        }
        log(message)
    }

    /// An event's data as text for a message: a JSON string's content, else as sent.
    private static func text(_ data: [UInt8]) -> String {
        var parser = JSONParser(data)
        if let text = (try? parser.parseValue())?.stringValue { return printable(text) }
        return printable(String(decoding: data.prefix(300), as: UTF8.self))
    }

    /// Whether a stream sent from `home` to `target` may go there with the credentials:
    /// the same host, another of Firebase's database servers, or loopback to loopback
    /// (an emulator or a stand-in).
    static func mayFollow(from home: String, to target: String) -> Bool {
        guard let from = URLComponents(string: home)?.host?.lowercased(),
            let to = URLComponents(string: target), let scheme = to.scheme?.lowercased(),
            scheme == "https" || scheme == "http", let host = to.host?.lowercased()
        else { return false }
        if host == from { return true }
        let loopback: (String) -> Bool = {
            $0 == "localhost" || $0 == "::1" || $0 == "[::1]" || $0.hasPrefix("127.")
        }
        if loopback(from) && loopback(host) { return true }
        return scheme == "https"
            && (host.hasSuffix(".firebaseio.com") || host.hasSuffix(".firebasedatabase.app"))
    }

    // MARK: - The worker

    private func enqueue(_ changes: [LocationChange]) {
        guard !changes.isEmpty else { return }
        condition.lock()
        for change in changes where !pending.contains(change) { pending.append(change) }
        condition.broadcast()
        condition.unlock()
    }

    /// A post whose photo could not be downloaded, tried again when due.
    private typealias Retry = (change: LocationChange, attempts: Int, due: Date)

    /// The pull the work thread runs, on a connection of its own; nil, with the follow
    /// stopped, when the workspace or the location cannot be opened.
    private func openPull() -> PostPull? {
        let pull: PostPull
        do {
            let workspace = try Workspace(path: workspacePath, busyTimeout: busyTimeout)
            pull = try PostPull(workspace: workspace, location: location, cloud: cloud)
        } catch {
            let message = "cannot follow \(location.origin): \(error)"
            update {
                $0.state = .stopped
                $0.message = message
            }
            log(message)
            condition.lock()
            stopping = true
            streamInterrupter?.interrupt()
            condition.unlock()
            return nil
        }
        return pull
    }

    /// Drops the retries `work` took care of and schedules those refused again, after 2,
    /// 4, 8… seconds, giving up after eight attempts.
    private func scheduleRetries(
        _ summary: PostImportSummary, refused: [String], work: [LocationChange],
        into retries: inout [String: Retry]
    ) {
        let everything = work.contains(.everything)
        for id in retries.keys where !refused.contains(id) {
            if work.contains(retries[id]!.change) || everything { retries[id] = nil }
        }
        for (id, reason) in summary.refusedPosts {
            let change =
                work.first { Self.names($0, id) }
                ?? (location.shape == .flat ? .post(id) : .everything)
            let attempts = (retries[id]?.attempts ?? 0) + 1
            if attempts > 8 {
                retries[id] = nil
                log("gave up on post \(id) for now: \(reason)")
                continue
            }
            let delay = min(300, 2 * pow(2, Double(attempts - 1)))
            retries[id] = (change, attempts, Date().addingTimeInterval(delay))
        }
    }

    private func workLoop() {
        guard let pull = openPull() else { return }
        condition.lock()
        self.pull = pull
        condition.unlock()
        // Posts whose photo could not be downloaded (the app may write the post before
        // its upload ends): tried again after 2, 4, 8… seconds, eight times.
        var retries: [String: Retry] = [:]
        while true {
            condition.lock()
            while !stopping, pending.isEmpty {
                guard let due = retries.values.map(\.due).min() else {
                    condition.wait()
                    continue
                }
                if due <= Date() { break }
                _ = condition.wait(until: due)
            }
            if stopping {
                condition.unlock()
                return
            }
            var work = pending
            pending = []
            condition.unlock()
            let now = Date()
            for (id, retry) in retries where retry.due <= now && !work.contains(retry.change) {
                work.append(retry.change)
                _ = id
            }
            do {
                let summary = try pull.refresh(work)
                let everything = work.contains(.everything)
                let changed = summary.new + summary.updated + summary.returned.count
                let refused = summary.refusedPosts.map(\.id)
                let newlyRefused = refused.filter { retries[$0] == nil }
                scheduleRetries(summary, refused: refused, work: work, into: &retries)
                let stamp = timestamp()
                update {
                    $0.stored += changed
                    $0.withdrawn += summary.withdrawn.count
                    $0.refused = retries.keys.sorted()
                    if everything { $0.lastSync = stamp }
                }
                // A retry that changes nothing says nothing.
                if changed + summary.withdrawn.count + newlyRefused.count > 0 || everything {
                    log(Self.line(summary, everything: everything, origin: location.origin))
                }
            } catch {
                if isStopping { return }
                let message = "\(error)"
                update { $0.message = message }
                log("cannot bring the queue in step with \(location.origin): \(message)")
                // Tried again shortly; a stream that fails too reconnects and re-reads.
                condition.lock()
                for change in work where !pending.contains(change) { pending.append(change) }
                condition.unlock()
                pause(5)
            }
        }
    }

    private static func names(_ change: LocationChange, _ id: String) -> Bool {
        switch change {
        case .post(let post): return post == id
        case .taggedPost(_, _, let post): return post == id
        default: return false
        }
    }

    private static func line(_ summary: PostImportSummary, everything: Bool, origin: String)
        -> String
    {
        var parts = [
            "\(summary.new) new", "\(summary.updated) changed",
            "\(summary.withdrawn.count) withdrawn",
        ]
        if summary.downloadedPhotos > 0 {
            parts.append("\(summary.downloadedPhotos) photos downloaded")
        }
        if !summary.refusedPosts.isEmpty {
            parts.append(
                "\(summary.refusedPosts.count) waiting for their photo ("
                    + summary.refusedPosts.map(\.id).joined(separator: ", ") + ")")
        }
        return (everything ? "read \(origin) again: " : "from \(origin): ")
            + parts.joined(separator: ", ")
    }
}

/// A stream's answer as it arrives: its events to `handle` (false ends the stream), a
/// redirect's target, or an error's status and start.
private final class EventStream: HTTPResponseHandler {
    private var parser = EventStreamParser(maxDataBytes: 1 << 20)
    private let handle: (ServerSentEvent) -> Bool
    private(set) var status = 0
    private(set) var redirect: String?
    private(set) var errorBody: [UInt8] = []

    init(_ handle: @escaping (ServerSentEvent) -> Bool) { self.handle = handle }

    func head(_ head: HTTPResponseHead) -> Bool {
        status = head.status
        if [301, 302, 303, 307, 308].contains(head.status) { redirect = head.value("Location") }
        return true
    }

    func body(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard (200..<300).contains(status) else {
            if errorBody.count < 4096 { errorBody.append(contentsOf: bytes.prefix(4096)) }
            return true
        }
        return parser.feed(bytes, dispatch: handle)
    }
}
