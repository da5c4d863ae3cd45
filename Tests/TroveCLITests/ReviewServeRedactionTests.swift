import Foundation
import Testing
import TroveBase

@testable import TroveCLI
@testable import TroveStore

/// Redaction in the served page: boxes drawn on the photo by mouse or finger, or given by
/// numbers from the keyboard, and the post approved with them.
extension ReviewServePageTests {
    /// The point at fractions `x`, `y` of the photo on view, in the viewport.
    func photoPoint(_ browser: BrowserSession, _ x: Double, _ y: Double) throws -> (
        x: Double, y: Double
    ) {
        let answer = try browser.evaluate(
            """
            (() => { const box = document.querySelector('#card .photo img').getBoundingClientRect();
              return [box.left + box.width * \(x), box.top + box.height * \(y)]; })()
            """)
        let point = try #require(answer as? [Double])
        return (point[0], point[1])
    }

    /// The boxes of the latest decision on `id`, as recorded.
    func recordedBoxes(_ id: String) throws -> String? {
        let workspace = try Workspace(path: sandbox.workspace)
        return try PostStore(workspace).decisions(for: id).last?.redaction
    }

    static let drawWays: [(Way, Screen)] = [(.pointer, wide), (.touch, phone), (.keyboard, middle)]

    @Test(arguments: drawWays)
    func aBoxDrawnOnThePhotoIsApprovedWithRedaction(way: Way, screen: Screen) throws {
        let chromium = try #require(Chromium.path)
        Chromium.oneAtATime.lock()
        defer { Chromium.oneAtATime.unlock() }
        let server = try ServedQueue(sandbox)
        let browser = try signedIn(server, "alice", screen, chromium: chromium)
        try expectShown(
            browser, "document.querySelector('#card .photo img').complete", "the photo")
        try expectShown(browser, "document.getElementById('redaction-draw')", "redaction")
        #expect(
            try browser.evaluate("document.getElementById('approve-redacted').disabled") as? Bool
                == true, "approve with redaction before any box")
        switch way {
        case .pointer, .touch:
            if way == .pointer {
                try browser.click("#redaction-draw")
            } else {
                try browser.tap("#redaction-draw")
            }
            try expectShown(
                browser,
                "document.getElementById('redaction-draw').getAttribute('aria-pressed') === 'true'",
                "drawing on")
            try browser.evaluate(
                "document.querySelector('#card .photo img').scrollIntoView({block: 'center'})")
            try browser.drag(
                from: try photoPoint(browser, 0.2, 0.25), to: try photoPoint(browser, 0.5, 0.75),
                touch: way == .touch)
            try expectShown(
                browser, "document.querySelectorAll('#redaction-list li').length === 1", "a box")
            // Done drawing.
            if way == .pointer {
                try browser.click("#redaction-draw")
            } else {
                try browser.tap("#redaction-draw")
            }
            try expectShown(
                browser,
                "document.getElementById('redaction-draw').getAttribute('aria-pressed') === 'false'",
                "drawing off")
        case .keyboard:
            try browser.evaluate("document.getElementById('box-x').focus()")
            for (index, value) in ["20", "25", "30", "50"].enumerated() {
                if index > 0 { try browser.key("Tab") }
                try browser.type(value)
            }
            try browser.key("Enter")
        }
        try expectShown(
            browser,
            "document.querySelectorAll('#redaction-list li').length === 1"
                + " && document.querySelectorAll('#card .redaction-box').length === 1",
            "the box, listed and on the photo")
        try shoot(browser, "redaction-\(way.rawValue)-\(screen.name)")
        #expect(
            try browser.accessibleNames(role: "button", in: "#redaction-list") == ["remove box 1"])
        // A finger taps what is still once the page has scrolled it into view.
        try browser.evaluate(
            "document.getElementById('approve-redacted').scrollIntoView({block: 'center'})")
        try expectShown(
            browser,
            "(() => { const b = document.getElementById('approve-redacted')"
                + ".getBoundingClientRect(); return b.top > 0 && b.bottom < innerHeight * 0.7; })()",
            "approve with redaction in view")
        switch way {
        case .pointer: try browser.click("#approve-redacted")
        case .touch: try browser.tap("#approve-redacted")
        case .keyboard:
            try browser.evaluate("document.getElementById('approve-redacted').focus()")
            try browser.key("Enter")
        }
        try expectShown(
            browser, message("approved with redaction (1 box): p0"), "approved with redaction")
        let boxes = try #require(try recordedBoxes("p0"))
        let numbers = boxes.split(separator: ",").compactMap { Double($0) }
        #expect(numbers.count == 4, "\(boxes)")
        let expected = [0.2, 0.25, 0.3, 0.5]
        for (found, wanted) in zip(numbers, expected) {
            #expect(abs(found - wanted) < 0.03, "recorded \(boxes), drawn about 0.2,0.25,0.3,0.5")
        }
    }

    @Test(.enabled(if: AxeCore.isAvailable, AxeCore.skipReason), arguments: screens)
    func axeFindsNothingSeriousInTheRedactionView(screen: Screen) throws {
        let chromium = try #require(Chromium.path)
        Chromium.oneAtATime.lock()
        defer { Chromium.oneAtATime.unlock() }
        let server = try ServedQueue(sandbox)
        let browser = try signedIn(server, "alice", screen, chromium: chromium)
        try expectShown(
            browser, "document.querySelector('#card .photo img').complete", "the photo")
        try browser.click("#redaction-draw")
        try browser.evaluate(
            "document.querySelector('#card .photo img').scrollIntoView({block: 'center'})")
        try browser.drag(
            from: try photoPoint(browser, 0.1, 0.1), to: try photoPoint(browser, 0.4, 0.3),
            touch: false)
        try expectShown(
            browser, "document.querySelectorAll('#redaction-list li').length === 1", "a box")
        // The form's error shown as well: a box with no numbers.
        try browser.evaluate("document.getElementById('box-x').value = '120'")
        try browser.evaluate(
            "document.getElementById('box-form').dispatchEvent(new Event('submit', {cancelable: true}))"
        )
        try expectShown(browser, "!document.getElementById('box-error').hidden", "its error")
        try shoot(browser, "axe-\(screen.name)-redaction")
        let violations = try AxeCore.run(in: browser)
        for violation in violations { print("axe \(screen.width) px, redaction: \(violation)") }
        let serious = violations.filter(\.isSerious)
        #expect(serious.isEmpty, "\(serious)")
    }
}
