import Foundation
import TroveBase
import TroveCommandLine
import TroveHTTP
import TroveKit
import TroveServe
import TroveStore

/// `trove review serve` and `trove review moderators add|list|rm`: the review queue served
/// to several moderators' browsers at once.
extension ReviewCommand {
    static let defaultListen = "127.0.0.1:8421"

    static let serve = Command(
        "serve", abstract: "Serve the review queue to several moderators' browsers at once.",
        discussion: """
            Moderators sign in with the link 'trove review moderators add NAME' printed for
            them; every decision is credited to the link's moderator and made on the
            version of the post the page showed (a post changed since is refused and
            stays in the queue). Opening a post claims it for review.claim-minutes
            (default 5): the others' queues skip it until it is decided, skipped or the
            time is up; an idle page stops renewing it after that long ('trove review
            claims' lists and releases claims). Decisions and claims of others, and
            posts an import or a pull brings, show within 2 seconds. Keys as in
            the terminal queue: a approve, r reject then 1-8, f flag, s skip, u undo
            your last decisions (while nobody decided the post since), and n a note for
            the next decision, j/k next/previous, p the user's panel (their posts, the
            decisions on them, a confirmed reject of all their pending posts), / search
            by id or text, ? help. The server listens on loopback unless --listen names
            another address (anyone holding a sign-in link can then moderate); it answers
            only requests whose Host is its address or a --name. A request must arrive
            whole within 10 seconds; bodies are limited to 64 KiB; at most 512
            connections: 16 for each signed-in session, 256 for all the others together
            (the oldest idle one is closed to make room), so idle connections never
            keep a signed-in moderator out. The page loads nothing from the network except
            map tiles with --tiles. Ctrl-C stops it; accepted decisions are in the
            workspace.

            A sign-in link signs in once and expires ('review moderators add NAME
            --link-minutes N'); a used or expired link answers 403 and says to ask for a
            new one ('review moderators link NAME'). A browser signed in stays signed in
            until it makes no request for --session-idle-minutes (default 720, 12 hours;
            an open page's background poll does not count); then it gets the signed-out
            page and needs a new link.

            --behind-proxy is for a proxy on this machine that terminates HTTPS (nginx,
            Caddy) and passes requests to the server over loopback: a request from a
            loopback peer whose X-Forwarded-Proto is https gets its session cookie marked
            Secure, and its Origin must be https. X-Forwarded-Proto from any other peer
            is ignored. The proxy must pass the Host the browser sent, and that host
            must be given with --name.

            --tls-cert FILE --tls-key FILE serve HTTPS itself (libmicrohttpd with GnuTLS):
            the session cookie is marked Secure and links printed with --url https://...
            sign in. The key must be unencrypted PEM; both files are read at start.

            --follow URL keeps the queue in step with the live database location the app
            writes (as 'import posts --from URL' reads it) while moderators work: it reads
            the whole location, then follows its REST stream, storing new and changed
            posts with their photos and withdrawing deleted ones as they happen. A dropped
            or stalled stream reconnects with growing waits and reads the whole location
            again; auth_revoked gets a fresh token from gcloud; after 5 refusals in a row
            (cancel, 401, 403) it stops following and says why. The page shows whether it
            is following and since when.
            """,
        options: [
            listenOption, hostNameOption, tilesOption, followOption, sessionIdleOption,
            behindProxyFlag, tlsCertOption, tlsKeyOption,
        ],
        run: runServe)

    static let behindProxyFlag = Flag(
        "behind-proxy",
        help: "A proxy on this machine is in front: trust its X-Forwarded-Proto (loopback only).")
    static let tlsCertOption = Option<String>(
        "tls-cert", value: "file",
        help: "Serve HTTPS with this certificate (PEM, then any intermediates).")
    static let tlsKeyOption = Option<String>(
        "tls-key", value: "file", help: "The certificate's private key (PEM, unencrypted).")
    static let sessionIdleOption = Option<Int>(
        "session-idle-minutes", value: "n",
        help: "Sign a browser out after this many minutes without a request (default 720).",
        expected: "a whole number of minutes from 1 to 525600 (a year)"
    ) { Int($0).flatMap { (1...525_600).contains($0) ? $0 : nil } }

    static let listenOption = Option<String>(
        "listen", value: "address:port",
        help: "Where to listen (default \(defaultListen); port 0 picks a free one).")
    static let hostNameOption = Option<String>(
        "name", value: "host", help: "Another host name the server answers to."
    ).repeated
    static let tilesOption = Option<String>(
        "tiles", value: "url-template",
        help: "A basemap, e.g. https://tile.openstreetmap.org/{z}/{x}/{y}.png.")
    static let followOption = Option<String>(
        "follow", value: "url",
        help: "Keep the queue in step with this database location (…/Locations or …/Users).")

    static let moderators = Command(
        "moderators", abstract: "Manage who may sign in to 'review serve'.",
        subcommands: [moderatorsAdd, moderatorsLink, moderatorsList, moderatorsRemove])

    static let moderatorsAdd = Command(
        "add", abstract: "Add a moderator and print their secret sign-in link.",
        discussion: """
            The link signs in to 'trove review serve' on its default address (--url names
            another, e.g. http://review.example:8421). It signs in once, within
            --link-minutes (default 60); the browser it signed in stays signed in until
            the session is idle for longer than 'review serve --session-idle-minutes'.
            Only the token's SHA-256 is kept: the link is printed once. Adding a moderator
            again prints a new link; the old one stops working and their browsers are
            signed out ('review moderators link NAME' gives a new link and keeps them
            signed in). Works while the server runs.
            """,
        arguments: [moderatorArgument],
        options: [urlOption, linkMinutesOption]
    ) { invocation in
        let name = try checkedModerator(invocation[moderatorArgument], invocation)
        let base = try serverBase(invocation)
        let workspace = try invocation.openWorkspace()
        let minutes = invocation[linkMinutesOption] ?? ModeratorAccess.defaultLinkMinutes
        let (token, renewed) = try ModeratorAccess(workspace: workspace).add(
            name, linkMinutes: minutes)
        invocation.print("\(base)/signin?token=\(token)")
        invocation.note(
            (renewed
                ? "new sign-in link for \(ReviewFormat.line(name)); the old one no longer works and their browsers are signed out"
                : "added moderator \(ReviewFormat.line(name)); give them this link, it is not shown again")
                + "; it signs in once within \(describeMinutes(minutes))")
        return .success
    }

    static let moderatorsLink = Command(
        "link",
        abstract: "Print a new sign-in link for a moderator; their browsers stay signed in.",
        discussion: """
            For a moderator whose link was used, has expired or was lost. The old link
            stops working; the new one signs in once within --link-minutes (default 60).
            """,
        arguments: [removedModeratorArgument],
        options: [urlOption, linkMinutesOption]
    ) { invocation in
        let name = invocation[removedModeratorArgument]
        let base = try serverBase(invocation)
        let workspace = try invocation.openWorkspace()
        let minutes = invocation[linkMinutesOption] ?? ModeratorAccess.defaultLinkMinutes
        guard
            let token = try ModeratorAccess(workspace: workspace).link(name, linkMinutes: minutes)
        else {
            throw CommandFailure(
                "no moderator '\(ReviewFormat.line(name))' ('trove review moderators add NAME' "
                    + "adds one)")
        }
        invocation.print("\(base)/signin?token=\(token)")
        invocation.note(
            "new sign-in link for \(ReviewFormat.line(name)); it signs in once within "
                + describeMinutes(minutes))
        return .success
    }

    static let linkMinutesOption = Option<Int>(
        "link-minutes", value: "n",
        help: "How long the link may sign in, in minutes (default 60).",
        expected: "a whole number of minutes from 1 to 10080 (a week)"
    ) { Int($0).flatMap { (1...10080).contains($0) ? $0 : nil } }

    static func describeMinutes(_ minutes: Int) -> String {
        minutes == 1 ? "1 minute" : "\(minutes) minutes"
    }

    /// The server's address for a link: --url or the default, with no trailing slash.
    static func serverBase(_ invocation: Invocation) throws -> String {
        var base = invocation[urlOption] ?? "http://\(defaultListen)"
        guard let url = URLComponents(string: base), url.scheme == "http" || url.scheme == "https",
            url.host?.isEmpty == false, url.query == nil
        else { throw invocation.usageError("--url: expected http://HOST[:PORT]") }
        while base.hasSuffix("/") { base.removeLast() }
        return base
    }

    static let moderatorArgument = Argument<String>(
        "name", help: "The moderator's name (one line of text).")
    static let urlOption = Option<String>(
        "url", value: "url", help: "The server's address (default http://\(defaultListen))."
    )

    static let moderatorsList = Command(
        "list", abstract: "List the moderators.", formats: [.text, .json]
    ) { invocation in
        let entries = try ModeratorAccess(workspace: try invocation.openWorkspace()).list()
        let now = Date().timeIntervalSince1970
        // Whether the link may still sign in: used, expired or open until when.
        func link(_ entry: Moderator) -> (state: String, until: String) {
            let until = timestamp(Date(timeIntervalSince1970: entry.linkUntil.rounded(.down)))
            if entry.linkUsedAt != nil { return ("used", until) }
            return entry.linkUntil > now ? ("open", until) : ("expired", until)
        }
        if invocation.format == .json {
            invocation.print(
                entries.map {
                    JSONObject([
                        "name": $0.name, "added_at": $0.addedAt, "sessions": $0.sessions,
                        "link": link($0).state, "link_until": link($0).until,
                        "link_used_at": $0.linkUsedAt,
                    ])
                }.jsonText)
        } else {
            for entry in entries {
                let (state, until) = link(entry)
                let described =
                    switch state {
                    case "used": "link used \(entry.linkUsedAt ?? "")"
                    case "open": "link open until \(until)"
                    default: "link expired"
                    }
                invocation.print(
                    "\(ReviewFormat.line(entry.name))\tadded \(entry.addedAt)\t"
                        + "\(entry.sessions) signed in\t\(described)")
            }
            invocation.note("\(entries.count) moderators")
        }
        return .success
    }

    static let removedModeratorArgument = Argument<String>("name", help: "The moderator's name.")

    static let moderatorsRemove = Command(
        "rm", abstract: "Remove a moderator: their link and browsers stop working at once.",
        arguments: [removedModeratorArgument]
    ) { invocation in
        let name = invocation[removedModeratorArgument]
        let workspace = try invocation.openWorkspace()
        guard try ModeratorAccess(workspace: workspace).remove(name) else {
            throw CommandFailure("no moderator '\(ReviewFormat.line(name))'")
        }
        invocation.note("removed moderator \(ReviewFormat.line(name))")
        return .success
    }

    static let claims = Command(
        "claims", abstract: "List the claims on posts open in 'review serve'; release them.",
        discussion: """
            Lists the running claims: the post, who holds it, since when and until when
            (UTC). A claim ends when its holder decides or skips the post, closes the tab,
            or after review.claim-minutes without activity in the page. --release ID ends
            the claim on post ID, --moderator NAME every claim NAME holds: the post is open
            to the others at once, and the holder's page says who released it and does not
            take it back unless the holder opens the post again. The releaser is --as NAME
            (else $TROVE_MODERATOR, else $USER). Works while the server runs.
            """,
        options: [releaseOption, claimHolderOption, asOption], formats: [.text, .json]
    ) { invocation in
        let workspace = try invocation.openWorkspace()
        let claims = PostClaims(workspace: workspace)
        let post = invocation[releaseOption]
        let holder = invocation[claimHolderOption]
        if post != nil || holder != nil {
            if post != nil && holder != nil {
                throw invocation.usageError("--release ID or --moderator NAME, not both")
            }
            let lead = try moderator(invocation)
            let released = try claims.release(post: post, heldBy: holder, as: lead)
            guard !released.isEmpty else {
                let what =
                    post.map { "no running claim on post '\(ReviewFormat.line($0))'" }
                    ?? "'\(ReviewFormat.line(holder ?? ""))' holds no running claim"
                throw CommandFailure(what + "; 'trove review claims' lists them")
            }
            for claim in released {
                invocation.note(
                    "released \(ReviewFormat.line(claim.postID)) "
                        + "(held by \(ReviewFormat.line(claim.moderator)))")
            }
            return .success
        }
        let live = try claims.live()
        func time(_ seconds: Double?) -> String? {
            seconds.map { timestamp(Date(timeIntervalSince1970: $0.rounded(.down))) }
        }
        if invocation.format == .json {
            invocation.print(
                live.map {
                    JSONObject([
                        "id": $0.postID, "moderator": $0.moderator, "since": time($0.since),
                        "until": time($0.until),
                    ])
                }.jsonText)
            return .success
        }
        for claim in live {
            invocation.print(
                "\(ReviewFormat.line(claim.postID))\t\(ReviewFormat.line(claim.moderator))\t"
                    + "since \(time(claim.since) ?? "?")\tuntil \(time(claim.until) ?? "?")")
        }
        invocation.note(live.count == 1 ? "1 claim" : "\(live.count) claims")
        return .success
    }

    static let releaseOption = Option<String>(
        "release", value: "id", help: "End the claim on this post.")
    static let claimHolderOption = Option<String>(
        "moderator", value: "name", help: "End every claim this moderator holds.")

    /// `HOST:PORT` or `[V6]:PORT` into its parts.
    static func listenAddress(_ text: String) -> (host: String, port: UInt16)? {
        guard let colon = text.lastIndex(of: ":"),
            let port = UInt16(text[text.index(after: colon)...])
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.isEmpty ? nil : (host, port)
    }

    /// The key pair of --tls-cert and --tls-key, read; nil without them.
    static func tlsFiles(_ invocation: Invocation) throws -> HTTPServer.TLS? {
        let certificate = invocation[tlsCertOption]
        let key = invocation[tlsKeyOption]
        guard certificate != nil || key != nil else { return nil }
        guard let certificate, let key else {
            throw invocation.usageError(
                certificate == nil
                    ? "--tls-key needs --tls-cert FILE, the certificate it belongs to"
                    : "--tls-cert needs --tls-key FILE, the certificate's private key")
        }
        if invocation[behindProxyFlag] {
            throw invocation.usageError(
                "--tls-cert or --behind-proxy: the server speaks HTTPS itself, or a proxy "
                    + "does, not both")
        }
        func read(_ flag: String, _ path: String, _ what: String) throws -> String {
            let resolved = invocation.resolve(path)
            guard let data = FileManager.default.contents(atPath: resolved) else {
                throw invocation.usageError(
                    "--\(flag): cannot read '\(path)' (\(FileManager.default.fileExists(atPath: resolved) ? "not readable" : "no such file"))"
                )
            }
            guard let text = String(data: data, encoding: .utf8),
                text.contains("-----BEGIN ") && text.contains(what)
            else {
                throw invocation.usageError(
                    "--\(flag): '\(path)' is not a PEM \(what == "CERTIFICATE" ? "certificate" : "private key")"
                )
            }
            return text
        }
        return HTTPServer.TLS(
            certificate: try read("tls-cert", certificate, "CERTIFICATE"),
            key: try read("tls-key", key, "PRIVATE KEY"))
    }

    /// The server's settings from the options, with its page, script and style from the
    /// templates.
    private static func serverConfiguration(_ invocation: Invocation, tls: Bool) throws
        -> ReviewServer.Configuration
    {
        var configuration = ReviewServer.Configuration()
        configuration.behindProxy = invocation[behindProxyFlag]
        configuration.tls = tls
        if let minutes = invocation[sessionIdleOption] {
            configuration.sessionIdleMinutes = minutes
        }
        if let template = invocation[tilesOption] {
            do {
                configuration.tiles = try TileSource(template: template)
            } catch {
                throw invocation.usageError("--tiles: \(error)")
            }
        }
        let library = try TemplateLibrary(overrideFolder: invocation.context.templatesFolder)
        func template(_ name: String) throws -> String {
            guard let data = library.contents(of: "review-serve/" + name),
                let text = String(data: data, encoding: .utf8)
            else { throw InputError("review-serve/" + name, "the template was not found") }
            return text
        }
        configuration.page = try template("page.html")
        configuration.script = try template("app.js")
        configuration.style = try template("app.css")
        return configuration
    }

    /// A follower of `location` that reports on standard error unless quiet.
    private static func makeFollower(
        _ location: LiveLocation, workspace: Workspace, _ invocation: Invocation
    ) throws -> PostFollower {
        let errors = invocation.context.standardError
        let quiet = invocation.isQuiet
        return PostFollower(
            workspacePath: workspace.path, busyTimeout: try invocation.busyTimeout(),
            location: location, cloud: invocation.context.cloud
        ) { line in
            guard !quiet else { return }
            errors.write(TerminalText.safe(line) + "\n")
            errors.flush()
        }
    }

    /// The Host values the server answers to: its address as shown, `localhost` on
    /// loopback, the machine's name when it listens on every address, and `names`.
    private static func allowedHosts(
        host: String, shown: String, port bound: UInt16, loopback: Bool, names: [String]
    ) -> Set<String> {
        var hosts: Set<String> = ["\(shown):\(bound)".lowercased()]
        if loopback { hosts.insert("localhost:\(bound)") }
        if host == "0.0.0.0" || host == "::" {
            // Every address of this machine: it answers to its own name too.
            var name = [UInt8](repeating: 0, count: 256)
            if gethostname(&name, name.count - 1) == 0 {
                let text = String(decoding: name.prefix { $0 != 0 }, as: UTF8.self).lowercased()
                if !text.isEmpty { hosts.insert("\(text):\(bound)") }
            }
        }
        for name in names {
            hosts.insert(name.lowercased())
            hosts.insert("\(name.lowercased()):\(bound)")
        }
        return hosts
    }

    static func runServe(_ invocation: Invocation) throws -> ExitStatus {
        let listen = invocation[listenOption] ?? defaultListen
        guard let (host, port) = listenAddress(listen) else {
            throw invocation.usageError("--listen: expected ADDRESS:PORT, e.g. \(defaultListen)")
        }
        let tls = try tlsFiles(invocation)
        var configuration = try serverConfiguration(invocation, tls: tls != nil)
        var location: LiveLocation?
        if let url = invocation[followOption] {
            do {
                location = try LiveLocation(url)
            } catch {
                throw invocation.usageError("--follow: \(error)")
            }
        }
        let workspace = try invocation.openWorkspace()
        if workspace.isReadOnly { throw WorkspaceError.readOnly(path: workspace.path) }
        var follower: PostFollower?
        if let location {
            let found = try makeFollower(location, workspace: workspace, invocation)
            configuration.follow = { found.status }
            follower = found
        }
        // Signals arrive on this thread only, through sigwait.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        defer { pthread_sigmask(SIG_UNBLOCK, &signals, nil) }
        let loopback = host == "127.0.0.1" || host == "::1" || host.hasPrefix("127.")
        let holder = ServerHolder()
        let http: HTTPServer
        do {
            // libmicrohttpd's complaints come as a count, a line a minute at most.
            let errors = invocation.context.standardError
            http = try HTTPServer(
                host: host, port: port, tls: tls,
                report: { line in
                    errors.write(TerminalText.safe(line) + "\n")
                    errors.flush()
                }
            ) { request in
                holder.server?.respond(request) ?? .text(503, "starting\n")
            }
        } catch {
            throw CommandFailure("\(error)")
        }
        let bound = http.port
        let shown = host.contains(":") ? "[\(host)]" : host
        let hosts = allowedHosts(
            host: host, shown: shown, port: bound, loopback: loopback,
            names: invocation[hostNameOption])
        configuration.allowedHosts = hosts
        holder.server = ReviewServer(workspace: workspace, configuration: configuration)
        if !loopback {
            invocation.warn(
                "listening on \(listen), not loopback: anyone who holds a sign-in link and can "
                    + "reach this address can moderate; it answers to Host "
                    + hosts.sorted().joined(separator: ", ") + " (add names with --name)")
        }
        let scheme = tls == nil ? "http" : "https"
        invocation.note(
            "serving the review queue on \(scheme)://\(shown):\(bound)/ (Ctrl-C stops)")
        invocation.context.standardError.flush()
        // Threads started from here on inherit the blocked signals.
        follower?.start()
        var received: Int32 = 0
        sigwait(&signals, &received)
        follower?.stop()
        http.stop()
        invocation.note("stopped; every accepted decision is in the workspace")
        return .success
    }
}

/// The server, once made, for the handler that starts before it.
final class ServerHolder: @unchecked Sendable {
    var server: ReviewServer?
}
