import Foundation
import Testing

@testable import TroveCLI

/// The review sheet keeps a moderator's work and credits it, checked in a real browser.
@Suite struct ReviewSheetWorkTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        sandbox.run("init")
        try sandbox.write("photos/a.jpg", PostPhotos.jpeg(width: 320, height: 240, seed: 1))
        // Taken about 1.1 km north of where the post claims to be.
        try sandbox.write(
            "photos/far.jpg",
            PostPhotos.jpeg(width: 320, height: 240, seed: 2, gps: (40.7228, -74.0060)))
        let csv = """
            id,user,lat,lon,description,date,photo
            -Mq1a,alice,40.7128,-74.0060,cans <b>by</b> the river,2022-01-24,a.jpg
            -Mq2b,bob,40.7300,-74.0000,bottles,2022-01-25,
            far,carl,40.7128,-74.0060,crisps,2022-01-26,far.jpg
            near,dana,40.73001,-74.00001,more bottles,2022-01-26,

            """
        try sandbox.write("posts.csv", csv)
        sandbox.run("import", "posts", "posts.csv", "--photos", "photos")
        #expect(sandbox.run("review", "sheet", "--out", "sheet.html", "--for", "kim").status == 0)
    }

    var page: String {
        (try? String(contentsOfFile: sandbox.path("sheet.html"), encoding: .utf8)) ?? ""
    }

    @Test func cardsMapTheClaimAndThePhotoWithTheDistanceAndTheNeighbours() {
        let page = self.page
        // far: both positions, the distance, links to OpenStreetMap.
        #expect(page.contains("<dt>photo taken</dt>"))
        #expect(page.contains("(1.1 km from the claimed position)"))
        #expect(page.contains("class=\"photo-position\""))
        #expect(page.contains("https://www.openstreetmap.org/?mlat=40.722800&amp;mlon=-74.006000"))
        #expect(page.contains(">1.1 km</text>"))
        // near and -Mq2b are each other's neighbours.
        #expect(page.contains("class=\"neighbour\""))
        #expect(page.contains("nearby: <a href="))
        // No basemap unless asked: images only from data: URIs.
        #expect(page.contains("img-src data:;"))
        #expect(!page.contains("<image "))
    }

    @Test func tilesOptInWidensThePolicyForExactlyThatHost() {
        let result = sandbox.run(
            "review", "sheet", "--out", "tiles.html", "--tiles",
            "https://tile.openstreetmap.org/{z}/{x}/{y}.png")
        #expect(result.status == 0)
        let page = (try? String(contentsOfFile: sandbox.path("tiles.html"), encoding: .utf8)) ?? ""
        #expect(page.contains("img-src data: https://tile.openstreetmap.org;"))
        #expect(page.contains("<image href=\"https://tile.openstreetmap.org/"))
        #expect(page.contains("© OpenStreetMap contributors"))
        for bad in [
            "https://{s}.tile.example/{z}/{x}/{y}.png", "ftp://x/{z}/{x}/{y}", "https://a/{z}",
        ] {
            let refused = sandbox.run("review", "sheet", "--out", "bad.html", "--tiles", bad)
            #expect(refused.status == 2, "\(bad)")
            #expect(refused.stderr.contains("--tiles:"))
        }
    }

    @Test func applyCreditsTheFilesModeratorRefusesOtherWorkspacesAndRepeatsAsANoOp() throws {
        let sheet = try SheetPage(path: sandbox.path("sheet.html"))
        #expect(sheet.moderator == "kim")
        let file = try sheet.file([
            .init(id: "-Mq1a", action: "approve"),
            .init(
                id: "far", action: "reject", reason: "wrong-location", note: "EXIF 1 km off",
                at: "2026-12-01T10:01:00.000Z"),
        ])
        try sandbox.write("decisions.json", file)
        let first = sandbox.run("review", "apply", "decisions.json", environment: ["USER": "lee"])
        #expect(first.status == 0, "\(first.stderr)")
        let log = sandbox.run("review", "log", "--format", "json").stdout
        let entries = try JSONSerialization.jsonObject(with: Data(log.utf8)) as? [[String: Any]]
        #expect(entries?.count == 2)
        #expect(entries?.allSatisfy { $0["moderator"] as? String == "kim" } == true)
        #expect(entries?.allSatisfy { $0["applied_by"] as? String == "lee" } == true)
        #expect(entries?.first?["decided_at"] as? String == "2026-12-01T10:00:00.000Z")
        #expect(sandbox.run("review", "log", "far").stdout.contains("(applied by lee)"))

        // The same file again, by its own author: nothing to do, exit 0, no new entry.
        let again = sandbox.run("review", "apply", "decisions.json", "--as", "kim")
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("2 of 2 decisions were applied from this file before"))
        #expect(sandbox.run("review", "log").stdout.split(separator: "\n").count == 2)

        // Someone else decides -Mq2b meanwhile: refused, naming who.
        sandbox.run("review", "approve", "-Mq2b", "--as", "bob")
        try sandbox.write(
            "later.json",
            try sheet.file([
                .init(id: "-Mq1a", action: "approve"),
                .init(id: "-Mq2b", action: "reject", reason: "wrong-location"),
            ]))
        let conflict = sandbox.run("review", "apply", "later.json")
        #expect(conflict.status == 1)
        #expect(
            conflict.stderr.contains("-Mq2b is now approved (you saw it pending): decided by bob"))

        // A file from another workspace changes nothing.
        let other = try Sandbox()
        other.run("init")
        other.run("import", "posts", sandbox.path("posts.csv"))
        try other.write("decisions.json", file)
        let refused = other.run("review", "apply", "decisions.json")
        #expect(refused.status == 3)
        #expect(refused.stderr.contains("made from another workspace"))
        #expect(other.run("review", "log").stdout.isEmpty)
    }

    @Test(.enabled(if: Chromium.path != nil, "chromium is not installed: run make test-deps"))
    func decisionsSurviveAReloadAndTheDownloadCreditsTheModerator() throws {
        Chromium.oneAtATime.lock()
        defer { Chromium.oneAtATime.unlock() }
        let browser = try BrowserSession(chromium: Chromium.path!)
        try browser.open(sandbox.path("sheet.html"))
        #expect(try browser.evaluate("document.documentElement.dataset.ready") as? String == "true")
        #expect(
            try browser.evaluate("document.getElementById('decided').textContent") as? String
                == "0 of 4 decided")
        // The sheet was made for kim: nobody is asked for a name.
        try browser.press("a")
        try browser.press("r")
        try browser.press("7")
        #expect(browser.dialogs.filter { $0.type == "prompt" }.isEmpty, "\(browser.dialogs)")
        func decisions() throws -> [String] {
            try browser.evaluate(
                "Array.from(document.querySelectorAll('article.card')).map(c => "
                    + "(c.dataset.decision || '-') + ' ' + c.querySelector('h2 .status').textContent"
                    + " + ' ' + c.querySelector('.decision').textContent)") as? [String] ?? []
        }
        let before = try decisions()
        #expect(before.first == "approved pending → approved → approved")
        #expect(before.dropFirst().first == "rejected pending → rejected → rejected (privacy)")
        #expect(
            try browser.evaluate("document.getElementById('decided').textContent") as? String
                == "2 of 4 decided")

        // Leaving with decisions not downloaded warns; after the reload both are still there.
        #expect(try browser.waitUntilStored())
        try browser.reload()
        #expect(
            browser.dialogs.contains { $0.type == "beforeunload" }, "\(browser.dialogs)")
        let after = try decisions()
        #expect(after == before, "\(after)")
        #expect(
            try browser.evaluate("document.getElementById('moderator').textContent") as? String
                == "moderator: kim")

        try browser.evaluate("document.getElementById('download').click()")
        let path = try browser.waitForDownload()
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let file = try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(file["moderator"] as? String == "kim")
        #expect((file["sheet"] as? String)?.count == 16)
        #expect((file["workspace"] as? String)?.count == 32)
        let made = try #require(file["decisions"] as? [[String: Any]])
        #expect(made.map { $0["id"] as? String } == ["-Mq1a", "-Mq2b"])
        #expect(made.allSatisfy { ($0["at"] as? String)?.hasSuffix("Z") == true })
        #expect(made.allSatisfy { $0["seen"] as? String == "pending" })
        #expect(made.last?["reason"] as? String == "privacy")
        // Each decision names the version the sheet showed, and the page signed it all.
        let sheet = try SheetPage(path: sandbox.path("sheet.html"))
        #expect(
            made.map { $0["version"] as? String } == [
                sheet.posts["-Mq1a"]?.version, sheet.posts["-Mq2b"]?.version,
            ])
        #expect((file["signature"] as? String)?.count == 64)

        // Downloaded: leaving no longer warns.
        let warnings = browser.dialogs.filter { $0.type == "beforeunload" }.count
        try browser.reload()
        #expect(browser.dialogs.filter { $0.type == "beforeunload" }.count == warnings)

        // Nothing but the page itself and its data: URIs was requested.
        let remote = browser.requestedURLs.filter {
            !$0.hasPrefix("file:") && !$0.hasPrefix("data:")
        }
        #expect(remote.isEmpty, "\(remote)")
        #expect(browser.requestedURLs.contains { $0.hasPrefix("file:") })

        // apply credits kim; applying again is a no-op.
        try sandbox.write("downloaded.json", data)
        let applied = sandbox.run(
            "review", "apply", "downloaded.json", environment: ["USER": "lee"])
        #expect(applied.status == 0, "\(applied.stderr)")
        let log = sandbox.run("review", "log").stdout
        #expect(log.contains("-Mq1a  kim  pending → approved  (applied by lee)"))
        #expect(log.contains("-Mq2b  kim  pending → rejected  (privacy)  (applied by lee)"))
        let again = sandbox.run("review", "apply", "downloaded.json")
        #expect(again.status == 0)
        #expect(sandbox.run("review", "log").stdout == log)
    }

    /// Approving a post whose photo could not be read asks first; what the moderator
    /// confirms is applied without --force, because someone did decide to.
    @Test(.enabled(if: Chromium.path != nil, "chromium is not installed: run make test-deps"))
    func approvingAnUnreadablePhotoAsksAndTheConfirmationIsApplied() throws {
        let moderator = try Sandbox()
        moderator.run("init")
        try moderator.write("photos/bad.jpg", Data([0xFF, 0xD8, 0xFF, 0xE0, 9, 9]))
        try moderator.write(
            "posts.csv", "id,lat,lon,date,photo\nbad,40.7,-74,2022-01-03,bad.jpg\n")
        moderator.run("import", "posts", "posts.csv", "--photos", "photos")
        #expect(moderator.run("review", "sheet", "--out", "sheet.html").status == 0)
        Chromium.oneAtATime.lock()
        defer { Chromium.oneAtATime.unlock() }
        let browser = try BrowserSession(chromium: Chromium.path!)
        try browser.open(moderator.path("sheet.html"))
        #expect(try browser.evaluate("document.documentElement.dataset.ready") as? String == "true")
        browser.promptAnswers = ["kim"]
        browser.confirmAnswers = [false, true]
        func decided() throws -> String? {
            try browser.evaluate("document.getElementById('decided').textContent") as? String
        }
        try browser.press("a")
        let asked = browser.dialogs.filter { $0.type == "confirm" }
        #expect(asked.count == 1, "\(browser.dialogs)")
        #expect(asked.first?.message.contains("The photo of bad could not be read") == true)
        #expect(try decided() == "0 of 1 decided")
        try browser.press("a")
        #expect(browser.dialogs.filter { $0.type == "confirm" }.count == 2)
        #expect(try decided() == "1 of 1 decided")

        try browser.evaluate("document.getElementById('download').click()")
        let data = try Data(contentsOf: URL(fileURLWithPath: try browser.waitForDownload()))
        let file = try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
        let made = try #require(file["decisions"] as? [[String: Any]])
        #expect(made.first?["confirmed"] as? Bool == true)
        try moderator.write("decisions.json", data)
        let applied = moderator.run("review", "apply", "decisions.json")
        #expect(applied.status == 0, "\(applied.stderr)")
        #expect(moderator.run("review", "list", "--status", "approved").stdout.contains("bad"))
    }
}
