import Foundation
import Testing

@testable import TroveCLI

/// The manual's ENVIRONMENT section against what the sources read.
@Suite struct ManPageEnvironmentTests {
    /// Every `environment["NAME"]` in Sources, and every `${NAME:-…}` of the scripts trove
    /// writes.
    static func variablesRead() throws -> Set<String> {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources")
        var names: Set<String> = []
        let files = FileManager.default.enumerator(atPath: sources.path)?.allObjects as? [String]
        for file in files ?? [] where file.hasSuffix(".swift") {
            let text = try String(
                contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for pattern in [#"environment\["([A-Z_]+)"\]"#, #"\$\{([A-Z_]+):-"#] {
                let expression = try NSRegularExpression(pattern: pattern)
                for match in expression.matches(
                    in: text, range: NSRange(text.startIndex..., in: text))
                {
                    names.insert((text as NSString).substring(with: match.range(at: 1)))
                }
            }
        }
        return names
    }

    @Test func theManPageNamesEveryEnvironmentVariableTheToolReads() throws {
        let names = try Self.variablesRead()
        #expect(
            names.isSuperset(of: ["TROVE_BUSY_TIMEOUT", "GCLOUD", "IMAGES", "TROVE_WORKSPACE"]))
        let sandbox = try Sandbox()
        let page = sandbox.run("man").stdout
        let section =
            try #require(page.components(separatedBy: ".SH ENVIRONMENT").last)
            .components(separatedBy: ".SH ").first ?? ""
        let documented = Set(
            section.split(separator: "\n").filter { $0.hasPrefix(".B ") }.flatMap {
                $0.dropFirst(3).split(separator: ",").map {
                    $0.trimmingCharacters(in: .whitespaces)
                }
            })
        #expect(
            names.subtracting(documented).isEmpty,
            "undocumented: \(names.subtracting(documented).sorted())")
    }
}

/// docs/commands.md is the reference the commands' declarations generate.
@Suite struct CommandReferenceTests {
    @Test func docsCommandsIsWhatTheDeclarationsGenerate() throws {
        let page = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/commands.md")
        let committed = try String(contentsOf: page, encoding: .utf8)
        let generated = try Sandbox().run("man", "--markdown")
        #expect(generated.status == 0)
        #expect(committed == generated.stdout, "docs/commands.md is stale: run 'make docs'")
        // Every command and every flag of one is there, with the environment.
        for text in [
            "## import treasures", "`--ignore-numeric-ids`", "## review serve",
            "`TROVE_BUSY_TIMEOUT`", "## Exit status",
        ] {
            #expect(generated.stdout.contains(text), "\(text)")
        }
    }
}
