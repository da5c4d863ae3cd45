import Foundation
import Testing

@testable import TroveCLI

/// Where Debian's Chromium lives, when it is installed (`make test-deps`).
enum Chromium {
    static let path = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Held by each browser test for its whole run: two Chromiums started side by side on a
    /// busy two-core machine starve each other's page timers, and a test then reads the
    /// page before its script caught up.
    static let oneAtATime = NSLock()

    /// The DOM after the page's scripts ran, as headless Chromium serialises it.
    static func dumpDOM(of file: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path ?? "/usr/bin/chromium")
        process.arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--virtual-time-budget=5000",
            "--user-data-dir=" + NSTemporaryDirectory()
                + "trove-chromium-\(UUID().uuidString)", "--dump-dom",
            URL(fileURLWithPath: file).absoluteString,
        ]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}

@Suite struct ReviewSheetPageTests {
    let sandbox: Sandbox

    static let hostile = [
        #"<img src=x onerror="document.title='pwned'">"#,
        "<script>document.title='pwned'</script>",
        #"" onmouseover="document.title='pwned'" x=""#,
        "</script><script>document.title='pwned'</script>",
    ]

    init() throws {
        sandbox = try Sandbox()
        sandbox.run("init")
        try sandbox.write("photos/a.jpg", PostPhotos.jpeg(width: 640, height: 480, seed: 1))
        try sandbox.write("photos/b.jpg", PostPhotos.jpeg(width: 300, height: 500, seed: 2))
        var lines = ["id,user,lat,lon,description,date,photo"]
        for (index, text) in Self.hostile.enumerated() {
            let quoted = "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            let photo = index == 3 ? "javascript:alert(1)" : index % 2 == 0 ? "a.jpg" : "b.jpg"
            lines.append(
                "p\(index),\(quoted),40.71\(index),-74.00\(index),\(quoted),2022-01-2\(index),\(photo)"
            )
        }
        try sandbox.write("posts.csv", lines.joined(separator: "\n") + "\n")
        sandbox.run("import", "posts", "posts.csv", "--photos", "photos")
    }

    @Test func eachSheetIsNewAndSelfContained() throws {
        #expect(sandbox.run("review", "sheet", "--out", "sheet.html").status == 0)
        let first = try SheetPage(path: sandbox.path("sheet.html"))
        let again = sandbox.run("review", "sheet", "--out", "other.html")
        #expect(again.status == 0)
        // Two sheets of the same queue: another id and secret, so downloads never collide.
        let second = try SheetPage(path: sandbox.path("other.html"))
        #expect(first.sheet != second.sheet && first.secret != second.secret)
        #expect(first.sheet.count == 16 && first.secret.count == 64)
        #expect(first.posts.count == 4 && first.posts.values.allSatisfy { $0.version.count == 12 })
        #expect(again.stderr.contains("sheet \(second.sheet) for tester"))
        let page = try String(contentsOfFile: sandbox.path("sheet.html"), encoding: .utf8)
        #expect(page.contains("Content-Security-Policy"))
        #expect(page.contains("default-src 'none'; img-src data:;"))
        // Positions link to OpenStreetMap, but nothing is loaded from anywhere.
        #expect(!page.contains("src=\"http") && !page.contains("<image "))
        #expect(page.contains("href=\"https://www.openstreetmap.org/?mlat="))
        #expect(page.components(separatedBy: "data:image/jpeg;base64,").count == 4)
        // The only executable script is the template's own.
        #expect(page.components(separatedBy: "<script").count == 3)
        #expect(!page.contains("<script>document"))
        #expect(!page.contains("<img src=x"))
        #expect(sandbox.run("review", "sheet").status == 2)
    }

    @Test(.enabled(if: Chromium.path != nil, "chromium is not installed: run make test-deps"))
    func hostileTextRunsNoScriptInChromium() throws {
        Chromium.oneAtATime.lock()
        defer { Chromium.oneAtATime.unlock() }
        #expect(sandbox.run("review", "sheet", "--out", "sheet.html").status == 0)
        let dom = try Chromium.dumpDOM(of: sandbox.path("sheet.html"))
        #expect(dom.contains("data-ready=\"true\""), "the page's own script did not run")
        #expect(dom.contains("<title>trove review: pending posts</title>"))
        #expect(!dom.contains("pwned</title>"))
        #expect(!dom.contains("<img src=\"x\""))
        #expect(!dom.contains("<script>document.title"))
        #expect(dom.components(separatedBy: "class=\"card").count == 5)
        #expect(dom.components(separatedBy: "data-loaded=\"true\"").count == 4)
        #expect(!dom.contains("data-loaded=\"false\""))
        #expect(dom.contains("&lt;img src=x onerror=\"document.title='pwned'\"&gt;"))
    }
}
