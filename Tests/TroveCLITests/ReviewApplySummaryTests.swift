import Foundation
import Testing

@testable import TroveCLI

/// `review apply` ends with one line that says what the file came to.
@Suite struct ReviewApplySummaryTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        sandbox.run("init")
        try sandbox.write(
            "posts.csv",
            "id,user,lat,lon,date\np1,a,1,2,2022-01-01\np2,b,1,2,2022-01-02\np3,c,1,2,2022-01-03\n"
        )
        #expect(sandbox.run("import", "posts", "posts.csv").status == 0)
        #expect(
            sandbox.run("review", "sheet", "--out", "sheet.html", "--for", "ann").status == 0)
        let page = try SheetPage(path: sandbox.path("sheet.html"))
        try page.file([
            .init(id: "p1", action: "approve"),
            .init(id: "p2", action: "reject", reason: "spam"),
            .init(id: "p3", action: "approve"),
        ]).write(to: URL(fileURLWithPath: sandbox.path("decisions.json")))
    }

    @Test func applyPrintsASummaryLine() throws {
        sandbox.run("review", "reject", "p3", "--as", "bob", "--reason", "duplicate")
        let first = sandbox.run("review", "apply", "decisions.json", "--as", "ann")
        #expect(first.status == 1)
        let last = first.stderr.split(separator: "\n").last.map(String.init)
        #expect(
            last
                == "applied 2 of 3 decisions from decisions.json (1 approved, 1 rejected); "
                + "1 refused (above)", "\(first.stderr)")
        #expect(first.stderr.contains("bob"), "the refusal names who decided p3")
        // Run twice: the second run applies nothing and says so.
        let again = sandbox.run("review", "apply", "decisions.json", "--as", "ann")
        let summary = again.stderr.split(separator: "\n").last.map(String.init) ?? ""
        #expect(
            summary.hasPrefix("applied 0 of 3 decisions from decisions.json"), "\(again.stderr)")
    }
}
