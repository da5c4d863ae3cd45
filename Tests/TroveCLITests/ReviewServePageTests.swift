import Foundation
import Testing
import TroveBase
@_spi(Testing) import TroveKit

@testable import TroveCLI

/// The served queue's page as moderators use it: at 1280 and 800 pixels and on a 390-pixel
/// phone, by pointer, keyboard and touch alone; checked with axe-core in each of its
/// states; with text that hides characters; and with the server gone in the middle of a
/// decision. Every wait is for something the page shows. Screenshots of each width and
/// state go to one folder, printed, for a person to look at.
@Suite(
    .serialized, .enabled(if: Chromium.path != nil, "chromium is not installed: run make test-deps")
)
struct ReviewServePageTests {
    let sandbox: Sandbox

    /// A screen a moderator works on.
    struct Screen: CustomTestStringConvertible, Sendable {
        var width: Int
        var height: Int
        var mobile = false

        var testDescription: String { "\(width) px" + (mobile ? " (phone)" : "") }
        var name: String { "\(width)" }
    }

    static let wide = Screen(width: 1280, height: 800)
    static let middle = Screen(width: 800, height: 700)
    static let phone = Screen(width: 390, height: 844, mobile: true)
    static let screens = [wide, middle, phone]

    /// How a moderator acts: the mouse, the keyboard, or a finger.
    enum Way: String, CustomTestStringConvertible, Sendable {
        case pointer, keyboard, touch
        var testDescription: String { rawValue }
    }

    /// Where the screenshots go: one folder for the whole run.
    static let screenshots: String = {
        let folder = NSTemporaryDirectory() + "trove-review-serve-screenshots"
        try? FileManager.default.createDirectory(
            atPath: folder, withIntermediateDirectories: true)
        return folder
    }()

    static let posts = """
        id,user,lat,lon,description,date,photo
        p0,u1,40.7101,-74.0001,two cans,2022-01-01,a.jpg
        p1,u1,40.7201,-74.0101,a bottle by the bench,2022-01-02,b.jpg
        p2,u2,40.7301,-74.0201,a bag,2022-01-03,a.jpg
        p3,u3,40.7401,-74.0301,crisp packet,2022-01-04,b.jpg
        p4,u3,40.7501,-74.0401,another packet,2022-01-05,

        """

    init() throws {
        sandbox = try Sandbox()
        sandbox.run("init")
        try sandbox.write("photos/a.jpg", PostPhotos.jpeg(width: 640, height: 480, seed: 1))
        try sandbox.write("photos/b.jpg", PostPhotos.jpeg(width: 300, height: 500, seed: 2))
        try sandbox.write("posts.csv", Self.posts)
        sandbox.run("import", "posts", "posts.csv", "--photos", "photos")
    }

    // MARK: - Helpers

    /// Waits (30 s at most) until `expression` holds in the page; otherwise records what
    /// the page showed and stops the test.
    func expectShown(
        _ browser: BrowserSession, _ expression: String, _ what: String, seconds: Double = 30,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        if try browser.waitUntil(expression, seconds: seconds) { return }
        let shown = try browser.evaluate(
            """
            ['message: ' + document.getElementById('message').textContent,
             'notice: ' + (document.getElementById('notice') || {}).textContent,
             'card: ' + document.getElementById('card').dataset.id,
             'live: ' + document.getElementById('live').textContent].join(' | ')
            """)
        Issue.record(
            "not within \(Int(seconds)) s: \(what) (\(shown ?? ""))", sourceLocation: sourceLocation
        )
        throw BrowserSession.Failure(description: "gave up waiting for \(what)")
    }

    func card(_ id: String) -> String {
        "document.body.dataset.ready === 'true' && document.getElementById('card').dataset.id === '\(id)'"
    }

    func message(_ text: String) -> String {
        "document.getElementById('message').textContent.includes(\(BrowserSession.jsonString(text)))"
    }

    func text(_ selector: String) -> String {
        "(document.querySelector(\(BrowserSession.jsonString(selector))) || {}).textContent"
    }

    /// A browser at `screen`, signed in as a new moderator `name`, with the first post open.
    func signedIn(
        _ server: ServedQueue, _ name: String, _ screen: Screen, chromium: String,
        first: String = "p0"
    ) throws -> BrowserSession {
        let browser = try BrowserSession(chromium: chromium)
        _ = try browser.openIsolated("about:blank")
        try browser.setViewport(width: screen.width, height: screen.height, mobile: screen.mobile)
        try browser.navigate(server.addModerator(name))
        try expectShown(browser, card(first), "the first post opens")
        return browser
    }

    /// A screenshot named after the test's moment, in `screenshots`.
    func shoot(_ browser: BrowserSession, _ name: String) throws {
        let path = Self.screenshots + "/" + name + ".png"
        try browser.screenshot(to: path)
        print("screenshot: \(path)")
    }

    /// The decisions `review log --format json` lists: id, to, reason, note, moderator.
    func decisions() -> [[String: String]] {
        let output = sandbox.run("review", "log", "--format", "json").stdout
        let list =
            (try? JSONSerialization.jsonObject(with: Data(output.utf8))) as? [[String: Any]] ?? []
        return list.map { entry in
            entry.compactMapValues { $0 as? String }
        }
    }

    /// Presses the page's button `selector` the way given, or its `key`.
    func act(_ browser: BrowserSession, _ way: Way, _ selector: String, key: String) throws {
        switch way {
        case .pointer: try browser.click(selector)
        case .touch: try browser.tap(selector)
        case .keyboard: try browser.key(key)
        }
    }

    // MARK: - Pointer, keyboard, touch

    static let ways: [(Way, Screen)] = [
        (.pointer, wide), (.pointer, middle), (.keyboard, wide), (.touch, phone),
    ]

    @Test(arguments: ways)
    func everyActionWorksOneWayAlone(way: Way, screen: Screen) throws {
        let chromium = try #require(Chromium.path)
        Chromium.oneAtATime.lock()
        defer { Chromium.oneAtATime.unlock() }
        let server = try ServedQueue(sandbox)
        let browser = try signedIn(server, "alice", screen, chromium: chromium)
        let name = "\(way.rawValue)-\(screen.name)"
        // Every decision button is on screen, uncovered, with the post's photo, before any
        // scrolling: at 800 px under the photo, on a phone fixed at the bottom.
        try expectShown(browser, "document.querySelector('#card .photo img').complete", "the photo")
        for button in ["approve", "reject", "flag", "skip", "undo"] {
            let seen = try browser.evaluate(
                """
                (() => { const b = document.getElementById('\(button)').getBoundingClientRect();
                  return b.top >= 0 && b.left >= 0 && b.bottom <= innerHeight && b.right <= innerWidth; })()
                """)
            #expect(
                seen as? Bool == true, "\(button) is not wholly on screen at \(screen.width) px")
        }
        #expect(
            try browser.evaluate(
                "document.querySelector('#card .photo img').getBoundingClientRect().top < innerHeight / 2"
            ) as? Bool == true, "the photo starts below the middle of the screen")
        #expect(
            try browser.evaluate("document.documentElement.scrollWidth <= innerWidth") as? Bool
                == true, "wider than the screen")
        // The buttons are named in words; the key is a hint beside the name, not part of it.
        #expect(
            try browser.accessibleNames(role: "button", in: "#actions")
                == ["approve", "reject", "flag", "skip", "undo"])
        try shoot(browser, name + "-post")
        // Approve.
        try act(browser, way, "#approve", key: "a")
        try expectShown(browser, card("p1") + " && " + message("approved: p0"), "p0 approved")
        // Reject, with a reason from the list.
        try act(browser, way, "#reject", key: "r")
        try expectShown(browser, "document.getElementById('reasons').open", "the reasons")
        #expect(
            try browser.accessibleNames(role: "button", in: "#reasons")
                == RejectionReason.allCases.map(\.rawValue) + ["cancel"])
        try shoot(browser, name + "-reasons")
        switch way {
        case .keyboard:
            // The focus is on the first reason; Tab moves on, Shift-Tab back, Enter chooses.
            try expectShown(
                browser, "document.activeElement.dataset.reason === 'spam'", "spam focused")
            try browser.key("Tab")
            try expectShown(
                browser, "document.activeElement.dataset.reason === 'not-litter'",
                "Tab reaches not-litter")
            try browser.key("Tab", shift: true)
            try expectShown(
                browser, "document.activeElement.dataset.reason === 'spam'", "back to spam")
            try browser.key("Enter")
        default:
            try act(browser, way, "[data-reason=spam]", key: "1")
        }
        try expectShown(browser, card("p2") + " && " + message("rejected (spam): p1"), "p1 out")
        // Flag, with a note written in the page.
        try act(browser, way, "#flag", key: "f")
        try expectShown(browser, "document.getElementById('flag-dialog').open", "the flag form")
        try expectShown(
            browser, "document.activeElement.id === 'flag-note'", "the note has the focus")
        // A flag needs a note: an empty one is refused in the form.
        try act(browser, way, "#flag-send", key: "Enter")
        try expectShown(
            browser, "!document.getElementById('flag-error').hidden", "the form asks for a note")
        try shoot(browser, name + "-flag")
        if way != .keyboard { try act(browser, way, "#flag-note", key: "") }
        try browser.type("same bag as p0?")
        try act(browser, way, "#flag-send", key: "Enter")
        try expectShown(browser, card("p3") + " && " + message("flagged: p2"), "p2 flagged")
        // Skip.
        try act(browser, way, "#skip", key: "s")
        try expectShown(browser, card("p4") + " && " + message("skipped p3"), "p3 skipped")
        // Undo the flag: p2 is pending again, on screen.
        try act(browser, way, "#undo", key: "u")
        try expectShown(browser, card("p2") + " && " + message("undone: p2"), "p2 undone")
        let log = decisions().map { [$0["id"], $0["to"], $0["reason"], $0["note"]] }
        #expect(
            log == [
                ["p0", "approved", nil, nil], ["p1", "rejected", "spam", nil],
                ["p2", "flagged", nil, "same bag as p0?"], ["p2", "pending", nil, nil],
            ])
        // The undo is an entry of its own, not a note.
        #expect(decisions().map { $0["kind"] } == ["decision", "decision", "decision", "undo"])
        #expect(decisions().allSatisfy { $0["moderator"] == "alice" })
    }

    // MARK: - Claims

    /// The posts `review claims` lists as held, with their holders.
    func claims() -> [String] {
        sandbox.run("review", "claims").stdout.split(separator: "\n").map {
            $0.split(separator: "\t").prefix(2).joined(separator: " ")
        }
    }

    /// Waits (30 s at most) until `review claims` lists `expected`.
    func expectClaims(
        _ expected: [String], _ what: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let deadline = Date().addingTimeInterval(30)
        var seen = claims()
        while seen != expected && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.1)
            seen = claims()
        }
        #expect(seen == expected, "\(what)", sourceLocation: sourceLocation)
    }

    @Test func aClaimEndsOnAnEmptySearchAfterIdleTimeAndWhenTheLeadReleasesIt() throws {
        let chromium = try #require(Chromium.path)
        Chromium.oneAtATime.lock()
        defer { Chromium.oneAtATime.unlock() }
        // Claims of 3 seconds: an idle page stops renewing after that long.
        #expect(sandbox.run("config", "set", "review.claim-minutes", "0.05").status == 0)
        let server = try ServedQueue(sandbox)
        let browser = try signedIn(server, "alice", Self.wide, chromium: chromium)
        #expect(claims() == ["p0 alice"])
        // A search that finds nothing lets go of the post that was on view.
        try browser.key("/")
        try browser.type("no such thing")
        try browser.key("Enter")
        try expectShown(
            browser, text("#card") + ".includes('Nothing left to review here.')",
            "nothing left on an empty search")
        #expect(claims() == [])
        try browser.key("/")
        try browser.evaluate("document.getElementById('f-q').value = ''")
        try browser.key("Enter")
        try expectShown(browser, card("p0"), "p0 again")
        // Left alone, the page stops renewing its claim and says so.
        try expectShown(
            browser, message("your claim on p0 ended: nothing happened here"), "the idle end")
        #expect(claims() == [])
        // Back at work: held again.
        try browser.click("#card h2")
        expectClaims(["p0 alice"], "claimed again after a click")
        try expectShown(browser, "!" + message("your claim on p0 ended"), "the message goes")
        // The lead releases it: the page says who, and does not take it back.
        let released = sandbox.run("review", "claims", "--release", "p0", "--as", "lea")
        #expect(released.status == 0, "\(released.stderr)")
        try expectShown(browser, message("lea released your claim on p0"), "the release told")
        #expect(claims() == [])
    }

    // MARK: - Live

    @Test func newPostsReachAnOpenPageWithoutAFilterChange() throws {
        let chromium = try #require(Chromium.path)
        Chromium.oneAtATime.lock()
        defer { Chromium.oneAtATime.unlock() }
        let server = try ServedQueue(sandbox)
        let browser = try signedIn(server, "alice", Self.wide, chromium: chromium)
        try expectShown(browser, text("#count") + " === '5 posts'", "five posts")
        try sandbox.write("posts.csv", Self.posts + "p5,u5,40.76,-74.05,a can,2022-01-06,\n")
        #expect(sandbox.run("import", "posts", "posts.csv", "--photos", "photos").status == 0)
        // Listed and counted within the poll; the post on view stays.
        try expectShown(
            browser,
            text("#count") + " === '6 posts' && document.querySelector('#list li[data-id=p5]')",
            "p5 listed")
        #expect(
            try browser.evaluate("document.getElementById('card').dataset.id") as? String == "p0")
        // A queue with nothing left opens the first new post that matches.
        try browser.key("/")
        try browser.type("u6")
        try browser.key("Enter")
        try expectShown(
            browser, text("#card") + ".includes('Nothing left to review here.')", "nothing left")
        try sandbox.write(
            "posts.csv",
            Self.posts + "p5,u5,40.76,-74.05,a can,2022-01-06,\n"
                + "p6,u6,40.77,-74.06,a u6 bottle,2022-01-07,\n")
        #expect(sandbox.run("import", "posts", "posts.csv", "--photos", "photos").status == 0)
        try expectShown(browser, card("p6") + " && " + text("#count") + " === '1 post'", "p6 opens")
        // Another moderator's decision changes the count too.
        #expect(sandbox.run("review", "approve", "p6", "--as", "kim").status == 0)
        try expectShown(
            browser, text("#count") + " === '0 posts'", "the count after kim's approval")
    }

    // MARK: - Then and now

    @Test func aPostChangedWhileOnScreenShowsThenAndNowUntilDecided() throws {
        let chromium = try #require(Chromium.path)
        Chromium.oneAtATime.lock()
        defer { Chromium.oneAtATime.unlock() }
        let server = try ServedQueue(sandbox)
        let browser = try signedIn(server, "alice", Self.wide, chromium: chromium)
        // The user edits p0 while it is on screen.
        try sandbox.write(
            "posts.csv",
            Self.posts.replacingOccurrences(of: "p0,u1,40.7101", with: "p0,u1,40.7111")
                .replacingOccurrences(of: "two cans", with: "two crushed cans"))
        #expect(sandbox.run("import", "posts", "posts.csv", "--photos", "photos").status == 0)
        try browser.key("a")
        try expectShown(browser, message("changed since you saw it"), "the approval refused")
        try browser.key("Enter")
        let table = "document.querySelector('#card table.changes')"
        try expectShown(browser, card("p0") + " && " + table, "then and now on the card")
        try expectShown(
            browser, text("#list li[data-id=p0]") + ".includes('two crushed cans')",
            "the list says what the card says")
        let rows =
            try browser.evaluate(
                """
                [...document.querySelectorAll('#card table.changes tbody tr')].map((row) =>
                  [...row.children].map((cell) => cell.textContent).join(' | ')).join('\\n')
                """) as? String ?? ""
        #expect(
            rows == """
                position | 40.710100, -74.000100 | 40.711100, -74.000100
                description | two cans | two crushed cans
                """)
        #expect(
            (try browser.evaluate(text("#card table.changes caption")) as? String ?? "")
                .contains("(the one you saw)"))
        // Decided on the new version, it is done: the next post has no comparison.
        try browser.key("a")
        try expectShown(browser, card("p1") + " && " + message("approved: p0"), "p0 approved")
        #expect(try browser.evaluate("!" + table) as? Bool == true)
        #expect(decisions().map { $0["id"] } == ["p0"])
        let logged = sandbox.run("review", "show", "p0").stdout
        #expect(logged.contains("two crushed cans"), "\(logged)")
    }

    // MARK: - Undo

    @Test func anUndoOutlivesAReloadAndASecondTryIsNotAnotherUndo() throws {
        let chromium = try #require(Chromium.path)
        Chromium.oneAtATime.lock()
        defer { Chromium.oneAtATime.unlock() }
        let server = try ServedQueue(sandbox)
        let browser = try signedIn(server, "alice", Self.wide, chromium: chromium)
        try browser.key("a")
        try expectShown(browser, card("p1") + " && " + message("approved: p0"), "p0 approved")
        // A reload forgets nothing the workspace keeps: undo is still there, and works.
        try browser.reload()
        try expectShown(
            browser, card("p1") + " && !document.getElementById('undo').disabled",
            "undo after the reload")
        try browser.click("#undo")
        try expectShown(
            browser, card("p0") + " && " + message("undone: p0 is pending again"), "p0 undone")
        try expectShown(
            browser, "document.querySelector('#card .history li[data-kind=undo]')",
            "the undo in the post's history")
        #expect(
            (try browser.evaluate(text("#card .history li[data-kind=undo]")) as? String ?? "")
                .contains("alice: undo: approved → pending"))
        // An undo whose answer is lost on the way back: sent again, it finds its own undo
        // on record, and the post is not decided again.
        try browser.key("a")
        try expectShown(browser, card("p1") + " && " + message("approved: p0"), "p0 approved again")
        try browser.evaluate(
            """
            window.realFetch = window.fetch;
            window.fetch = async (url, options) => {
              const response = await window.realFetch(url, options);
              if (String(url).startsWith('/api/undo')) {
                window.fetch = window.realFetch;
                throw new TypeError('Failed to fetch');
              }
              return response;
            };
            """)
        try browser.key("u")
        try expectShown(browser, message("did not reach the server"), "the undo's answer lost")
        try browser.key("u")
        try expectShown(
            browser, card("p0") + " && " + message("undone: p0 is pending again"),
            "the second try counts as done")
        #expect(
            decisions().filter { $0["id"] == "p0" }.map { $0["kind"] } == [
                "decision", "undo", "decision", "undo",
            ])
        #expect(sandbox.run("review", "list").stdout.contains("p0"))
    }

    @Test func aBulkRejectLeavesAColleaguesPostAndOneUndoTakesItBack() throws {
        let chromium = try #require(Chromium.path)
        Chromium.oneAtATime.lock()
        defer { Chromium.oneAtATime.unlock() }
        try sandbox.write("posts.csv", Self.posts + "p5,u1,40.76,-74.05,a can,2022-01-06,\n")
        sandbox.run("import", "posts", "posts.csv", "--photos", "photos")
        let server = try ServedQueue(sandbox)
        // Bob has u1's p1 open.
        let bob = try server.signIn(server.addModerator("bob"))
        #expect(try bob.post("/api/claim", ["id": "p1"]).status == 200)
        let browser = try signedIn(server, "alice", Self.wide, chromium: chromium)
        try browser.click("#card .user-link")
        try expectShown(browser, "!document.getElementById('user-panel').hidden", "u1's panel")
        try expectShown(
            browser, "document.querySelectorAll('#user-posts li').length === 3", "u1's posts")
        try browser.click("#user-reject")
        try expectShown(
            browser,
            "!document.getElementById('user-confirm').hidden && "
                + "document.getElementById('user-confirm').textContent.includes("
                + "'1 post open by a colleague is left to them')", "the confirmation")
        try browser.click("#user-confirm button.danger")
        try expectShown(
            browser,
            message("rejected 2 posts of u1, 1 skipped (claimed by bob)") + " && "
                + card("p2"), "p0 and p5 rejected, p1 left to bob")
        #expect(decisions().map { $0["id"] } == ["p0", "p5"])
        // One undo, by pointer, takes the whole rejection back.
        try browser.click("#undo")
        try expectShown(
            browser, message("undone: 2 posts back to pending"), "the rejection undone")
        #expect(decisions().map { $0["kind"] } == ["decision", "decision", "undo", "undo"])
        let pending = sandbox.run("review", "list").stdout
        #expect(["p0", "p1", "p5"].allSatisfy { pending.contains($0) }, "\(pending)")
    }

    // MARK: - Accessibility

    @Test(.enabled(if: AxeCore.isAvailable, AxeCore.skipReason), arguments: screens)
    func axeFindsNothingSeriousInAnyStateOfThePage(screen: Screen) throws {
        let chromium = try #require(Chromium.path)
        Chromium.oneAtATime.lock()
        defer { Chromium.oneAtATime.unlock() }
        sandbox.run("config", "set", "review.area", "40.70,-74.05,40.76,-74.00")
        sandbox.run("review", "flag", "p1", "--note", "check the bench", "--as", "kim")
        let server = try ServedQueue(sandbox)
        let browser = try signedIn(server, "alice", screen, chromium: chromium)
        var found: [String: [AxeCore.Violation]] = [:]
        func check(_ state: String) throws {
            try shoot(browser, "axe-\(screen.name)-\(state)")
            found[state] = try AxeCore.run(in: browser)
        }
        try expectShown(browser, "document.querySelector('#card .map svg')", "the map")
        try check("queue")
        try browser.key("r")
        try expectShown(browser, "document.getElementById('reasons').open", "the reasons")
        try check("reasons")
        try browser.key("Escape")
        try expectShown(browser, "!document.querySelector('dialog[open]')", "the reasons close")
        try browser.key("f")
        try expectShown(browser, "document.getElementById('flag-dialog').open", "the flag form")
        try browser.key("Enter")
        try expectShown(browser, "!document.getElementById('flag-error').hidden", "its error")
        try check("flag")
        try browser.key("Escape")
        try browser.key("?")
        try expectShown(browser, "document.getElementById('help').open", "the keys")
        try check("help")
        try browser.key("Escape")
        try expectShown(browser, "!document.querySelector('dialog[open]')", "the keys close")
        if screen.mobile || screen.width <= 1000 {
            try browser.click("#filters-button")
            try expectShown(browser, "document.getElementById('f-q').offsetParent", "filters")
            try check("filters")
            try browser.click("#filters-button")
        }
        // The user's panel, with its confirmation asked.
        try browser.key("p")
        try expectShown(browser, "!document.getElementById('user-panel').hidden", "the panel")
        try browser.key("Enter")
        try expectShown(
            browser, "!document.getElementById('user-confirm').hidden", "the confirmation")
        try check("user-panel")
        try browser.key("Escape")
        try expectShown(browser, "document.getElementById('user-panel').hidden", "it closes")
        // A post whose content changed since the last decision on it (kim's flag): its
        // user moved it and wrote more; opened, it shows then and now.
        try sandbox.write(
            "posts.csv",
            Self.posts.replacingOccurrences(
                of: "p1,u1,40.7201,-74.0101,a bottle by the bench",
                with: "p1,u1,40.7211,-74.0101,a bottle by the old bench"))
        #expect(sandbox.run("import", "posts", "posts.csv", "--photos", "photos").status == 0)
        try browser.evaluate("window.realFetch = window.fetch")
        try browser.evaluate("document.querySelector('#list li[data-id=p1] button').click()")
        try expectShown(
            browser, card("p1") + " && document.querySelector('#card .changes')", "then/now")
        try check("changed")
        // A decision that did not reach the server.
        try browser.evaluate(
            """
            window.fetch = async (url, options) => {
              if (String(url).startsWith('/api/decide')) throw new TypeError('Failed to fetch');
              return window.realFetch(url, options);
            };
            """)
        try browser.key("a")
        try expectShown(
            browser, "document.querySelector('#notice .retry')", "the notice of a decision not sent"
        )
        try check("not-sent")
        try browser.evaluate("window.fetch = window.realFetch")
        try browser.click("#notice .drop")
        try expectShown(browser, "!document.querySelector('#notice .retry')", "dropped")
        // Signed out: the page a link-less visitor gets.
        _ = try browser.openIsolated(server.base + "/")
        try browser.setViewport(width: screen.width, height: screen.height, mobile: screen.mobile)
        try check("signed-out")
        var serious: [String] = []
        for (state, violations) in found.sorted(by: { $0.key < $1.key }) {
            for violation in violations {
                print("axe \(screen.width) px, \(state): \(violation)")
                if violation.isSerious { serious.append("\(state): \(violation)") }
            }
        }
        #expect(serious.isEmpty, "\(serious.joined(separator: "\n"))")
    }

    // MARK: - Text that hides characters

    @Test func bidiAndInvisibleCharactersAreShownEscapedEverywhere() throws {
        let chromium = try #require(Chromium.path)
        Chromium.oneAtATime.lock()
        defer { Chromium.oneAtATime.unlock() }
        let lying = "sidewalk \u{202E}gnp.exe\u{202C} see photo"
        let hidden = "pay\u{200B}pal \u{2066}x\u{2069}\u{FEFF}"
        // What is spelled with joiners stays as it is: an emoji family, a Persian word.
        let spelled = "👨\u{200D}👩\u{200D}👧 می\u{200C}خواهم"
        try sandbox.write(
            "posts.csv",
            """
            id,user,lat,lon,description,date,photo
            b0,"u\u{202E}1",40.7101,-74.0001,"\(lying)",2022-01-01,a.jpg
            b1,u2,40.7201,-74.0101,"\(hidden)",2022-01-02,b.jpg
            b2,u2,40.7301,-74.0201,"\(spelled)",2022-01-03,a.jpg

            """)
        sandbox.run("import", "posts", "posts.csv", "--photos", "photos")
        sandbox.run("review", "flag", "b0", "--note", "said \u{202E}kcab\u{202C}", "--as", "kim")
        let server = try ServedQueue(sandbox)
        let browser = try signedIn(server, "alice", Self.wide, chromium: chromium, first: "b0")
        // The terminal's notation (`TerminalText`), in the list, the card, the history.
        let shown = TerminalText.safe(lying)
        #expect(shown == "sidewalk \\u202Egnp.exe\\u202C see photo")
        let list = try browser.evaluate(text("#list li[data-id=b0]")) as? String ?? ""
        #expect(list.contains(shown) && !list.contains("\u{202E}"), "\(list)")
        #expect(try browser.evaluate(text("#card .description")) as? String == shown)
        #expect(try browser.evaluate(text("#card .user-link bdi")) as? String == "u\\u202E1")
        let history = try browser.evaluate(text("#card .history")) as? String ?? ""
        #expect(history.contains("said \\u202Ekcab\\u202C"), "\(history)")
        let whole =
            try browser.evaluate("document.getElementById('card').innerText") as? String ?? ""
        #expect(!whole.unicodeScalars.contains { (0x202A...0x202E).contains($0.value) })
        // Each piece of user text is isolated: it cannot reorder what is around it.
        #expect(
            try browser.evaluate(
                "document.querySelector('#card .description').getAttribute('dir')") as? String
                == "auto")
        #expect(
            try browser.evaluate("document.querySelector('#list li[data-id=b0] bdi') !== null")
                as? Bool == true)
        try shoot(browser, "bidi-1280")
        // The user's panel.
        try browser.key("p")
        try expectShown(browser, "!document.getElementById('user-panel').hidden", "the panel")
        #expect(try browser.evaluate(text("#user-name")) as? String == "u\\u202E1")
        let panel = try browser.evaluate(text("#user-posts")) as? String ?? ""
        #expect(panel.contains(shown), "\(panel)")
        try browser.key("Escape")
        // Zero-width and other invisible characters, which the terminal leaves alone.
        try browser.key("j")
        try expectShown(browser, card("b1"), "b1")
        #expect(
            try browser.evaluate(text("#card .description")) as? String
                == "pay\\u200Bpal \\u2066x\\u2069\\uFEFF")
        try shoot(browser, "bidi-1280-invisible")
        try browser.key("j")
        try expectShown(browser, card("b2"), "b2")
        #expect(try browser.evaluate(text("#card .description")) as? String == spelled)
    }

    // MARK: - The server gone

    @Test func aDecisionThatDidNotReachTheServerSaysSoAndIsSentOnce() throws {
        let chromium = try #require(Chromium.path)
        Chromium.oneAtATime.lock()
        defer { Chromium.oneAtATime.unlock() }
        var server = try ServedQueue(sandbox)
        let port = server.port
        let browser = try signedIn(server, "alice", Self.wide, chromium: chromium)
        try expectShown(browser, "document.getElementById('live').textContent === 'live'", "live")
        // The server stops; the page says so in words, then approving p0 fails on its card.
        _ = server.stop()
        try expectShown(
            browser, "document.getElementById('live').textContent === 'reconnecting…'",
            "reconnecting")
        try browser.click("#approve")
        try expectShown(
            browser,
            "document.querySelector('#notice').textContent.includes('did not reach the server')"
                + " && document.querySelector('#notice .retry')", "the card says it was not sent")
        #expect(
            try browser.evaluate("document.getElementById('card').dataset.id") as? String == "p0")
        #expect(
            try browser.evaluate("document.querySelector('#list li[data-id=p0]').className")
                as? String == "current unsent")
        try expectShown(
            browser,
            "/^offline since \\d\\d:\\d\\d$/.test(document.getElementById('live').textContent)",
            "offline since HH:MM", seconds: 40)
        try shoot(browser, "outage-1280")
        // It comes back on the same port: live again. The decision not sent outlives a
        // reload of the page, and Retry records it once.
        server = try ServedQueue(sandbox, listen: "127.0.0.1:\(port)")
        try expectShown(
            browser, "document.getElementById('live').textContent === 'live'", "live again")
        try browser.reload()
        try expectShown(
            browser, card("p0") + " && document.querySelector('#notice .retry')",
            "still not sent after a reload")
        try browser.click("#notice .retry")
        try expectShown(browser, card("p1") + " && " + message("approved: p0"), "p0 approved")
        #expect(decisions().filter { $0["id"] == "p0" }.count == 1)
        // An answer lost on its way back: the decision did reach the server. Sending it
        // again finds it on record and applies nothing twice.
        try browser.evaluate(
            """
            window.realFetch = window.fetch;
            window.fetch = async (url, options) => {
              const response = await window.realFetch(url, options);
              if (String(url).startsWith('/api/decide')) {
                window.fetch = window.realFetch;
                throw new TypeError('Failed to fetch');
              }
              return response;
            };
            """)
        try browser.key("r")
        try expectShown(browser, "document.getElementById('reasons').open", "the reasons")
        try browser.key("3")
        try expectShown(browser, "document.querySelector('#notice .retry')", "not sent, it seems")
        #expect(decisions().filter { $0["id"] == "p1" }.map { $0["reason"] } == ["duplicate"])
        try browser.click("#notice .retry")
        try expectShown(
            browser, card("p2") + " && " + message("rejected (duplicate): p1"), "p1 rejected")
        #expect(decisions().filter { $0["id"] == "p1" }.count == 1)
        // A decision dropped is never sent, also not once the server is back.
        _ = server.stop()
        try browser.key("a")
        try expectShown(browser, "document.querySelector('#notice .drop')", "p2 not sent")
        try browser.click("#notice .drop")
        try expectShown(browser, message("dropped: approve of p2"), "dropped")
        server = try ServedQueue(sandbox, listen: "127.0.0.1:\(port)")
        try expectShown(browser, "document.getElementById('live').textContent === 'live'", "live")
        #expect(!decisions().contains { $0["id"] == "p2" })
        // The message about the outage went with it.
        #expect(
            try browser.evaluate("document.getElementById('message').textContent")
                as? String == "dropped: approve of p2 (not sent)")
        _ = server
    }

    // MARK: - A page that holds still

    /// What the header says about the connection and the database changes by itself; the
    /// card under a moderator's finger must not move when it does (a badge that grew from
    /// "live" to "reconnecting…" once wrapped the phone's header and moved Drop away).
    @Test(arguments: screens)
    func theCardStaysPutWhateverTheHeaderSays(screen: Screen) throws {
        let chromium = try #require(Chromium.path)
        Chromium.oneAtATime.lock()
        defer { Chromium.oneAtATime.unlock() }
        let server = try ServedQueue(sandbox)
        let browser = try signedIn(server, "alice", screen, chromium: chromium)
        // Each state drawn by the page's own functions, and measured in the same turn, so a
        // poll cannot draw another in between.
        let measure = """
            (() => {
              const states = [
                () => { link.signedOut = false; link.down = null; },
                () => { link.down = Date.now(); },
                () => { link.down = new Date(2026, 0, 1, 23, 58).getTime(); },
                () => { link.down = null; link.signedOut = true; },
              ];
              const follows = ['following', 'connecting', 'reconnecting', 'stopped'].map((state) =>
                ({ state, since: new Date(2026, 0, 1, 23, 58, 58).toISOString(), stored: 123456,
                   url: 'https://example-default-rtdb.firebaseio.com/Locations' }));
              const tops = [];
              // Without --follow (no line), then each state of a follow (its line shown).
              for (const follow of [null, ...follows]) {
                if (follow) showFollow(follow); else $('follow-status').hidden = true;
                for (const set of states) {
                  set();
                  showConnection();
                  const badge = $('live');
                  const cut = badge.scrollWidth > badge.clientWidth ? ' (cut short)' : '';
                  tops.push(badge.textContent + cut + ' / ' + $('follow-status').textContent + ': '
                    + Math.round($('card').getBoundingClientRect().top));
                }
              }
              link.signedOut = false; link.down = null; showConnection();
              return tops;
            })()
            """
        let tops = try #require(try browser.evaluate(measure) as? [String])
        // Two places at most: the line that following adds (once, at the start) and none.
        let withoutFollow = Set(tops.prefix(4).map { $0.split(separator: ":").last ?? "" })
        let following = Set(tops.dropFirst(4).map { $0.split(separator: ":").last ?? "" })
        #expect(withoutFollow.count == 1, "\(tops.joined(separator: "\n"))")
        #expect(following.count == 1, "\(tops.joined(separator: "\n"))")
        #expect(!tops.contains { $0.contains("(cut short)") }, "\(tops.joined(separator: "\n"))")
        try shoot(browser, "header-\(screen.name)")
    }
}
