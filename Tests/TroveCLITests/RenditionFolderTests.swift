import Foundation
import Testing
import TroveImaging

@testable import TroveCLI

/// What the images folder and the URLs in it hold once treasures come and go.
@Suite struct RenditionFolderTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        #expect(sandbox.run("init").status == 0)
        #expect(
            sandbox.run("config", "set", "storage.bucket", "flatiron-go.appspot.com").status == 0)
        let png = try PNG.encode(ImagesTests.photo(width: 64, height: 48))
        var csv = "key,name,lat,lon,image\n"
        for (index, key) in ["fairmount-bagel", "gare-windsor", "hairy-harry"].enumerated() {
            try sandbox.write("art/\(key).png", Data(png + [UInt8(index)]))
            csv += "\(key),Name \(index),40.7\(index),-74,art/\(key).png\n"
        }
        try sandbox.write("t.csv", csv)
        let imported = sandbox.run("import", "treasures", "t.csv")
        #expect(imported.status == 0, "\(imported.stderr)")
    }

    private func files(under folder: String) -> [String] {
        let root = sandbox.path(folder)
        let found = FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? []
        return found.filter {
            var isDirectory: ObjCBool = false
            FileManager.default.fileExists(
                atPath: (root as NSString).appendingPathComponent($0), isDirectory: &isDirectory)
            return !isDirectory.boolValue
        }.sorted()
    }

    @Test func renditionsOfRemovedTreasuresLeaveTheOutputFolder() throws {
        #expect(sandbox.run("images", "--out", "build/images").status == 0)
        let all = files(under: "build/images")
        #expect(all.count == 9, "\(all)")
        // Someone's own file beside the renditions is not trove's to remove.
        try sandbox.write("build/images/treasures/gare-windsor/NOTES.txt", "keep")
        let removed = sandbox.run("treasures", "rm", "fairmount-bagel", "gare-windsor")
        #expect(removed.status == 0, "\(removed.stderr)")
        let again = sandbox.run("images", "--out", "build/images")
        #expect(again.status == 0, "\(again.stderr)")
        #expect(
            again.stderr.contains("removed 6 renditions of treasures or posts no longer published"))
        let left = files(under: "build/images")
        let kept = all.filter { $0.hasPrefix("treasures/hairy-harry/") }
        #expect(kept.count == 3)
        #expect(left == ["treasures/gare-windsor/NOTES.txt"] + kept)
        #expect(
            !FileManager.default.fileExists(
                atPath: sandbox.path("build/images/treasures/fairmount-bagel")))
        // Run twice: nothing more to remove, and the folder stays as it is.
        let third = sandbox.run("images", "--out", "build/images", "--format", "json")
        #expect(third.stdout.contains("\"removed\": 0"))
        #expect(!third.stderr.contains("removed"))
        #expect(files(under: "build/images") == left)
    }

    /// Download tokens belong to the workspace: a listing imported into a new workspace
    /// exports the same tree but for the tokens, and the same bytes without tokens.
    @Test(arguments: [true, false])
    func aListingImportedElsewhereDiffersOnlyInItsDownloadTokens(tokens: Bool) throws {
        if !tokens { #expect(sandbox.run("config", "set", "storage.tokens", "off").status == 0) }
        for step in [
            ["geohash"], ["images"], ["export", "--layout", "flatirongo", "-o", "a.json"],
        ] {
            #expect(sandbox.run(step).status == 0)
        }
        let listing = sandbox.run("treasures", "list", "--format", "csv")
        let copy = try Sandbox()
        #expect(copy.run("init").status == 0)
        #expect(copy.run("config", "set", "storage.bucket", "flatiron-go.appspot.com").status == 0)
        if !tokens { #expect(copy.run("config", "set", "storage.tokens", "off").status == 0) }
        try copy.write("listing.csv", listing.stdout)
        for step in [
            ["import", "treasures", "listing.csv"], ["geohash"], ["images"],
            ["export", "--layout", "flatirongo", "-o", "b.json"],
        ] {
            let result = copy.run(step)
            #expect(result.status == 0, "\(step): \(result.stderr)")
        }
        let original = try ExportSupport.read(sandbox.path("a.json"))
        let copied = try ExportSupport.read(copy.path("b.json"))
        func withoutTokens(_ tree: String) -> String {
            tree.replacingOccurrences(
                of: "&token=[0-9a-f-]{36}", with: "", options: .regularExpression)
        }
        #expect(original.contains("&token=") == tokens)
        #expect(withoutTokens(copied) == withoutTokens(original))
        #expect((copied == original) == !tokens)
    }
}
