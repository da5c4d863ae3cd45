import Foundation
import Testing

/// `examples/Makefile` as a designer's pipeline: a second `make` runs nothing, and a
/// touched input re-runs only what depends on it.
@Suite struct ExamplesMakeTests {
    let sandbox: Sandbox
    let examples: String

    init() throws {
        try BuiltBinary.require()
        sandbox = try Sandbox()
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("examples")
        examples = sandbox.path("examples")
        try FileManager.default.copyItem(atPath: source.path, toPath: examples)
        try? FileManager.default.removeItem(atPath: sandbox.path("examples/build"))
    }

    /// Runs make in the copy; stdout and stderr together.
    func make(_ arguments: String...) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["make", "-C", examples, "TROVE=\(BuiltBinary.path)"] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["TROVE_WORKSPACE"] = nil
        environment["MAKEFLAGS"] = nil
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()  // before waiting
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// The trove commands a dry run (`make -n`) would start.
    func pendingCommands() throws -> [String] {
        try make("-n").output.split(separator: "\n").map(String.init).filter {
            $0.hasPrefix(BuiltBinary.path)
        }.map { String($0.dropFirst(BuiltBinary.path.count + 1)) }
    }

    @Test func aSecondMakeRunsNothingAndATouchedInputOnlyWhatDependsOnIt() throws {
        let first = try make()
        #expect(first.status == 0, "\(first.output)")
        #expect(first.output.contains("import treasures treasures.csv"))

        #expect(try make("-q").status == 0)
        let second = try make()
        #expect(second.status == 0)
        #expect(!second.output.contains(BuiltBinary.path), "\(second.output)")

        // Now, not later: an input dated in the future stays newer than what the next make
        // writes, and make -q rightly finds it stale again when that make was quick.
        let now = Date()
        try FileManager.default.setAttributes(
            [.modificationDate: now], ofItemAtPath: examples + "/posts/export.json")
        #expect(try make("-q").status != 0)
        let pending = try pendingCommands()
        #expect(pending.contains { $0.hasPrefix("import posts ") })
        #expect(pending.contains { $0.hasPrefix("export --layout trashmapper ") })
        #expect(!pending.contains { $0.hasPrefix("import treasures ") })
        #expect(!pending.contains { $0.hasPrefix("export --layout flatirongo ") })
        #expect(!pending.contains { $0.hasPrefix("images --out") })
        #expect(try make().status == 0)
        #expect(try make("-q").status == 0)
    }

    @Test func aFailedValidateShowsItsFindings() throws {
        try FileManager.default.removeItem(atPath: examples + "/artwork/battery-bella.png")
        for _ in 0..<2 {
            let failed = try make()
            #expect(failed.status != 0)
            let findings = failed.output.split(separator: "\n").filter {
                $0.contains("error[") && $0.contains("battery-bella.png")
            }
            #expect(findings.count == 1, "\(failed.output)")
            #expect(failed.output.contains("1 error"))
            #expect(!FileManager.default.fileExists(atPath: examples + "/build/validate.txt"))
            #expect(!FileManager.default.fileExists(atPath: examples + "/build/validate.txt.tmp"))
        }
    }
}
