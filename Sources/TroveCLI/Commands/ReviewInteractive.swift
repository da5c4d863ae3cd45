import Foundation
import TroveCommandLine
import TroveKit
import TroveStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `trove review` alone: the pending (or flagged) queue one post at a time, on a terminal.
enum ReviewInteractive {
    static func run(_ invocation: Invocation) throws -> ExitStatus {
        guard invocation.context.standardInputIsTerminal else {
            throw invocation.usageError(
                "interactive review needs a terminal; use 'trove review list', 'show', "
                    + "'approve', 'reject', 'flag', or 'review sheet' for a browser")
        }
        let status = try ReviewCommand.status(invocation)
        guard let status, status == .pending || status == .flagged else {
            throw invocation.usageError(
                "the queue reviews pending or flagged posts (--status pending|flagged)")
        }
        let moderator = try ReviewCommand.moderator(invocation)
        let workspace = try invocation.openWorkspace()
        guard let terminal = RawTerminal(fileDescriptor: 0) else {
            throw CommandFailure("cannot put the terminal in single-key mode")
        }
        defer { terminal.restore() }
        let context = invocation.context
        let session = ReviewSession(
            workspace: workspace, moderator: moderator, output: context.standardOutput,
            style: ReviewFormat.previewStyle(context), status: status,
            readKey: { terminal.readByte() },
            measure: { ReviewFormat.previewStyle(context) },
            openPhoto: PhotoViewer.find(context.environment).map { viewer in
                { path in viewer.open(path) }
            })
        return try session.run()
    }
}

/// The system's photo viewer (`xdg-open`, or `open` on macOS), when there is one.
struct PhotoViewer {
    let executable: String

    static func find(_ environment: [String: String]) -> PhotoViewer? {
        // Without a display there is nothing to show a window on.
        #if os(Linux)
            guard environment["DISPLAY"] != nil || environment["WAYLAND_DISPLAY"] != nil
            else { return nil }
            let names = ["xdg-open"]
        #else
            let names = ["open"]
        #endif
        let folders = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        for name in names {
            for folder in folders {
                let path = "\(folder)/\(name)"
                if FileManager.default.isExecutableFile(atPath: path) {
                    return PhotoViewer(executable: path)
                }
            }
        }
        return nil
    }

    /// Starts the viewer on `path` without waiting; its output is not ours to show.
    func open(_ path: String) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [path]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        return (try? process.run()) != nil
    }
}

/// The interactive queue's logic, separate from the terminal so tests can drive it with
/// scripted keys.
final class ReviewSession {
    let workspace: Workspace
    let moderator: String
    let output: CommandOutput
    /// The window drawn in: measured again before every redraw when `measure` is given,
    /// so a resized window gets a screen that fits it.
    private(set) var style: ReviewFormat.PreviewStyle
    let measure: (() -> ReviewFormat.PreviewStyle)?
    /// The status the queue walks: pending, or flagged for a second look.
    let status: PostStatus
    /// The next key; `ReviewSession.resized` when the window changed size meanwhile.
    let readKey: () -> UInt8?
    /// Opens a photo in the system viewer; nil when there is none.
    let openPhoto: ((String) -> Bool)?
    private var queue: [String] = []
    private var index = 0
    private var message: String?
    /// Posts skipped in this session.
    private var skipped: [String] = []
    /// Decisions made in this session, newest last, with the queue position of each.
    private var undoStack: [(decision: Decision, index: Int)] = []
    /// What was refused in this session (a post decided by someone else, one gone), said
    /// again on quitting.
    private var refused: [String] = []
    /// The message of the screen on view, drawn again when the window is resized.
    private var shownMessage: String?

    /// What `readKey` gives when the window was resized: no UTF-8 text holds this byte.
    static let resized: UInt8 = 0xFF

    init(
        workspace: Workspace, moderator: String, output: CommandOutput,
        style: ReviewFormat.PreviewStyle, status: PostStatus = .pending,
        readKey: @escaping () -> UInt8?, measure: (() -> ReviewFormat.PreviewStyle)? = nil,
        openPhoto: ((String) -> Bool)? = nil
    ) {
        self.workspace = workspace
        self.moderator = moderator
        self.output = output
        self.style = style
        self.measure = measure
        self.status = status
        self.readKey = readKey
        self.openPhoto = openPhoto
    }

    /// The next key that is not a resize (prompts in the middle of a decision wait on).
    private func nextKey() -> UInt8? {
        while let key = readKey() {
            if key != Self.resized { return key }
        }
        return nil
    }

    /// Every key of the queue, for the prompt and `trove help review`.
    static let keys = """
        a approve · r reject, then the reason 1–8 (Esc cancels) · f flag with a note · \
        s skip · u undo · o open the photo in the system viewer · q quit
        """

    var prompt: String {
        "[a]pprove  [r]eject  [f]lag  [s]kip  [u]ndo  " + (openPhoto == nil ? "" : "[o]pen  ")
            + "[q]uit > "
    }

    func run() throws -> ExitStatus {
        let query = PostQuery(workspace: workspace)
        queue = try query.ids(status: status)
        while true {
            if index >= queue.count {
                draw("No more \(status.rawValue) posts in this round. " + tally() + "\n")
                output.write("[u]ndo  [q]uit > ")
                switch readKey() {
                case Self.resized: message = shownMessage
                case UInt8(ascii: "u"): try undo()
                case UInt8(ascii: "q"), 3, 4, nil: return finish()
                default: message = nil
                }
                continue
            }
            let id = queue[index]
            guard let post = try query.post(id), post.status.rawValue == status.rawValue else {
                // Decided by someone else since the queue was read: move on.
                index += 1
                continue
            }
            let history = try AuditTrail(workspace: workspace).entries(for: id)
            let footer = "(\(index + 1) of \(queue.count))"
            if let measure { style = measure() }
            // Footer and prompt, a spare row for a second prompt line (the reasons), and
            // the message with its blank line.
            draw(
                ReviewFormat.screen(
                    post, history: history, style: style,
                    reservedRows: 3 + (message == nil ? 0 : 2), photoFirst: true) + footer
                    + "\n")
            output.write(prompt)
            guard let key = readKey() else { return finish() }
            switch key {
            case Self.resized:
                message = shownMessage
            case UInt8(ascii: "a"):
                if let problem = post.signals.first(where: { $0.name == .photoUnreadable }) {
                    output.write(
                        "\n" + ReviewFormat.unreadable(id, problem.detail)
                            + ". Approve anyway? [y/N] ")
                    guard nextKey() == UInt8(ascii: "y") else {
                        message = "approval cancelled"
                        continue
                    }
                    try decide(id, .approve, note: nil, confirmed: true, version: post.version)
                } else {
                    try decide(id, .approve, note: nil, version: post.version)
                }
            case UInt8(ascii: "r"):
                if let reason = readReason() {
                    try decide(id, .reject(reason), note: nil, version: post.version)
                } else {
                    message = "reject cancelled"
                }
            case UInt8(ascii: "f"):
                output.write("\nnote (Enter to flag, Esc to cancel): ")
                if let note = readLine(), !note.isEmpty {
                    try decide(id, .flag, note: note, version: post.version)
                } else {
                    message = "flag cancelled: a flag needs a note"
                }
            case UInt8(ascii: "s"):
                index += 1
                if !skipped.contains(id) { skipped.append(id) }
                message = "skipped \(ReviewFormat.safe(id))"
            case UInt8(ascii: "u"): try undo()
            case UInt8(ascii: "o"):
                if let openPhoto, let path = post.photo {
                    message =
                        openPhoto(path) ? "opened the photo" : "the photo viewer did not start"
                } else {
                    message = post.photo == nil ? "this post has no photo" : "no photo viewer"
                }
            case UInt8(ascii: "q"), 3, 4: return finish()
            default: message = "keys: " + Self.keys.replacingOccurrences(of: "\n", with: " ")
            }
        }
    }

    /// The reason keys 1–8; another key asks again, Esc (or end of input) cancels. The
    /// reasons are written over the prompt in lines that fit the window (two at 80
    /// columns, in the row the screen keeps free), the last one with room for asking
    /// again, which rewrites only that line.
    private func readReason() -> RejectionReason? {
        let reasons = RejectionReason.allCases.enumerated().map {
            "\($0.offset + 1) \($0.element.rawValue)"
        }
        let width = max(20, style.columns - 1)
        let again = "press 1–8 for the reason, Esc to cancel > "
        var lines: [String] = []
        var current = "reason:"
        for word in reasons {
            if current.count + 2 + word.count > width {
                lines.append(current)
                current = word
            } else {
                current += (current == "reason:" ? " " : "  ") + word
            }
        }
        if current.count + 2 + again.count > width {
            lines.append(current)
            current = ""
        }
        let last = current
        func promptLine(_ tail: String) -> String {
            ReviewFormat.cut(last.isEmpty ? tail : last + "  " + tail, width)
        }
        output.write(
            "\r\u{1B}[K" + (lines + [promptLine("(Esc cancels) > ")]).joined(separator: "\n"))
        while let key = nextKey() {
            if (49...56).contains(key) {
                let reason = RejectionReason.allCases[Int(key) - 49]
                output.write(reason.rawValue + "\n")
                return reason
            }
            if key == 27 || key == 3 || key == 4 || key == UInt8(ascii: "q") { return nil }
            output.write("\r\u{1B}[K" + promptLine(again))
        }
        return nil
    }

    /// Decided, and skipped posts still waiting.
    private func tally() -> String {
        let statuses = (try? Moderation(workspace: workspace).statuses(skipped)) ?? [:]
        let waiting = skipped.filter { statuses[$0] == status }.count
        var text = "\(undoStack.count) decided here"
        if waiting > 0 {
            text +=
                "; \(waiting) skipped post\(waiting == 1 ? "" : "s") still \(status.rawValue)"
                + " (run 'trove review' again to see \(waiting == 1 ? "it" : "them"))"
        }
        return text + "."
    }

    private func finish() -> ExitStatus {
        let count = undoStack.count
        var text = "\n\(count) decision\(count == 1 ? "" : "s") recorded. " + tally() + "\n"
        if !refused.isEmpty {
            text +=
                "\(refused.count) refused, nothing changed for "
                + (refused.count == 1 ? "it" : "them") + ":\n"
            text += refused.map { "  " + $0 + "\n" }.joined()
        }
        output.write(text)
        return .success
    }

    private func draw(_ body: String) {
        var screen = "\u{1B}[H\u{1B}[2J"
        if let message {
            // One window row: a longer message would push the screen's top off.
            screen += ReviewFormat.cut("» " + message, max(8, style.columns - 1)) + "\n\n"
        }
        shownMessage = message
        message = nil
        output.write(screen + body)
    }

    /// Shows `text` now and says it again on quitting.
    private func refuse(_ text: String) {
        message = text
        refused.append(text)
    }

    /// Decides on the post as drawn: its status and the version on screen, so a re-import
    /// that lands while it is shown is refused ("changed since you saw it").
    private func decide(
        _ id: String, _ action: ReviewAction, note: String?, confirmed: Bool = false,
        version: String
    )
        throws
    {
        let outcome = try Moderation(workspace: workspace).decide(
            [
                DecisionRequest(
                    id: id, expected: status, action: action, note: note, confirmed: confirmed,
                    version: version)
            ],
            moderator: moderator, force: false)
        switch outcome.first {
        case .recorded(let decision):
            undoStack.append((decision, index))
            message =
                "\(ReviewFormat.safe(id)) \(decision.to.rawValue)"
                + (decision.reason.map { " (\($0))" } ?? "")
                + (decision.note.map { ": " + ReviewFormat.safe($0) } ?? "")
        case .conflict(let id, let expected, let current, let last):
            refuse(ReviewFormat.conflict(id, expected, current, last))
        case .unknown(let id):
            refuse("\(ReviewFormat.safe(id)) no longer exists")
        case .needsConfirmation(let id, let detail):
            refuse(ReviewFormat.unreadable(id, detail))
        case .stale(let id, let seen, let current):
            refuse(ReviewFormat.stale(id, seen: seen, current: current))
        case .withdrawn(let id, let note):
            refuse(ReviewFormat.withdrawn(id, note))
        case .alreadyDecided(let id, let status, let last):
            message = ReviewFormat.alreadyDecided(id, status, last)
        case .superseded(let id, let seen, let last):
            refuse(ReviewFormat.superseded(id, seen, last))
        case .unchanged, .alreadyApplied, nil:
            break
        }
        index += 1
    }
    /// Undoes this session's last decision, else this moderator's latest one still
    /// undoable wherever it was made (the page, a sheet, `review undo`): the same record
    /// as everywhere, an undo entry of the trail.
    private func undo() throws {
        let moderation = Moderation(workspace: workspace)
        let target: (id: String, version: String?, status: PostStatus, index: Int?)
        if let last = undoStack.popLast() {
            target = (
                last.decision.postID, last.decision.version, last.decision.to, last.index
            )
        } else if let action = try moderation.undoable(by: moderator, limit: 1).first,
            let post = action.posts.first
        {
            target = (post.id, post.version, post.status, nil)
        } else {
            message = "nothing to undo"
            return
        }
        let outcome = try moderation.undo(
            post: target.id, moderator: moderator, version: target.version,
            expected: target.status)
        guard case .undone(let entries, let kept) = outcome,
            let entry = entries.first(where: { $0.postID == target.id })
        else {
            refuse("undo: " + ReviewFormat.undoRefused(outcome))
            return
        }
        if let position = target.index {
            index = position
        } else if entry.to == status {
            // Decided elsewhere: back in this queue, on screen next.
            queue.insert(target.id, at: min(index, queue.count))
        }
        var text = "undid: \(ReviewFormat.safe(target.id)) is \(entry.to.rawValue) again"
        if entries.count > 1 { text += " (and \(entries.count - 1) more of the same decision)" }
        if !kept.isEmpty { text += "; \(kept.count) left as decided since" }
        message = text
    }

    /// A line typed in single-key mode, echoed; nil when cancelled with Esc or at EOF.
    private func readLine() -> String? {
        var bytes: [UInt8] = []
        var character: [UInt8] = []
        while let key = nextKey() {
            switch key {
            case 13, 10: return String(decoding: bytes, as: UTF8.self)
            case 27, 3, 4: return nil
            case 127, 8:
                // Drop a whole UTF-8 character.
                while let last = bytes.popLast(), last & 0xC0 == 0x80 {}
                output.write("\u{8} \u{8}")
            default:
                guard key >= 0x20 else { continue }
                bytes.append(key)
                character.append(key)
                // Echo a character once its UTF-8 sequence is complete.
                let lead = character[0]
                let length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
                if character.count >= length {
                    output.write(ReviewFormat.safe(String(decoding: character, as: UTF8.self)))
                    character.removeAll()
                }
            }
        }
        return nil
    }
}

// The state to restore, reachable from the signal handler (which can capture nothing).
nonisolated(unsafe) private var savedTerminalState = termios()
// Set by SIGWINCH, taken by the next read.
nonisolated(unsafe) private var windowResized: sig_atomic_t = 0

/// The terminal in single-key mode (no line buffering, no echo), restored on exit and
/// on SIGINT/SIGTERM.
final class RawTerminal {
    let fileDescriptor: Int32

    init?(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
        var state = termios()
        guard tcgetattr(fileDescriptor, &state) == 0 else { return nil }
        savedTerminalState = state
        var raw = state
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        // TCSANOW keeps keys typed ahead; TCSAFLUSH would drop them.
        guard tcsetattr(fileDescriptor, TCSANOW, &raw) == 0 else { return nil }
        let handler: @convention(c) (Int32) -> Void = { signal in
            tcsetattr(0, TCSANOW, &savedTerminalState)
            _exit(128 + signal)
        }
        signal(SIGINT, handler)
        signal(SIGTERM, handler)
        // A parent may have started us with these blocked; the terminal must still be
        // restored when they come.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
        // A resize interrupts the wait for a key (no SA_RESTART), so the queue redraws at
        // once for the new size.
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in windowResized = 1 }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        sigaction(SIGWINCH, &action, nil)
        var resize = sigset_t()
        sigemptyset(&resize)
        sigaddset(&resize, SIGWINCH)
        pthread_sigmask(SIG_UNBLOCK, &resize, nil)
    }

    func restore() {
        tcsetattr(fileDescriptor, TCSANOW, &savedTerminalState)
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
        signal(SIGWINCH, SIG_DFL)
    }

    /// The next byte typed, `ReviewSession.resized` when the window changed size, or nil
    /// at end of input.
    func readByte() -> UInt8? {
        var byte: UInt8 = 0
        while true {
            if windowResized != 0 {
                windowResized = 0
                return ReviewSession.resized
            }
            let count = read(fileDescriptor, &byte, 1)
            if count == 1 { return byte }
            if count < 0 && errno == EINTR { continue }
            return nil
        }
    }
}
