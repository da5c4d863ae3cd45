import Foundation
import Testing

@testable import TroveCLI

/// A binary copied alone into an empty folder, away from the source tree and with
/// `TROVE_TEMPLATES` unset, runs the whole pipeline on its built-in templates.
@Suite struct StandaloneBinaryTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    @Test func aCopiedBinaryRunsImportImagesExportAndTheReviewSheet() throws {
        try BuiltBinary.require()
        let binary = sandbox.folder.appendingPathComponent("bin/trove")
        try FileManager.default.createDirectory(
            at: binary.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: URL(fileURLWithPath: BuiltBinary.path), to: binary)
        let work = sandbox.folder.appendingPathComponent("work").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        try sandbox.write("work/art/harry.jpg", PostPhotos.jpeg(width: 640, height: 480))
        try sandbox.write(
            "work/treasures.csv",
            "key,name,lat,lon,image\nharry,Hairy Harry,40.7128,-74.006,art/harry.jpg\n")
        try sandbox.write(
            "work/posts.csv",
            "id,user,lat,lon,description,date,photo\np1,ann,40.7,-74.0,Cans,2024-01-24,\n")
        // Only PATH and HOME: no TROVE_TEMPLATES, nothing that leads back to the sources.
        let environment = [
            "PATH": "/usr/bin:/bin", "HOME": sandbox.folder.path,
            "TROVE_WORKSPACE": work + "/trove.sqlite",
        ]
        func run(_ arguments: String...) throws -> RunResult {
            let process = Process()
            process.executableURL = binary
            process.arguments = arguments
            process.environment = environment
            process.currentDirectoryURL = URL(fileURLWithPath: work)
            let out = Pipe()
            let err = Pipe()
            process.standardOutput = out
            process.standardError = err
            process.standardInput = FileHandle.nullDevice
            try process.run()
            let stdout = out.fileHandleForReading.readDataToEndOfFile()
            let stderr = err.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let result = RunResult(
                status: process.terminationStatus,
                stdout: String(decoding: stdout, as: UTF8.self),
                stderr: String(decoding: stderr, as: UTF8.self))
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            return result
        }
        _ = try run("init")
        _ = try run("config", "set", "storage.bucket", "my-game.firebasestorage.app")
        _ = try run("import", "treasures", "treasures.csv")
        _ = try run("import", "posts", "posts.csv")
        _ = try run("geohash")
        _ = try run("images", "--treasures")
        _ = try run("export", "--layout", "flatirongo", "--out", "build/firebase.json")
        let tree = try String(contentsOfFile: work + "/build/firebase.json", encoding: .utf8)
        #expect(tree.contains("/v0/b/my-game.firebasestorage.app/o/treasures%2Fharry%2Ffull-"))
        _ = try run("review", "sheet", "--out", "review.html", "--for", "ann")
        let page = try String(contentsOfFile: work + "/review.html", encoding: .utf8)
        #expect(page.contains("Cans"))
        let listed = try run("template", "list")
        #expect(listed.stdout.contains("layouts/trashmapper.json"))
    }
}
