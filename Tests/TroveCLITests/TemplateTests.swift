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

    @Test func anInstalledBinaryFindsTheSharedTemplates() throws {
        let prefix = sandbox.folder.appendingPathComponent("prefix")
        let templates = prefix.appendingPathComponent("share/trove/Templates")
        try FileManager.default.createDirectory(
            at: templates.appendingPathComponent("layouts"), withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: templates.appendingPathComponent("layouts/mine.json"))
        let library = try TemplateLibrary(
            environment: [:], executablePath: prefix.appendingPathComponent("bin/trove").path)
        #expect(library.root.standardizedFileURL.path == templates.standardizedFileURL.path)
        #expect(library.layout(named: "mine") != nil)
        #expect(library.url(for: "mine")?.lastPathComponent == "mine.json")
    }
}
