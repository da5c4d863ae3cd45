import Foundation
import Testing

@testable import TroveCLI
@testable import TroveKit

@Suite struct TemplateTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    @Test func listsTheStarterFiles() {
        let result = sandbox.run("template", "list")
        #expect(result.status == 0)
        let names = result.stdout.split(separator: "\n").map(String.init)
        #expect(names.contains("treasures.csv"))
        #expect(names.contains("treasures.geojson"))
        #expect(names == names.sorted())
    }

    @Test func showPrintsATemplateByName() throws {
        let result = sandbox.run("template", "show", "treasures.csv")
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("key,name,lat,lon,image,description"))
    }

    @Test func theStarterFilesImportCleanly() throws {
        sandbox.run("init")
        #expect(sandbox.run("template", "copy", "treasures.csv").status == 0)
        #expect(sandbox.run("template", "copy", "treasures.geojson").status == 0)
        // The artwork is not copied along; nothing else may be wrong with the starters.
        for file in ["treasures.csv", "treasures.geojson"] {
            let result = sandbox.run("validate", file)
            let lines = result.stdout.split(separator: "\n")
            #expect(lines.count == 1, "\(result.stdout)")
            #expect(lines.allSatisfy { $0.contains("error[T120]") }, "\(result.stdout)")
            let imported = sandbox.run("import", "treasures", file)
            #expect(imported.status == 0, "\(imported.stderr)")
        }
    }

    @Test func copyRefusesToOverwriteWithoutForce() throws {
        try sandbox.write("treasures.csv", "mine")
        let refused = sandbox.run("template", "copy", "treasures.csv")
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("pass --force"))
        #expect(
            try String(contentsOfFile: sandbox.path("treasures.csv"), encoding: .utf8) == "mine")
        #expect(sandbox.run("template", "copy", "treasures.csv", "--force").status == 0)
    }

    @Test func unknownTemplatesGetASuggestion() {
        let result = sandbox.run("template", "show", "treasure.csv")
        #expect(result.status == 2)
        #expect(result.stderr.contains("did you mean 'treasures.csv'?"))
    }

    @Test func theBuiltInTemplatesAreTheTemplatesFolderByteForByte() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Templates")
        let onDisk = try FileManager.default.subpathsOfDirectory(atPath: folder.path).filter {
            var isDirectory: ObjCBool = false
            FileManager.default.fileExists(
                atPath: folder.appendingPathComponent($0).path, isDirectory: &isDirectory)
            return !isDirectory.boolValue && !($0 as NSString).lastPathComponent.hasPrefix(".")
        }
        let library = try TemplateLibrary(overrideFolder: nil)
        #expect(library.names() == onDisk.sorted())
        for name in onDisk {
            let bytes = try Data(contentsOf: folder.appendingPathComponent(name))
            #expect(library.contents(of: name) == bytes, "\(name)")
        }
    }

    @Test func troveTemplatesReplacesBuiltInFilesOfTheSameName() throws {
        let folder = sandbox.folder.appendingPathComponent("custom")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("layouts"), withIntermediateDirectories: true)
        try Data("key,name,lat,lon\n".utf8).write(
            to: folder.appendingPathComponent("treasures.csv"))
        try Data(#"{"records": "treasures", "paths": {"x/{key}": "{name}"}}"#.utf8).write(
            to: folder.appendingPathComponent("layouts/mine.json"))
        let environment = ["TROVE_TEMPLATES": folder.path]
        let shown = sandbox.run("template", "show", "treasures.csv", environment: environment)
        #expect(shown.stdout == "key,name,lat,lon\n")
        let listed = sandbox.run("template", "list", environment: environment).stdout
        #expect(listed.contains("layouts/mine.json\n"))
        #expect(listed.contains("layouts/flatirongo.json\n"))
        sandbox.run("init")
        try sandbox.write("t.csv", "key,name,lat,lon\na,A,1,2\n")
        sandbox.run("import", "treasures", "t.csv")
        sandbox.run("geohash")
        let exported = sandbox.run("export", "--layout", "mine", environment: environment)
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(exported.stdout.contains(#""a": "A""#))
    }

    @Test func aMissingTemplatesFolderIsAnInputError() {
        let result = sandbox.run(
            "template", "list", environment: ["TROVE_TEMPLATES": sandbox.path("nowhere")])
        #expect(result.status == 3)
        #expect(result.stderr.contains("TROVE_TEMPLATES does not name a folder"))
    }
}
