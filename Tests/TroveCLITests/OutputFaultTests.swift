import Foundation
import Testing
import TroveSQLite

@testable import TroveCLI
@testable import TroveKit

/// Output files under faults: a run killed between renames, temporaries of killed runs,
/// an output that cannot be written.
@Suite struct OutputFaultTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        try ExportSupport.makeWorkspace(sandbox)
    }

    /// The files in `folder`, without the Storage plan an export writes beside its output
    /// (`OUT.storage.json`, `OUT.storage.sh`), which these tests are not about.
    func names(in folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: sandbox.path(folder))
            .filter { !$0.contains(".storage.") }.sorted()
    }

    /// The manifest's parts with their bytes; every listed part must exist.
    func partSet(_ manifest: String) throws -> [String: String] {
        let json = try ExportSupport.parse(try ExportSupport.read(sandbox.path(manifest)))
        guard case .array(let parts) = json.objectValue?["parts"] else { return [:] }
        var set: [String: String] = [:]
        for case .string(let name) in parts {
            set[name] = try ExportSupport.read(sandbox.path("out/" + name))
        }
        return set
    }

    func renameAllTreasures(_ suffix: String) throws {
        try Database(path: sandbox.workspace).execute(
            "UPDATE treasures SET name = name || '\(suffix)'")
    }

    // MARK: - --max-bytes as one set

    @Test func aRunKilledAfterItsFirstPartKeepsTheOldSetWhole() throws {
        let arguments = [
            "export", "--layout", "flatirongo", "--max-bytes", "300", "-o", "out/parts.json",
        ]
        #expect(sandbox.run(arguments).status == 0)
        let old = try partSet("out/parts.manifest.json")
        #expect(old.count > 1)
        try renameAllTreasures(" II")
        // The second run dies right after its first rename, as a kill there would.
        struct Killed: Error {}
        let renames = LockedValue(0)
        var options = ExportOptions(output: sandbox.path("out/parts.json"), maxBytes: 300)
        options.beforeRename = { _ in
            if renames.withLock({ count in
                count += 1
                return count
            }) == 2 {
                throw Killed()
            }
        }
        let library = try TemplateLibrary(environment: [:])
        let layout = try Layout(
            name: "flatirongo", json: #require(library.layout(named: "flatirongo")))
        #expect(throws: Killed.self) {
            try Exporter.run(
                workspace: Workspace(path: sandbox.workspace), layout: layout, options: options)
        }
        #expect(try partSet("out/parts.manifest.json") == old)
        // The next run puts the new set in place and removes the old parts.
        #expect(sandbox.run(arguments).status == 0)
        let new = try partSet("out/parts.manifest.json")
        #expect(new != old)
        #expect(new.values.joined().contains("Hairy Harry II"))
        #expect(try names(in: "out") == (new.keys + ["parts.manifest.json"]).sorted())
    }

    @Test func unchangedPartsKeepTheirNamesAndFiles() throws {
        let arguments = [
            "export", "--layout", "flatirongo", "--max-bytes", "300", "-o", "out/parts.json",
        ]
        #expect(sandbox.run(arguments).status == 0)
        let first = try names(in: "out")
        #expect(
            first.allSatisfy {
                $0.range(
                    of: #"^parts\.(part-\d{3}-[0-9a-f]{8}|manifest)\.json$"#,
                    options: .regularExpression) != nil
            })
        let old = Date(timeIntervalSince1970: 1_000_000)
        for name in first {
            try FileManager.default.setAttributes(
                [.modificationDate: old], ofItemAtPath: sandbox.path("out/" + name))
        }
        let again = sandbox.run(arguments)
        #expect(again.status == 0)
        #expect(try names(in: "out") == first)
        for name in first {
            let attributes = try FileManager.default.attributesOfItem(
                atPath: sandbox.path("out/" + name))
            #expect(attributes[.modificationDate] as? Date == old, "\(name) was rewritten")
        }
    }

    @Test func partsOfTheEarlierNamingAreRemovedWhenTheNewSetIsInPlace() throws {
        try sandbox.write("out/parts.part-001.json", "{}\n")
        try sandbox.write("out/parts.part-007.json", "{}\n")
        try sandbox.write("out/parts.part-notes.json", "mine\n")
        let result = sandbox.run(
            "export", "--layout", "flatirongo", "--max-bytes", "300", "-o", "out/parts.json")
        #expect(result.status == 0)
        let left = try names(in: "out")
        #expect(!left.contains("parts.part-001.json"))
        #expect(!left.contains("parts.part-007.json"))
        #expect(left.contains("parts.part-notes.json"))
    }

    // MARK: - Temporary files

    /// The id of a process that has ended.
    func endedProcessID() throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        return process.processIdentifier
    }

    @Test func temporariesOfKilledRunsAreRemovedByTheNextRun() throws {
        let dead = try endedProcessID()
        let hourAgo = Date().addingTimeInterval(-3600)
        let stale = [
            ".firebase.json.trove-\(dead)-a1B2c3", ".rules.json.trove-Xy12Zz",
            ".dat.nosyncab12.x3",
        ]
        let kept = [".firebase.json.trove-\(getpid())-zzzzzz", ".rules.json.trove-Fresh1"]
        for name in stale + kept { try sandbox.write("out/" + name, "partial") }
        for name in [".rules.json.trove-Xy12Zz", ".dat.nosyncab12.x3"] {
            try FileManager.default.setAttributes(
                [.modificationDate: hourAgo], ofItemAtPath: sandbox.path("out/" + name))
        }
        let result = sandbox.run(
            "export", "--layout", "flatirongo", "-o", "out/firebase.json", "--rules",
            "out/rules.json")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try names(in: "out") == (kept + ["firebase.json", "rules.json"]).sorted())
    }

    @Test func atomicWritesLeaveNothingButTheFile() throws {
        try sandbox.write("images/.dat.nosyncdead.1", "partial")
        try FileManager.default.setAttributes(
            [.modificationDate: Date().addingTimeInterval(-3600)],
            ofItemAtPath: sandbox.path("images/.dat.nosyncdead.1"))
        #expect(try AtomicFile.write(Data("bytes".utf8), to: sandbox.path("images/a.png")))
        #expect(try !AtomicFile.write(Data("bytes".utf8), to: sandbox.path("images/a.png")))
        #expect(try names(in: "images") == ["a.png"])
        #expect(try ExportSupport.read(sandbox.path("images/a.png")) == "bytes")
    }

    @Test func theSpillFileForStandardOutputHasNoName() throws {
        try FileManager.default.createDirectory(
            atPath: sandbox.path("tmp"), withIntermediateDirectories: true)
        let spill = try OutputFile(spillIn: sandbox.path("tmp"))
        try spill.write("{\n  \"a\": 1\n}\n")
        #expect(try names(in: "tmp").isEmpty)
        var drained: [UInt8] = []
        try spill.drain { drained += $0 }
        #expect(String(decoding: drained, as: UTF8.self) == "{\n  \"a\": 1\n}\n")
        #expect(try names(in: "tmp").isEmpty)
    }

    // MARK: - One failing output

    @Test(arguments: ["rules", "out"])
    func anUnwritableOutputLeavesTheOthersUnwrittenAndSaysWhy(which: String) throws {
        let folder = try ReadOnlyFolder(sandbox, files: [])
        let blocked = folder.file(which == "rules" ? "rules.json" : "firebase.json")
        let out = which == "rules" ? sandbox.path("out/firebase.json") : blocked
        let rules = which == "rules" ? blocked : sandbox.path("out/rules.json")
        let result = sandbox.run(
            "export", "--layout", "flatirongo", "--out", out, "--rules", rules)
        #expect(result.status == 1)
        let reason = String(cString: strerror(getuid() == 0 ? EROFS : EACCES))
        #expect(
            result.stderr
                == "error: cannot write \(blocked): \(reason); make its folder writable or "
                + "choose another path (nothing was written)\n")
        #expect(!FileManager.default.fileExists(atPath: sandbox.path("out/firebase.json")))
        #expect(!FileManager.default.fileExists(atPath: sandbox.path("out/rules.json")))
        let left = (try? names(in: "out")) ?? []
        #expect(left.isEmpty)
        // Nothing was recorded either: the next --update is relative to no export.
        #expect(sandbox.run("status", "--format", "json").stdout.contains("\"last_export\": null"))
    }

    @Test func anOutputThatIsAFolderIsRefusedBeforeAnyFileMoves() throws {
        try FileManager.default.createDirectory(
            atPath: sandbox.path("out/rules.json"), withIntermediateDirectories: true)
        let result = sandbox.run(
            "export", "--layout", "flatirongo", "--out", "out/firebase.json", "--rules",
            "out/rules.json")
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "error: cannot write \(sandbox.path("out/rules.json")): it is a folder; choose a "
                + "path whose folders are folders and that is not one itself (nothing was written)\n"
        )
        #expect(try names(in: "out") == ["rules.json"])
    }
}
