import Foundation
import Testing

@testable import TroveCLI

/// The offline sheet as a moderator works it, in headless Chromium: undo right after a
/// decision, where the focus goes after a reload, filters, a note on a reject, and a
/// header that stays one row.
@Suite(.enabled(if: Chromium.path != nil, "chromium is not installed: run make test-deps"))
struct ReviewSheetUITests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        sandbox.run("init")
        try sandbox.write("photos/a.jpg", PostPhotos.jpeg(width: 320, height: 240, seed: 1))
        try sandbox.write("photos/b.jpg", PostPhotos.jpeg(width: 320, height: 240, seed: 2))
        try sandbox.write(
            "posts.csv",
            """
            id,user,lat,lon,description,date,photo
            p1,alice,40.7128,-74.0060,cans by the river,2022-01-24,a.jpg
            p2,bob,40.7300,-74.0000,cheap deals at www.spam.example,2022-01-25,
            p3,carl,40.7400,-74.0100,crisps,2022-01-26,b.jpg
            p4,dana,40.7500,-74.0200,more bottles,2022-01-27,

            """)
        sandbox.run("import", "posts", "posts.csv", "--photos", "photos")
        #expect(sandbox.run("review", "sheet", "--out", "sheet.html").status == 0)
    }

    /// A browser on the sheet, with the moderator's name already known (so no prompt
    /// comes before the ones a test answers).
    func openSheet() throws -> BrowserSession {
        let browser = try BrowserSession(chromium: Chromium.path!)
        try browser.open(sandbox.path("sheet.html"))
        try browser.evaluate("localStorage.setItem('trove-review:moderator', 'kim')")
        try browser.reload()
        #expect(try browser.evaluate("document.documentElement.dataset.ready") as? String == "true")
        return browser
    }

    /// What `read` gives once it gives `expected`, or after 30 s: the page applies a key
    /// or a reload's saved decisions a moment after the event that caused it, and with both
    /// cores busy that moment has been seen to pass 5 s.
    func eventually(_ expected: String?, _ read: () throws -> String?) throws -> String? {
        let deadline = Date().addingTimeInterval(30)
        var value = try read()
        while value != expected && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            value = try read()
        }
        return value
    }

    func focused(_ browser: BrowserSession) throws -> String? {
        try browser.evaluate("document.querySelector('article.card.current').dataset.id")
            as? String
    }

    func decision(_ browser: BrowserSession, _ id: String) throws -> String? {
        try browser.evaluate(
            "document.querySelector('article.card[data-id=\"\(id)\"]').dataset.decision || null")
            as? String
    }

    func visibleIDs(_ browser: BrowserSession) throws -> [String] {
        try browser.evaluate(
            "Array.from(document.querySelectorAll('article.card')).filter(c => "
                + "c.offsetParent !== null).map(c => c.dataset.id)") as? [String] ?? []
    }

    @Test func uRightAfterADecisionUndoesIt() throws {
        Chromium.oneAtATime.lock()
        defer { Chromium.oneAtATime.unlock() }
        let browser = try openSheet()
        #expect(try eventually("p1") { try focused(browser) } == "p1")
        try browser.press("a")
        #expect(try eventually("p2") { try focused(browser) } == "p2")
        #expect(try eventually("approved") { try decision(browser, "p1") } == "approved")
        try browser.press("u")
        #expect(try eventually(nil) { try decision(browser, "p1") } == nil)
        #expect(try eventually("p1") { try focused(browser) } == "p1", "back to the card undone")
        // Twice: decide again, move on, and u still undoes the one just made.
        try browser.press("r")
        try browser.press("2")
        #expect(try eventually("p2") { try focused(browser) } == "p2")
        try browser.press("u")
        #expect(try eventually(nil) { try decision(browser, "p1") } == nil)
        // After moving on by hand, u is about the card in focus (nothing to undo there).
        try browser.press("a")
        try browser.press("j")
        try browser.press("u")
        #expect(try eventually("approved") { try decision(browser, "p1") } == "approved")
        #expect(
            try browser.evaluate("document.getElementById('decided').textContent") as? String
                == "1 of 4 decided")
    }

    @Test func aReloadFocusesTheFirstUndecidedCard() throws {
        Chromium.oneAtATime.lock()
        defer { Chromium.oneAtATime.unlock() }
        let browser = try openSheet()
        try browser.press("a")
        try browser.press("r")
        try browser.press("1")
        #expect(try eventually("p3") { try focused(browser) } == "p3")
        // A gap: deciding p4 but not p3 still brings the focus back to p3.
        try browser.press("j")
        try browser.press("a")
        #expect(try eventually("approved") { try decision(browser, "p4") } == "approved")
        #expect(try browser.waitUntilStored())
        // Twice: each reload starts at p3 with the decisions kept.
        for _ in 0..<2 {
            try browser.reload()
            let after = try eventually("p3") { try focused(browser) }
            let saved = try browser.evaluate(
                "JSON.stringify(Object.keys(localStorage).map(k => [k, localStorage.getItem(k)]))")
            #expect(after == "p3", "\(saved ?? "")")
            #expect(try eventually("rejected") { try decision(browser, "p2") } == "rejected")
            #expect(try eventually("approved") { try decision(browser, "p4") } == "approved")
        }
    }

    @Test func filtersHideCardsAndARejectTakesANote() throws {
        Chromium.oneAtATime.lock()
        defer { Chromium.oneAtATime.unlock() }
        let browser = try openSheet()
        func choose(_ filter: String, _ value: String) throws {
            try browser.evaluate(
                "(function () { var s = document.getElementById('filter-\(filter)'); "
                    + "s.value = '\(value)'; s.dispatchEvent(new Event('change')); }())")
        }
        let signals =
            try browser.evaluate(
                "Array.from(document.getElementById('filter-signal').options).map(o => o.value)")
            as? [String]
        #expect(signals?.contains("text-link") == true, "\(signals ?? [])")
        try choose("signal", "text-link")
        #expect(try visibleIDs(browser) == ["p2"])
        #expect(try eventually("p2") { try focused(browser) } == "p2")
        try choose("signal", "")
        #expect(try visibleIDs(browser) == ["p1", "p2", "p3", "p4"])

        // Hide the decided: deciding a card takes it away and the focus goes on.
        try choose("decided", "undecided")
        try browser.press("k")
        try browser.press("a")
        #expect(
            try visibleIDs(browser) == ["p1", "p3", "p4"]
                || (try visibleIDs(browser)) == ["p2", "p3", "p4"])
        let hidden = try browser.evaluate("document.getElementById('shown').textContent") as? String
        #expect(hidden == "1 hidden")
        try choose("decided", "")

        // A note on a reject, kept through a reload and in the download.
        try browser.evaluate(
            "document.querySelector('article.card[data-id=\"p3\"] [data-action=\"note\"]') !== null"
        )
        try choose("decided", "undecided")
        let target = try #require(try focused(browser))
        try browser.press("r")
        try browser.press("4")
        try choose("decided", "")
        browser.promptAnswers = ["a face in the picture"]
        try browser.evaluate(
            "document.querySelector('article.card[data-id=\"\(target)\"] [data-action=\"note\"]').click()"
        )
        let line =
            try browser.evaluate(
                "document.querySelector('article.card[data-id=\"\(target)\"] .decision').textContent"
            )
            as? String
        #expect(line == "→ rejected (inappropriate): a face in the picture", "\(line ?? "")")
        #expect(try browser.waitUntilStored())
        try browser.reload()
        #expect(
            try browser.evaluate(
                "document.querySelector('article.card[data-id=\"\(target)\"] .decision').textContent"
            )
                as? String == line)
        try browser.evaluate("document.getElementById('download').click()")
        let data = try Data(contentsOf: URL(fileURLWithPath: try browser.waitForDownload()))
        let file = try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
        let made = try #require(file["decisions"] as? [[String: Any]])
        let rejected = try #require(made.first { $0["id"] as? String == target })
        #expect(rejected["note"] as? String == "a face in the picture")
        #expect(rejected["reason"] as? String == "inappropriate")
        // What a moderator sees with the decided cards hidden, and one shown with its note.
        try choose("decided", "decided")
        let shot = try browser.send("Page.captureScreenshot", ["format": "png"])
        if let base64 = shot["data"] as? String, let png = Data(base64Encoded: base64) {
            try png.write(to: URL(fileURLWithPath: "/tmp/trove-sheet-decided.png"))
        }
    }

    @Test(arguments: [1280, 800, 760])
    func theHeaderStaysOneCompactRow(width: Int) throws {
        Chromium.oneAtATime.lock()
        defer { Chromium.oneAtATime.unlock() }
        let browser = try openSheet()
        // With a filter on, its count takes room too.
        try browser.press("a")
        try browser.evaluate(
            "(function () { var s = document.getElementById('filter-decided'); "
                + "s.value = 'undecided'; s.dispatchEvent(new Event('change')); }())")
        try browser.send(
            "Emulation.setDeviceMetricsOverride",
            ["width": width, "height": 900, "deviceScaleFactor": 1, "mobile": false])
        let height =
            try browser.evaluate(
                "document.querySelector('header').getBoundingClientRect().height") as? Double
        #expect((height ?? 999) <= 48, "\(height ?? -1) px")
        // Every shown part of the header on one row, inside the window.
        let boxes =
            try browser.evaluate(
                "Array.from(document.querySelector('header').children).filter(e => "
                    + "e.offsetParent !== null).map(e => { var r = e.getBoundingClientRect(); "
                    + "return [r.top, r.bottom, r.right]; })") as? [[Double]] ?? []
        #expect(boxes.count >= 5)
        // The title and the keys give way at 800 px; the counts, filters and buttons stay.
        #expect(
            try browser.evaluate("document.getElementById('filter-decided').offsetParent !== null")
                as? Bool == true)
        let tops = boxes.map { $0[0] }
        #expect((tops.max() ?? 0) - (tops.min() ?? 0) < 16, "\(boxes)")
        #expect(boxes.allSatisfy { $0[2] <= Double(width) + 0.5 }, "\(boxes)")
        #expect(
            try browser.evaluate("document.getElementById('download').offsetParent !== null")
                as? Bool == true)
        #expect(
            try browser.evaluate("document.getElementById('shown').textContent") as? String
                == "1 hidden")
        #expect(
            try browser.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
                as? Bool
                == true, "nothing wider than the window")
        let shot = try browser.send("Page.captureScreenshot", ["format": "png"])
        if let base64 = shot["data"] as? String, let png = Data(base64Encoded: base64) {
            try png.write(to: URL(fileURLWithPath: "/tmp/trove-sheet-\(width).png"))
        }
    }
}
