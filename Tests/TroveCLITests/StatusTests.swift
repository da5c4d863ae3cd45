import Foundation
import Testing

@testable import TroveCLI
@_spi(Testing) @testable import TroveKit
@_spi(Testing) @testable import TroveStore

@Suite struct StatusTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        try ExportSupport.makeWorkspace(sandbox)
    }

    /// `command` split into words as a POSIX shell splits it (single quotes only).
    private func shellWords(_ command: String) -> [String] {
        var words: [String] = []
        var word = ""
        var quoted = false
        var started = false
        for character in command {
            if character == "'" {
                quoted.toggle()
                started = true
            } else if character == " " && !quoted {
                if started { words.append(word) }
                word = ""
                started = false
            } else {
                word.append(character)
                started = true
            }
        }
        if started { words.append(word) }
        return words
    }

    @Test func theNextExportAfterAnUpToDateWorkspaceRunsAsPrinted() throws {
        let decided = sandbox.run("review", "reject", "p2", "--as", "ann", "--reason", "spam")
        #expect(decided.status == 0, "\(decided.stderr)")
        let layout = try #require(TemplateLibrary(overrideFolder: nil).layout(named: "flatirongo"))
        try sandbox.write("my layouts/flat.json", layout)
        let first = sandbox.run(
            "export", "--layout", "my layouts/flat.json", "--out", "my out.json")
        #expect(first.status == 0, "\(first.stderr)")
        for _ in 0..<2 {
            let status = sandbox.run("status")
            let prefix = "up to date; after changes: "
            let line = try #require(
                status.stdout.split(separator: "\n").first { $0.hasPrefix(prefix) })
            let command = String(line.dropFirst(prefix.count))
            #expect(
                command
                    == "trove export --layout 'my layouts/flat.json' --update --out 'my out.json'")
            let words = shellWords(command)
            #expect(words.first == "trove")
            let update = sandbox.run(Array(words.dropFirst()))
            #expect(update.status == 0, "\(update.stderr)")
            #expect(update.stderr.contains("0 new or changed, 0 removed"))
        }
    }

    @Test func photosCountWhatAPublishPutsInTheBucket() throws {
        let fixture = try Workspace(path: sandbox.workspace).fixture
        for (id, description, status) in [
            ("q1", "a", "pending"), ("q2", "b", "pending"), ("q3", "c", "rejected"),
            ("q4", "d", "flagged"),
        ] {
            try fixture.addPost(
                id, user: "cy", lat: 40.7, lon: -74.0, description: description,
                date: "2024-01-24T10:00:00Z", photo: "/photos/\(id).jpg", status: status)
        }
        let text = sandbox.run("status")
        #expect(text.status == 0)
        #expect(
            text.stdout.contains(
                "\nphotos:    1 to publish (of approved posts; 5 posts have a photo)\n"))
        let json = sandbox.run("status", "--format", "json")
        let object = try #require(
            JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["photos"] as? [String: Int] == ["to_publish": 1, "total": 5])
    }
}
