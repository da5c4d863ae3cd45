import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Headless Chromium driven over the DevTools protocol on `--remote-debugging-pipe`
/// (commands on fd 3, replies on fd 4, each a JSON text ended by NUL), so tests can
/// press keys, reload, download and watch every request the page makes.
final class BrowserSession {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let pid: pid_t
    private let commands: Int32
    private let replies: Int32
    private var buffer: [UInt8] = []
    private var nextID = 0
    private var sessionID: String?
    /// Every event seen so far, in order.
    private(set) var events: [[String: Any]] = []
    /// The text typed into each `window.prompt`, in order; nil cancels it.
    var promptAnswers: [String?] = []
    /// The answers to each `window.confirm`, in order; once they run out, OK.
    var confirmAnswers: [Bool] = []
    /// The dialogs the page opened: type and message.
    private(set) var dialogs: [(type: String, message: String)] = []
    let downloads: String
    private let profile: String

    init(chromium: String) throws {
        let base = NSTemporaryDirectory() + "trove-cdp-\(UUID().uuidString)"
        profile = base + "/profile"
        downloads = base + "/downloads"
        try FileManager.default.createDirectory(
            atPath: downloads, withIntermediateDirectories: true)
        var toBrowser: [Int32] = [0, 0]
        var fromBrowser: [Int32] = [0, 0]
        guard pipe(&toBrowser) == 0, pipe(&fromBrowser) == 0 else {
            throw Failure(description: "pipe failed")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toBrowser[0], 3)
        posix_spawn_file_actions_adddup2(&actions, fromBrowser[1], 4)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let arguments = [
            chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--no-default-browser-check", "--remote-debugging-pipe",
            "--user-data-dir=" + profile, "about:blank",
        ]
        var argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, chromium, &actions, nil, &argv, environ)
        close(toBrowser[0])
        close(fromBrowser[1])
        guard spawned == 0 else { throw Failure(description: "cannot start \(chromium)") }
        pid = child
        commands = toBrowser[1]
        replies = fromBrowser[0]
    }

    deinit {
        close(commands)
        close(replies)
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        try? FileManager.default.removeItem(
            atPath: (profile as NSString).deletingLastPathComponent)
    }

    // MARK: - Protocol

    /// Sends a command and waits for its reply; `page` sends it to the attached page.
    @discardableResult
    func send(_ method: String, _ params: [String: Any] = [:], page: Bool = true) throws
        -> [String: Any]
    {
        nextID += 1
        let id = nextID
        var message: [String: Any] = ["id": id, "method": method, "params": params]
        if page, let sessionID { message["sessionId"] = sessionID }
        try write(message)
        while true {
            let reply = try read()
            if reply["id"] as? Int == id {
                if let error = reply["error"] as? [String: Any] {
                    throw Failure(description: "\(method): \(error["message"] ?? error)")
                }
                return reply["result"] as? [String: Any] ?? [:]
            }
        }
    }

    /// Waits until an event named `method` arrives (or has arrived since `after`).
    func waitForEvent(_ method: String, after: Int = 0) throws -> [String: Any] {
        while true {
            if let found = events[min(after, events.count)...].first(where: {
                $0["method"] as? String == method
            }) {
                return found
            }
            _ = try read()
        }
    }

    private func write(_ message: [String: Any]) throws {
        var bytes = Array(try JSONSerialization.data(withJSONObject: message))
        bytes.append(0)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                Glibc.write(commands, $0.baseAddress, $0.count)
            }
            if written <= 0 { throw Failure(description: "the browser closed its pipe") }
            offset += written
        }
    }

    /// The next message; events are kept, and dialogs answered as they open.
    private func read() throws -> [String: Any] {
        while true {
            if let end = buffer.firstIndex(of: 0) {
                let text = Array(buffer[..<end])
                buffer.removeSubrange(...end)
                guard
                    let message = try JSONSerialization.jsonObject(with: Data(text))
                        as? [String: Any]
                else { continue }
                if message["method"] != nil {
                    events.append(message)
                    if message["method"] as? String == "Page.javascriptDialogOpening" {
                        try answer(message["params"] as? [String: Any] ?? [:])
                    }
                }
                return message
            }
            var poller = pollfd(fd: replies, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 30_000) > 0 else {
                throw Failure(description: "the browser did not answer within 30 s")
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = Glibc.read(replies, &chunk, chunk.count)
            if count <= 0 { throw Failure(description: "the browser closed its pipe") }
            buffer += chunk[0..<count]
        }
    }

    private func answer(_ dialog: [String: Any]) throws {
        let type = dialog["type"] as? String ?? ""
        dialogs.append((type, dialog["message"] as? String ?? ""))
        var params: [String: Any] = ["accept": true]
        if type == "prompt" {
            let answer = promptAnswers.isEmpty ? nil : promptAnswers.removeFirst()
            if let answer { params["promptText"] = answer } else { params["accept"] = false }
        }
        if type == "confirm", !confirmAnswers.isEmpty {
            params["accept"] = confirmAnswers.removeFirst()
        }
        nextID += 1
        var message: [String: Any] = [
            "id": nextID, "method": "Page.handleJavaScriptDialog", "params": params,
        ]
        if let sessionID { message["sessionId"] = sessionID }
        try write(message)
    }

    // MARK: - Page

    /// Opens a page target, attaches to it, enables what the tests watch.
    func open(_ file: String) throws {
        let target = try send("Target.createTarget", ["url": "about:blank"], page: false)
        let attached = try send(
            "Target.attachToTarget", ["targetId": target["targetId"] ?? "", "flatten": true],
            page: false)
        sessionID = attached["sessionId"] as? String
        try send(
            "Browser.setDownloadBehavior",
            ["behavior": "allow", "downloadPath": downloads, "eventsEnabled": true], page: false)
        try send("Page.enable")
        try send("Network.enable")
        try navigate(URL(fileURLWithPath: file).absoluteString)
    }

    /// Opens `url` in a browser context of its own (its own cookies: another user) and
    /// attaches to it; returns the page's session, for `use`.
    func openIsolated(_ url: String) throws -> String {
        let context = try send("Target.createBrowserContext", page: false)
        let target = try send(
            "Target.createTarget",
            ["url": "about:blank", "browserContextId": context["browserContextId"] ?? ""],
            page: false)
        let attached = try send(
            "Target.attachToTarget", ["targetId": target["targetId"] ?? "", "flatten": true],
            page: false)
        sessionID = attached["sessionId"] as? String
        try send("Page.enable")
        try send("Network.enable")
        try navigate(url)
        return sessionID ?? ""
    }

    /// Gives the browser a moment to take in what the page just wrote to its local
    /// storage before a reload reads it back: under load it arrives a little after the
    /// page wrote it.
    /// Waits until the browser itself (not only the page's copy) holds everything the page
    /// stored in `localStorage`, so that a reload finds it: the page's writes reach the
    /// browser a moment after they are made.
    ///
    /// - Returns: whether it did within `seconds`.
    func waitUntilStored(seconds: Double = 30) throws -> Bool {
        let origin = try evaluate("location.origin") as? String ?? ""
        let securityOrigin = origin == "null" || origin.isEmpty ? "file://" : origin
        let deadline = Date().addingTimeInterval(seconds)
        repeat {
            let inPage =
                try evaluate(
                    "Object.keys(localStorage).sort().map(k => [k, localStorage.getItem(k)])")
                as? [[String]]
            let reply = try send(
                "DOMStorage.getDOMStorageItems",
                ["storageId": ["securityOrigin": securityOrigin, "isLocalStorage": true]])
            let stored = ((reply["entries"] as? [[String]]) ?? []).sorted {
                $0.first ?? "" < $1.first ?? ""
            }
            if let inPage, stored == inPage { return true }
            Thread.sleep(forTimeInterval: 0.05)
        } while Date() < deadline
        return false
    }

    /// Sends the next commands to the page of `session` (from `openIsolated`).
    func use(_ session: String) {
        sessionID = session
    }

    func navigate(_ url: String) throws {
        let mark = events.count
        try send("Page.navigate", ["url": url])
        _ = try waitForEvent("Page.loadEventFired", after: mark)
    }

    /// Reloads and waits for the page to load again.
    func reload() throws {
        let mark = events.count
        try send("Page.reload")
        _ = try waitForEvent("Page.loadEventFired", after: mark)
    }

    /// Evaluates `expression` as if the user acted (so downloads and `beforeunload` apply);
    /// `awaitPromise` waits for the promise it returns and gives its value.
    @discardableResult
    func evaluate(_ expression: String, awaitPromise: Bool = false) throws -> Any? {
        let result = try send(
            "Runtime.evaluate",
            [
                "expression": expression, "returnByValue": true, "userGesture": true,
                "awaitPromise": awaitPromise,
            ])
        if let exception = result["exceptionDetails"] {
            throw Failure(description: "\(expression): \(exception)")
        }
        return (result["result"] as? [String: Any])?["value"]
    }

    /// Polls the page until `expression` is true, for at most `seconds`: tests wait for what
    /// the page shows, never for a fixed time. False when the time ran out.
    func waitUntil(_ expression: String, seconds: Double = 30) throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        repeat {
            if try evaluate("!!(\(expression))") as? Bool == true { return true }
            Thread.sleep(forTimeInterval: 0.05)
        } while Date() < deadline
        return false
    }

    // MARK: - Screen, pointer and touch

    /// The viewport of a device `width` by `height` CSS pixels; `mobile` also emulates a
    /// phone's touch screen (and its layout viewport: `<meta name="viewport">` applies).
    func setViewport(width: Int, height: Int, mobile: Bool = false, scale: Double = 1) throws {
        try send(
            "Emulation.setDeviceMetricsOverride",
            ["width": width, "height": height, "deviceScaleFactor": scale, "mobile": mobile])
        try send(
            "Emulation.setTouchEmulationEnabled",
            ["enabled": mobile, "maxTouchPoints": mobile ? 5 : 1])
    }

    /// Where a press on the element `selector` lands: the centre of its box, after it is
    /// scrolled into view. Fails when there is no such element, when it has no size, or
    /// when another element covers that point (a press would reach that one instead).
    func target(_ selector: String) throws -> (x: Double, y: Double) {
        let script = """
            (() => {
              const element = document.querySelector(\(Self.jsonString(selector)));
              if (!element) return 'no element';
              element.scrollIntoView({ block: 'nearest', inline: 'nearest' });
              const box = element.getBoundingClientRect();
              if (box.width < 1 || box.height < 1) return 'no size';
              const x = box.left + box.width / 2, y = box.top + box.height / 2;
              if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) return 'off screen';
              const hit = document.elementFromPoint(x, y);
              if (!hit || !(hit === element || element.contains(hit))) {
                return 'covered by ' + (hit ? hit.outerHTML.slice(0, 120) : 'nothing');
              }
              window.__troveAimed = element;
              return [x, y];
            })()
            """
        let answer = try evaluate(script)
        guard let point = answer as? [Double], point.count == 2 else {
            throw Failure(description: "\(selector): \(answer ?? "nothing")")
        }
        return (point[0], point[1])
    }

    /// A click with the mouse's left button on the element `selector`. Fails when the click
    /// reached another element: the page moved between the aim and the press, as it would
    /// under a person's finger.
    func click(_ selector: String) throws {
        let (x, y) = try target(selector)
        try evaluate(
            """
            window.__troveClicked = null;
            document.addEventListener('click', (event) => { window.__troveClicked = event.target; },
              { capture: true, once: true });
            """)
        try send("Input.dispatchMouseEvent", ["type": "mouseMoved", "x": x, "y": y])
        for type in ["mousePressed", "mouseReleased"] {
            try send(
                "Input.dispatchMouseEvent",
                [
                    "type": type, "x": x, "y": y, "button": "left", "clickCount": 1,
                    "buttons": type == "mousePressed" ? 1 : 0,
                ])
        }
        let landed = try evaluate(
            """
            (() => {
              const aimed = window.__troveAimed, clicked = window.__troveClicked;
              if (clicked && (clicked === aimed || aimed.contains(clicked))) return 'on target';
              const box = aimed.getBoundingClientRect();
              return (clicked ? clicked.outerHTML.slice(0, 120) : 'nothing') + '; the element is now at '
                + [box.left, box.top, box.width, box.height].map(Math.round).join(',');
            })()
            """)
        guard landed as? String == "on target" else {
            throw Failure(
                description:
                    "\(selector): the click at \(Int(x)),\(Int(y)) reached \(landed ?? "nothing")")
        }
    }

    /// A tap of one finger on the element `selector` (after `setViewport(mobile: true)`).
    func tap(_ selector: String) throws {
        let (x, y) = try target(selector)
        try send(
            "Input.dispatchTouchEvent",
            ["type": "touchStart", "touchPoints": [["x": x, "y": y, "id": 1]]])
        try send("Input.dispatchTouchEvent", ["type": "touchEnd", "touchPoints": []])
    }

    /// A drag from one point of the viewport to another, in steps: with the mouse's left
    /// button held, or with one finger (after `setViewport(mobile: true)`).
    func drag(from start: (x: Double, y: Double), to end: (x: Double, y: Double), touch: Bool)
        throws
    {
        let steps = 5
        let points = (0...steps).map { step -> (Double, Double) in
            let t = Double(step) / Double(steps)
            return (start.x + (end.x - start.x) * t, start.y + (end.y - start.y) * t)
        }
        if touch {
            // The finger rests at the end before it lifts: a lift while moving is a fling,
            // and Chromium spends the next tap on stopping it.
            // Stamped as a finger would move (a frame a step) and rest (a tenth of a second).
            let base = Date().timeIntervalSince1970
            let rest = Array(repeating: points[steps], count: 3)
            for (index, point) in (points + rest).enumerated() {
                try send(
                    "Input.dispatchTouchEvent",
                    [
                        "type": index == 0 ? "touchStart" : "touchMove",
                        "touchPoints": [["x": point.0, "y": point.1, "id": 1]],
                        "timestamp": base + 0.016 * Double(min(index, steps))
                            + 0.1 * Double(max(0, index - steps)),
                    ])
            }
            try send(
                "Input.dispatchTouchEvent",
                [
                    "type": "touchEnd", "touchPoints": [],
                    "timestamp": base + 0.016 * Double(steps) + 0.4,
                ])
            return
        }
        try send("Input.dispatchMouseEvent", ["type": "mouseMoved", "x": start.x, "y": start.y])
        try send(
            "Input.dispatchMouseEvent",
            [
                "type": "mousePressed", "x": start.x, "y": start.y, "button": "left",
                "clickCount": 1, "buttons": 1,
            ])
        for point in points.dropFirst() {
            try send(
                "Input.dispatchMouseEvent",
                ["type": "mouseMoved", "x": point.0, "y": point.1, "button": "left", "buttons": 1])
        }
        try send(
            "Input.dispatchMouseEvent",
            [
                "type": "mouseReleased", "x": end.x, "y": end.y, "button": "left",
                "clickCount": 1, "buttons": 0,
            ])
    }

    /// A PNG of what the viewport shows, written to `path`.
    func screenshot(to path: String) throws {
        let shot = try send("Page.captureScreenshot", ["format": "png"])
        guard let data = Data(base64Encoded: shot["data"] as? String ?? "") else {
            throw Failure(description: "the screenshot was not base64")
        }
        try data.write(to: URL(fileURLWithPath: path))
    }

    /// The accessible names of the elements with `role` inside `selector`, as the browser's
    /// accessibility tree gives them to a screen reader.
    func accessibleNames(role: String, in selector: String) throws -> [String] {
        let found = try send(
            "Runtime.evaluate",
            ["expression": "document.querySelector(\(Self.jsonString(selector)))"])
        guard let object = (found["result"] as? [String: Any])?["objectId"] as? String else {
            throw Failure(description: "no element \(selector)")
        }
        let tree = try send("Accessibility.queryAXTree", ["objectId": object, "role": role])
        let nodes = tree["nodes"] as? [[String: Any]] ?? []
        return nodes.compactMap { ($0["name"] as? [String: Any])?["value"] as? String }
    }

    static func jsonString(_ text: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: [text])) ?? Data("[\"\"]".utf8)
        return String(String(decoding: data, as: UTF8.self).dropFirst().dropLast())
    }

    /// A key press as the page's keyboard handler sees it.
    func press(_ key: String) throws {
        for type in ["keyDown", "keyUp"] {
            try send(
                "Input.dispatchKeyEvent",
                ["type": type, "key": key, "text": type == "keyDown" ? key : ""])
        }
    }

    /// A named key as a keyboard sends it (its code, and the text it types): Enter, Escape,
    /// Tab (`shift` goes backwards), Space, or a character.
    func key(_ name: String, shift: Bool = false) throws {
        let named: [String: (key: String, code: String, number: Int, text: String)] = [
            "Enter": ("Enter", "Enter", 13, "\r"), "Escape": ("Escape", "Escape", 27, ""),
            "Tab": ("Tab", "Tab", 9, ""), "Space": (" ", "Space", 32, " "),
        ]
        guard let key = named[name] else { return try press(name) }
        for type in ["keyDown", "keyUp"] {
            var params: [String: Any] = [
                "type": type, "key": key.key, "code": key.code,
                "windowsVirtualKeyCode": key.number, "modifiers": shift ? 8 : 0,
            ]
            if type == "keyDown" && !key.text.isEmpty { params["text"] = key.text }
            try send("Input.dispatchKeyEvent", params)
        }
    }

    /// Types `text` into the element that has the focus.
    func type(_ text: String) throws {
        try send("Input.insertText", ["text": text])
    }

    /// Every URL the page asked for (documents, images, scripts …).
    var requestedURLs: [String] {
        events.filter { $0["method"] as? String == "Network.requestWillBeSent" }.compactMap {
            (($0["params"] as? [String: Any])?["request"] as? [String: Any])?["url"] as? String
        }
    }

    /// Waits for a finished download and returns its path.
    func waitForDownload() throws -> String {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: downloads)) ?? []
            // Chromium may create the file before it has written all of it: a download
            // counts as finished once it holds a whole JSON document.
            if let name = names.first(where: { $0.hasSuffix(".json") }) {
                let path = downloads + "/" + name
                if let data = FileManager.default.contents(atPath: path), !data.isEmpty,
                    (try? JSONSerialization.jsonObject(with: data)) != nil
                {
                    return path
                }
            }
            var poller = pollfd(fd: replies, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, 200) > 0 { _ = try read() }
        }
        throw Failure(description: "no download appeared in \(downloads)")
    }
}
