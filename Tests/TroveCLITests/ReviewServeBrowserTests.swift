import Foundation
import Testing
import TroveBase

@testable import TroveCLI
@_spi(Testing) @testable import TroveStore

/// The served queue in headless Chromium: two moderators signed in at once, each in a
/// browser context of their own, working with the keyboard only.
@Suite(.serialized) struct ReviewServeBrowserTests {
    let sandbox: Sandbox

    static let hostile =
        ReviewSheetPageTests.hostile + [
            "left \u{202E}txt.exe\u{202C} right",
            "\u{1B}[2J\u{1B}[31mred alert\u{1B}[0m",
            "<svg onload=\"document.title='pwned'\"><script>document.title='pwned'</script></svg>",
            "javascript:document.title='pwned'",
        ]

    init() throws {
        sandbox = try Sandbox()
        sandbox.run("init")
        try sandbox.write("photos/a.jpg", PostPhotos.jpeg(width: 640, height: 480, seed: 1))
        try sandbox.write("photos/b.jpg", PostPhotos.jpeg(width: 300, height: 500, seed: 2))
        try sandbox.write("posts.csv", Self.posts(p1: "a bottle by the bench"))
        sandbox.run("import", "posts", "posts.csv", "--photos", "photos")
    }

    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    static func posts(p1: String, hostile: Bool = false) -> String {
        var lines = [
            "id,user,lat,lon,description,date,photo",
            "p0,u1,40.7101,-74.0001,two cans,2022-01-01,a.jpg",
            "p1,u1,40.7201,-74.0101,\(quoted(p1)),2022-01-02,b.jpg",
            "p2,u2,40.7301,-74.0201,a bag,2022-01-03,a.jpg",
            "p3,u3,40.7401,-74.0301,crisp packet,2022-01-04,b.jpg",
            "p4,u3,40.7501,-74.0401,another packet,2022-01-05,",
        ]
        if hostile {
            for (index, text) in Self.hostile.enumerated() {
                let photo =
                    index % 3 == 2 ? "javascript:alert(1)" : index % 2 == 0 ? "a.jpg" : "b.jpg"
                lines.append(
                    "h\(index),\(quoted(text)),40.76\(index),-74.05\(index),\(quoted(text)),2022-02-0\(index + 1),\(photo)"
                )
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Waits until `expression` is true in the page, for at most `seconds`: long enough
    /// for a page whose server shares two busy cores with a whole test run.
    func wait(
        _ browser: BrowserSession, _ expression: String, seconds: Double = 30,
        _ what: String = ""
    ) throws -> Bool {
        if try browser.waitUntil(expression, seconds: seconds) { return true }
        let state = try browser.evaluate(
            "document.getElementById('message').textContent + ' | card ' + document.getElementById('card').dataset.id"
        )
        Issue.record(
            "not within \(seconds) s: \(what.isEmpty ? expression : what) (\(state ?? ""))")
        return false
    }

    func card(_ id: String) -> String {
        "document.body.dataset.ready === 'true' && document.getElementById('card').dataset.id === '\(id)'"
    }

    func message(_ text: String) -> String {
        "document.getElementById('message').textContent.includes(\(jsonString(text)))"
    }

    func listItem(_ id: String) -> String {
        "document.querySelector('#list li[data-id=\"\(id)\"]')"
    }

    /// A key as a keyboard sends it: Enter and Escape with their key codes.
    func press(_ browser: BrowserSession, _ key: String) throws {
        let codes = ["Enter": 13, "Escape": 27]
        guard let code = codes[key] else { return try browser.press(key) }
        for type in ["keyDown", "keyUp"] {
            var params: [String: Any] = [
                "type": type, "key": key, "code": key, "windowsVirtualKeyCode": code,
            ]
            if key == "Enter" && type == "keyDown" { params["text"] = "\r" }
            try browser.send("Input.dispatchKeyEvent", params)
        }
    }

    func type(_ browser: BrowserSession, _ text: String) throws {
        try browser.send("Input.insertText", ["text": text])
    }

    func jsonString(_ text: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: [text])) ?? Data("[\"\"]".utf8)
        return String(String(decoding: data, as: UTF8.self).dropFirst().dropLast())
    }

    @Test func twoModeratorsShareTheQueueWithTheKeyboardOnly() throws {
        let chromium = try #require(Chromium.path, "chromium is not installed (make test-deps)")
        Chromium.oneAtATime.lock()
        defer { Chromium.oneAtATime.unlock() }
        let server = try ServedQueue(sandbox)
        let aliceLink = server.addModerator("alice")
        let bobLink = server.addModerator("bob")
        let browser = try BrowserSession(chromium: chromium)
        let alice = try browser.openIsolated(aliceLink)
        #expect(try wait(browser, card("p0"), "alice opens p0"))
        #expect(try wait(browser, "document.getElementById('who').textContent === 'alice'"))
        let bob = try browser.openIsolated(bobLink)
        // Alice has p0 open: Bob's queue skips it and shows it taken.
        #expect(try wait(browser, card("p1"), "bob skips alice's claim"))
        #expect(try wait(browser, "\(listItem("p0")).classList.contains('taken')"))
        // A claim that runs out while the post is on screen is renewed by the page.
        let database = try Workspace.testDatabase(at: sandbox.workspace)
        // SQL: the claim's time running out, which tests do not wait for.
        try database.execute("UPDATE post_claims SET until = 0 WHERE post_id = 'p0'")
        var renewed = false
        let deadline = Date().addingTimeInterval(30)
        while !renewed && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.1)
            renewed =
                try database.scalar(
                    "SELECT until > (julianday('now') - 2440587.5) * 86400 FROM post_claims "
                        + "WHERE post_id = 'p0' AND moderator = 'alice'")?.int64 == 1
        }
        #expect(renewed, "alice's page did not renew her claim on p0")
        // Alice approves p0 and moves on past Bob's claim; Bob sees the decision.
        browser.use(alice)
        try browser.press("a")
        #expect(try wait(browser, card("p2"), "alice moves past bob's p1"))
        browser.use(bob)
        #expect(try wait(browser, "\(listItem("p0")).classList.contains('decided')"))
        #expect(sandbox.run("review", "log").stdout.contains("p0  alice  pending → approved"))
        // A re-import edits p1 while Bob has it on screen: refused, stays pending.
        try sandbox.write("posts.csv", Self.posts(p1: "BUY NOW http://spam.example"))
        sandbox.run("import", "posts", "posts.csv", "--photos", "photos")
        try browser.press("a")
        #expect(try wait(browser, message("changed since you saw it")))
        #expect(
            try browser.evaluate("document.getElementById('card').dataset.id") as? String == "p1")
        #expect(sandbox.run("review", "list").stdout.contains("p1"))
        try press(browser, "Enter")
        #expect(
            try wait(
                browser,
                "document.querySelector('#card .description').textContent.includes('spam.example')"
            ))
        try browser.press("r")
        try browser.press("1")
        #expect(try wait(browser, message("rejected (spam): p1")))
        // Alice undoes her approval of p0: pending again, on her screen.
        browser.use(alice)
        try browser.press("u")
        #expect(try wait(browser, message("undone: p0")))
        #expect(try wait(browser, card("p0")))
        #expect(sandbox.run("review", "list").stdout.contains("p0"))
        // A rejection with a reason and a note.
        try browser.press("n")
        try type(browser, "blurry, retake")
        try press(browser, "Enter")
        try browser.press("r")
        try browser.press("6")
        #expect(try wait(browser, message("rejected (low-quality): p0")))
        #expect(sandbox.run("review", "log").stdout.contains("(low-quality)  blurry, retake"))
        // Bob sees it within the poll, and the help overlay opens and closes.
        browser.use(bob)
        #expect(try wait(browser, "\(listItem("p0")).classList.contains('decided')"))
        try browser.press("?")
        #expect(try wait(browser, "document.getElementById('help').open"))
        try press(browser, "Escape")
        #expect(try wait(browser, "!document.getElementById('help').open"))
        // Search by text, then by id; decided posts are hidden by default.
        browser.use(alice)
        try browser.press("/")
        try type(browser, "packet")
        try press(browser, "Enter")
        #expect(try wait(browser, "document.querySelectorAll('#list li').length === 2"))
        // Bob moved on to p3 and holds it: Alice gets p4.
        #expect(try wait(browser, card("p4")))
        #expect(try wait(browser, "\(listItem("p3")).classList.contains('taken')"))
        try browser.evaluate("document.getElementById('f-q').value = ''")
        try browser.press("/")
        try press(browser, "Enter")
        #expect(try wait(browser, "document.querySelectorAll('#list li').length === 3"))
        #expect(try browser.evaluate("!\(listItem("p0")) && !\(listItem("p1"))") as? Bool == true)
        // The status filter shows the rejected ones.
        try browser.evaluate(
            "const s = document.getElementById('f-status'); s.value = 'rejected'; "
                + "s.dispatchEvent(new Event('change'))")
        #expect(
            try wait(
                browser,
                "[...document.querySelectorAll('#list li')].map(l => l.dataset.id).join() === 'p0,p1'"
            ))
        try browser.evaluate(
            "const t = document.getElementById('f-status'); t.value = 'open'; "
                + "t.dispatchEvent(new Event('change'))")
        #expect(try wait(browser, "document.querySelectorAll('#list li').length === 3"))
        // The user panel of p4's user, and the confirmed bulk reject of their pending posts.
        try browser.press("/")
        try type(browser, "p4")
        try press(browser, "Enter")
        #expect(try wait(browser, card("p4")))
        try browser.press("p")
        #expect(
            try wait(browser, "document.querySelectorAll('#user-posts li').length === 2"))
        #expect(
            try browser.evaluate("document.getElementById('user-name').textContent") as? String
                == "u3")
        // The panel asks before it rejects them all; Enter on its answer confirms.
        try press(browser, "Enter")
        #expect(try wait(browser, "!document.getElementById('user-confirm').hidden"))
        #expect(browser.dialogs.isEmpty, "the page used a browser dialog: \(browser.dialogs)")
        try press(browser, "Enter")
        // Bob still has p3 open: it is left to him, and the page says so.
        #expect(try wait(browser, message("rejected 1 post of u3, 1 skipped (claimed by bob)")))
        let log = sandbox.run("review", "log").stdout
        #expect(!log.contains("p3  alice"))
        #expect(log.contains("p4  alice  pending → rejected  (spam)"))
        // Nothing the page asked for came from outside the server.
        #expect(
            browser.requestedURLs.allSatisfy { $0.hasPrefix(server.base) || $0 == "about:blank" })
    }

    @Test func hostilePostsRunNoScriptAndThePageFitsAt1280And800() throws {
        let chromium = try #require(Chromium.path, "chromium is not installed (make test-deps)")
        Chromium.oneAtATime.lock()
        defer { Chromium.oneAtATime.unlock() }
        try sandbox.write("posts.csv", Self.posts(p1: "a bottle", hostile: true))
        sandbox.run("import", "posts", "posts.csv", "--photos", "photos")
        // The review area holds the hostile posts only.
        sandbox.run("config", "set", "review.area", "40.755,-74.10,40.80,-74.045")
        let server = try ServedQueue(sandbox)
        let browser = try BrowserSession(chromium: chromium)
        _ = try browser.openIsolated(server.addModerator("alice"))
        #expect(
            try wait(
                browser, card("p0") + " && document.querySelector('#f-area option[value=review]')"))
        try browser.evaluate(
            "const a = document.getElementById('f-area'); a.value = 'review'; "
                + "a.dispatchEvent(new Event('change'))")
        #expect(
            try wait(
                browser, "document.querySelectorAll('#list li').length === \(Self.hostile.count)"))
        for (index, text) in Self.hostile.enumerated() {
            #expect(try wait(browser, card("h\(index)")))
            // Shown as the text it is, in the description and the user field, with its
            // control and bidi characters escaped as the terminal shows them.
            let shown = TerminalText.safe(text)
            #expect(
                try browser.evaluate("document.querySelector('#card .description').textContent")
                    as? String == shown)
            #expect(
                try browser.evaluate("document.querySelector('#card .user-link bdi').textContent")
                    as? String == shown)
            // The last one's user panel too, while it is the post on view (once it is
            // skipped nothing is left to show a panel for).
            if index == Self.hostile.count - 1 {
                try browser.press("p")
                #expect(try wait(browser, "!document.getElementById('user-panel').hidden"))
                #expect(
                    try browser.evaluate("document.getElementById('user-name').textContent")
                        as? String == shown)
                try press(browser, "Escape")
                #expect(try wait(browser, "document.getElementById('user-panel').hidden"))
            }
            try browser.press("s")
        }
        #expect(try browser.evaluate("document.title") as? String == "trove review")
        #expect(try browser.evaluate("document.querySelectorAll('script').length") as? Int == 1)
        #expect(
            try browser.evaluate(
                "document.querySelectorAll('[onerror],[onload],[onmouseover]').length") as? Int == 0
        )
        // Screenshots at both widths, with a post open.
        try browser.evaluate(
            "const b = document.getElementById('f-area'); b.value = ''; "
                + "b.dispatchEvent(new Event('change'))")
        #expect(try wait(browser, card("p0")))
        // A signal names another post: its card opens from its thumbnail, by keyboard.
        #expect(try wait(browser, "document.querySelector('[data-related=\"p2\"] img')"))
        try browser.evaluate("document.querySelector('[data-related=\"p2\"]').focus()")
        try press(browser, "Enter")
        #expect(try wait(browser, card("p2")))
        try browser.press("k")
        #expect(try wait(browser, card("p1")))
        try browser.press("k")
        #expect(try wait(browser, card("p0")))
        for width in [1280, 800] {
            try browser.send(
                "Emulation.setDeviceMetricsOverride",
                ["width": width, "height": 900, "deviceScaleFactor": 1, "mobile": false])
            try browser.reload()
            #expect(try wait(browser, card("p0")))
            #expect(
                try wait(
                    browser,
                    "document.querySelector('#card .photo img').complete && document.querySelector('#card .map svg')"
                ))
            #expect(
                try browser.evaluate("document.documentElement.scrollWidth <= \(width)") as? Bool
                    == true, "wider than \(width) px")
            let path = NSTemporaryDirectory() + "trove-serve-\(width).png"
            try browser.screenshot(to: path)
            print("screenshot: \(path)")
        }
        #expect(try browser.evaluate("document.title") as? String == "trove review")
    }
}
