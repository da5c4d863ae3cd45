import Foundation
import Testing

@testable import TroveBase
@testable import TroveKit

/// The Storage plan script holds every name single-quoted (or not at all): an out name, a
/// layout file name and an images folder holding line breaks, `$(…)`, backticks, quotes
/// and `#` run nothing when the script runs, and reach gcloud exactly as given.
@Suite struct PlanScriptQuotingTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        try ExportSupport.makeWorkspace(sandbox)
        // A gcloud stand-in (GCLOUD=) that records each call's arguments, NUL-separated.
        try sandbox.write(
            "bin/gcloud",
            "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done >> \"$LOG\"\n"
                + "printf -- '---\\0' >> \"$LOG\"\n")
        try FileManager.default.setAttributes(
            [.posixPermissions: 0o755], ofItemAtPath: sandbox.path("bin/gcloud"))
    }

    static let hostileNames = [
        "x\ntouch PWN\n#.json", "x$(touch PWN).json", "x`touch PWN`.json", "it's \"q\" #1.json",
    ]
    static let hostileImages = [
        "img$(touch PWN)", "im`touch PWN`g", "i\ntouch PWN\n#", "i'm \"q\" #",
    ]

    /// Runs the plan script with `arguments`; returns its status, stderr and gcloud's calls.
    func runScript(_ script: String, _ arguments: String...) throws -> (Int32, String, [[String]]) {
        let log = sandbox.path("gcloud.log")
        try? FileManager.default.removeItem(atPath: log)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [script] + arguments
        process.environment = [
            "PATH": "/usr/bin:/bin", "GCLOUD": sandbox.path("bin/gcloud"), "LOG": log,
        ]
        process.currentDirectoryURL = sandbox.folder
        let err = Pipe()
        process.standardError = err
        try process.run()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        let calls = text.components(separatedBy: "---\0").dropLast().map {
            $0.split(separator: "\0", omittingEmptySubsequences: false).dropLast().map(String.init)
        }
        return (process.terminationStatus, stderr, calls)
    }

    /// No file named PWN anywhere under the sandbox.
    func expectNothingRan(sourceLocation: SourceLocation = #_sourceLocation) {
        let all = FileManager.default.enumerator(atPath: sandbox.folder.path)?.allObjects ?? []
        let pwned = all.compactMap { $0 as? String }.filter { $0.hasSuffix("PWN") }
        #expect(pwned.isEmpty, "\(pwned)", sourceLocation: sourceLocation)
    }

    @Test(arguments: zip(hostileNames, hostileImages))
    func hostileNamesRunNothingAndReachGcloudExactly(name: String, images: String) throws {
        let layout = "lay" + name
        #expect(sandbox.run("template", "copy", "layouts/flatirongo.json", layout).status == 0)
        let export = sandbox.run(
            "export", "--layout", layout, "--out", "o/" + name, "--images", images)
        #expect(export.status == 0, "\(export.stderr)")
        let script = StoragePlan.paths(output: sandbox.path("o/" + name)).script
        let object = "treasures/hairy-harry/full-3fa2c9e1.png"
        for _ in 0..<2 {
            let (status, stderr, calls) = try runScript(script, "upload")
            #expect(status == 0, "\(stderr)")
            #expect(
                calls == [
                    [
                        "storage", "cp", "--content-type=image/png",
                        "--cache-control=public, max-age=31536000, immutable",
                        "../\(images)/\(object)", "gs://flatiron-go.appspot.com/\(object)",
                    ]
                ])
            expectNothingRan()
        }
        // The "was interrupted" message names the export without running it.
        let journal = CommitJournal.path(for: sandbox.path("o/" + name))
        try sandbox.write(
            (journal as NSString).replacingOccurrences(of: sandbox.folder.path + "/", with: ""), "")
        for _ in 0..<2 {
            let (status, stderr, calls) = try runScript(script, "upload")
            #expect(status == 1)
            #expect(
                stderr
                    == "\(script): the export to \(name) was interrupted while its files went into"
                    + " place; run it again\n")
            #expect(calls.isEmpty)
            expectNothingRan()
        }
    }
}
