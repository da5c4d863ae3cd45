import Foundation
import Testing

@testable import TroveBase
@testable import TroveCLI
@_spi(Testing) @testable import TroveKit
@_spi(Testing) @testable import TroveStore

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
        let workspace = try Workspace(path: sandbox.workspace)
        let names = try workspace.testDatabase.query("SELECT key, name FROM treasures") {
            ($0.text(0) ?? "", $0.text(1) ?? "")
        }
        for (key, name) in names {
            try workspace.fixture.editTreasure(key, name: name + suffix)
        }
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
        let library = try TemplateLibrary(overrideFolder: nil)
        let layout = try Layout(
            name: "flatirongo", json: #require(library.layout(named: "flatirongo")))
        #expect(throws: Killed.self) {
            try Exporter.run(
                workspace: Workspace(path: sandbox.workspace), layout: layout, options: options)
        }
        #expect(try partSet("out/parts.manifest.json") == old)
        #expect(try names(in: "out").contains(".parts.json.trove-commit"))
        // The next run (its sweep of the folder, here in this process) completes the set
        // the killed one was putting in place, then writes the same set again.
        TemporaryFiles.sweepNow(folder: sandbox.path("out"))
        let completed = try partSet("out/parts.manifest.json")
        #expect(completed != old)
        #expect(completed.values.joined().contains("Hairy Harry II"))
        #expect(sandbox.run(arguments).status == 0)
        let new = try partSet("out/parts.manifest.json")
        #expect(new == completed)
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

    // MARK: - The Storage plan in the same set

    /// The four files of an export with its rules and Storage plan, and their bytes.
    func exportSet() throws -> [String: String] {
        var files: [String: String] = [:]
        for name in ["firebase.json", "rules.json", "firebase.storage.json", "firebase.storage.sh"]
        {
            files[name] = try? ExportSupport.read(sandbox.path("out/" + name))
        }
        return files
    }

    let exportArguments = [
        "export", "--layout", "flatirongo", "--out", "out/firebase.json", "--rules",
        "out/rules.json",
    ]

    /// Changes every treasure's name and the one rendition's object, so the next export
    /// changes the tree, and its plan uploads one object and deletes another.
    func changeTreeAndObjects() throws {
        try renameAllTreasures(" II")
        try Workspace(path: sandbox.workspace).fixture.setRendition(
            "treasure", "hairy-harry", "full", source: "/art/harry.png",
            path: "treasures/hairy-harry/full-00000002.png", width: 1024, height: 768,
            bytes: 1000, hash: "hh")
    }

    @Test(arguments: ["firebase.storage.json", "firebase.storage.sh"])
    func aStoragePlanThatCannotBeWrittenLeavesEveryOutputAsItWas(blocked: String) throws {
        #expect(sandbox.run(exportArguments).status == 0)
        let old = try exportSet()
        #expect(old.values.count == 4)
        try changeTreeAndObjects()
        // The plan's file cannot be replaced: a folder stands in its place.
        try FileManager.default.removeItem(atPath: sandbox.path("out/" + blocked))
        try FileManager.default.createDirectory(
            atPath: sandbox.path("out/" + blocked), withIntermediateDirectories: false)
        let result = sandbox.run(exportArguments)
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "error: cannot write \(sandbox.path("out/" + blocked)): it is a folder; choose a "
                + "path whose folders are folders and that is not one itself (nothing was written)\n"
        )
        var expected = old
        expected[blocked] = nil
        #expect(try exportSet() == expected)
        let names = try FileManager.default.contentsOfDirectory(atPath: sandbox.path("out"))
        #expect(names.sorted() == old.keys.sorted())
        // Nothing was recorded: the plan of the next export compares with the first one.
        let database = try Workspace.testDatabase(at: sandbox.workspace)
        #expect(try database.scalar("SELECT count(*) FROM export_log")?.int64 == 1)
        #expect(
            try PlannedObjectReader.all(database: database, layout: "flatirongo")
                .map(\.path) == ["treasures/hairy-harry/full-3fa2c9e1.png"])
    }

    @Test func aStoragePlanInAFolderThatCannotBeWrittenFailsBeforeAnyWork() throws {
        try FileManager.default.createDirectory(
            atPath: sandbox.path("out"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            atPath: sandbox.path("out/firebase.storage.json"), withIntermediateDirectories: false)
        let result = sandbox.run(exportArguments)
        #expect(result.status == 1)
        #expect(result.stderr.contains("firebase.storage.json: it is a folder"))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: sandbox.path("out"))
                == ["firebase.storage.json"])
        #expect(sandbox.run("status", "--format", "json").stdout.contains("\"last_export\": null"))
    }

    @Test func plansRecordedRowByRowCarryOverToTheLayoutsState() throws {
        // The workspace as the schema before the blocks left it, after an export recorded
        // its plan a row per object: one object still referenced, one gone since, and a
        // plan of a file no recorded export wrote. SQL: no command writes an old schema.
        #expect(sandbox.run(exportArguments).status == 0)
        let output = sandbox.path("out/firebase.json")
        let database = try Workspace.testDatabase(at: sandbox.workspace)
        try database.execute(
            """
            DROP TABLE export_objects;
            DROP INDEX renditions_path;
            DELETE FROM schema_migrations WHERE name IN (
                '009-storage-plan-blocks-and-rendition-paths', '020-export-objects');
            PRAGMA user_version = 8;
            CREATE TABLE storage_plan (
                output TEXT NOT NULL, path TEXT NOT NULL, token TEXT,
                PRIMARY KEY (output, path)
            ) WITHOUT ROWID;
            """)
        try database.execute(
            "ALTER TABLE export_log DROP COLUMN objects")
        _ = try database.execute(
            """
            INSERT INTO storage_plan (output, path, token) VALUES
                (?1, 'treasures/hairy-harry/full-3fa2c9e1.png', NULL),
                (?1, 'treasures/old/full-00000009.png', NULL),
                ('elsewhere.json', 'treasures/x/full-1.png', 'tok')
            """, [.text(output)])
        let result = sandbox.run(exportArguments)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "storage: 1 objects referenced, 0 to upload, 1 to delete after the database update")
        )
        let manifest = try ExportSupport.read(sandbox.path("out/firebase.storage.json"))
        #expect(manifest.contains("\"delete\": [\"treasures/old/full-00000009.png\"]"))
        // Only what changes is listed; the referenced object is counted.
        #expect(manifest.contains("\"listsEveryObject\": false"))
        #expect(!manifest.contains("full-3fa2c9e1.png\", \"state\""))
        #expect(
            try PlannedObjectReader.all(database: database, layout: "flatirongo").map(\.path)
                == ["treasures/hairy-harry/full-3fa2c9e1.png"])
        for table in ["storage_plan", "storage_plan_blocks"] {
            #expect(
                try database.scalar(
                    "SELECT count(*) FROM sqlite_master WHERE name = ?", [.text(table)])
                    == .integer(0))
        }
    }

    @Test func anObjectTwoRenditionsShareIsPlannedOnce() throws {
        let fixture = try Workspace(path: sandbox.workspace).fixture
        try fixture.addTreasure(
            "twin", name: "Twin", lat: 40.7, lon: -74.0, image: "/art/harry.png")
        try fixture.setRendition(
            "treasure", "twin", "full", source: "/art/harry.png",
            path: "treasures/hairy-harry/full-3fa2c9e1.png", width: 1024, height: 768,
            bytes: 1000, hash: "hh")
        #expect(sandbox.run("geohash").status == 0)
        let result = sandbox.run(exportArguments)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("storage: 1 objects referenced, 1 to upload"))
        let script = try ExportSupport.read(sandbox.path("out/firebase.storage.sh"))
        #expect(script.components(separatedBy: "\n    o new ").count == 2)
    }

    /// Runs the Storage plan's script with a `gcloud` that does nothing.
    func runScript(_ step: String) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [sandbox.path("out/firebase.storage.sh"), step]
        process.environment = ["PATH": "/usr/bin:/bin", "GCLOUD": "true"]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let text = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: text, as: UTF8.self))
    }

    /// A kill before each of the set's renames in turn (the plan's two files, then the
    /// export itself, which goes last; the rules are unchanged and stay as they are).
    @Test(arguments: 1...3)
    func aRunKilledBetweenItsRenamesLeavesAJournalTheNextRunCompletes(killedAt: Int) throws {
        #expect(sandbox.run(exportArguments).status == 0)
        let old = try exportSet()
        try changeTreeAndObjects()
        struct Killed: Error {}
        let renames = LockedValue(0)
        var options = ExportOptions(
            output: sandbox.path("out/firebase.json"), rules: sandbox.path("out/rules.json"))
        options.images = sandbox.path("build/images")
        options.beforeRename = { _ in
            if renames.withLock({ count in
                count += 1
                return count
            }) == killedAt {
                throw Killed()
            }
        }
        let library = try TemplateLibrary(overrideFolder: nil)
        let layout = try Layout(
            name: "flatirongo", json: #require(library.layout(named: "flatirongo")))
        #expect(throws: Killed.self) {
            try Exporter.run(
                workspace: Workspace(path: sandbox.workspace), layout: layout, options: options)
        }
        let now = try exportSet()
        #expect(now["firebase.json"] == old["firebase.json"], "the export goes in last")
        if killedAt == 1 { #expect(now == old) }
        // Whichever script is in place refuses to publish a set that is not whole.
        #expect(try names(in: "out").contains(".firebase.json.trove-commit"))
        for step in ["upload", "delete"] {
            let script = try runScript(step)
            #expect(script.status == 1)
            #expect(script.stderr.contains("the export to firebase.json was interrupted"))
        }
        // The next run's sweep of the folder (here in this process) completes the set; the
        // export run again then finds every file as it would write it.
        TemporaryFiles.sweepNow(folder: sandbox.path("out"))
        let completed = try exportSet()
        #expect(completed.values.allSatisfy { !$0.isEmpty })
        #expect(completed["firebase.json"]?.contains("Hairy Harry II") == true)
        #expect(completed["firebase.storage.json"]?.contains("full-00000002.png") == true)
        let again = sandbox.run(exportArguments)
        #expect(again.status == 0, "\(again.stderr)")
        for name in old.keys {
            #expect(again.stderr.contains("\(sandbox.path("out/" + name)) is unchanged"), "\(name)")
        }
        #expect(try exportSet() == completed)
        #expect(try runScript("upload").status == 0)
        let left = try FileManager.default.contentsOfDirectory(atPath: sandbox.path("out"))
        #expect(left.sorted() == old.keys.sorted())
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
