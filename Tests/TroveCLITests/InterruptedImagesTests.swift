import Foundation
import Testing
import TroveImaging

@testable import TroveCLI
@_spi(Testing) @testable import TroveStore

/// `images` records its renditions in batches: a run killed or interrupted keeps what it
/// finished, and the next run makes only the rest.
@Suite struct InterruptedImagesTests {
    /// A workspace of `count` treasures, each with an image of its own (one picture with a
    /// different trailer after its end, so every file has its own content).
    func workspace(of count: Int) throws -> Sandbox {
        let sandbox = try Sandbox()
        sandbox.run("init")
        let jpeg = try JPEG.encode(ImagesTests.photo(width: 200, height: 150), quality: 90)
        var csv = "key,name,lat,lon,image\n"
        for index in 0..<count {
            try sandbox.write("art/\(index).jpg", Data(jpeg + Array("copy \(index)".utf8)))
            csv += "t\(index),Name \(index),40.\(index),-74,art/\(index).jpg\n"
        }
        try sandbox.write("t.csv", csv)
        let result = sandbox.run("import", "treasures", "t.csv")
        #expect(result.status == 0, "\(result.stderr)")
        return sandbox
    }

    func recorded(_ sandbox: Sandbox) throws -> [String] {
        try Workspace.testDatabase(at: sandbox.workspace).query(
            "SELECT path FROM renditions ORDER BY path"
        ) { $0.text(0) ?? "" }
    }

    /// Starts `images` on more and more images until `stop` ends it with some renditions
    /// recorded and others still to make; returns the workspace, how many renditions a
    /// whole run makes, and the stopped run's outcome.
    func stopped(
        by stop: (TroveProcess) -> TroveProcess.Outcome,
        endedEarly: (TroveProcess.Outcome) -> Bool
    ) throws -> (sandbox: Sandbox, total: Int, outcome: TroveProcess.Outcome)? {
        try TroveProcess.stoppedMidway(
            ["images", "--jobs", "1"], size: 40, prepare: workspace(of:),
            progressed: { ((try? recorded($0).count) ?? 0) > 0 }, stop: stop,
            endedEarly: endedEarly
        ).map { ($0.sandbox, $0.size * 3, $0.outcome) }
    }

    /// The renditions a stopped run recorded are on disk, and the next run makes the rest
    /// and only the rest.
    func expectTheNextRunMakesTheRest(_ sandbox: Sandbox, total: Int) throws {
        let kept = try recorded(sandbox)
        #expect(!kept.isEmpty && kept.count < total, "\(kept.count) of \(total)")
        for path in kept {
            #expect(FileManager.default.fileExists(atPath: sandbox.path("build/images/" + path)))
        }
        let again = try TroveProcess.run(
            ["images", "--format", "json"], in: sandbox.folder.path)
        #expect(again.status == 0, "\(again.stderr)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any])
        #expect(object["made"] as? Int == total - kept.count)
        #expect(object["unchanged"] as? Int == kept.count)
        #expect(try recorded(sandbox).count == total)
    }

    @Test func aKilledImagesRunKeepsItsFinishedRenditions() throws {
        let run = try #require(
            try stopped(by: { $0.killNow() }, endedEarly: { !$0.signalled }))
        #expect(run.outcome.signalled)
        #expect(try TroveProcess.run(["check"], in: run.sandbox.folder.path).status == 0)
        try expectTheNextRunMakesTheRest(run.sandbox, total: run.total)
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func anInterruptedImagesRunRecordsWhatItMadeAndDoesNotExitZero(signal: Int32) throws {
        let run = try #require(
            try stopped(
                by: { $0.signal(signal) }, endedEarly: { !$0.stderr.contains("interrupted") }))
        #expect(run.outcome.status == 1, "\(run.outcome.stderr)")
        #expect(!run.outcome.signalled)
        #expect(
            run.outcome.stderr.contains(
                "run the same command again to make the rest"), "\(run.outcome.stderr)")
        try expectTheNextRunMakesTheRest(run.sandbox, total: run.total)
    }
}
