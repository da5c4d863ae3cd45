import Foundation
import Testing
import TroveBase
import TroveImaging
import TroveStore

/// `--force` replaces only files trove did not write and does not read: a file the
/// workspace records as a source (of treasures, of their images, of posts and their photos)
/// or a rendition it made is refused as an output with exit 2, whatever the flags, before
/// anything is written.
@Suite struct RecordedInputsTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        #expect(sandbox.run("init").status == 0)
        try sandbox.write(
            "artwork/hairy-harry.png",
            Data(try PNG.encode(ImagesTests.photo(width: 300, height: 300, channels: 4))))
        try sandbox.write(
            "treasures.csv",
            "name,lat,lon,image\nHairy Harry,40.7,-74.0,artwork/hairy-harry.png\nBad,95,2,\n")
        #expect(
            sandbox.run("import", "treasures", "treasures.csv", "--skip-invalid").status == 1)
        try sandbox.write("photos/p1.jpg", try PostPhotos.jpeg())
        try sandbox.write(
            "posts.json",
            "{\"Locations\": {\"p1\": {\"lat\": 40.7, \"lon\": -74.0, \"date\": \"2024-01-01\","
                + " \"photo\": \"p1.jpg\"}}}\n")
        #expect(sandbox.run("import", "posts", "posts.json", "--photos", "photos").status == 0)
        #expect(sandbox.run("review", "approve", "p1").status == 0)
        #expect(sandbox.run("geohash").status == 0)
        #expect(sandbox.run("images").status == 0)
        #expect(sandbox.run("config", "set", "storage.bucket", "b.appspot.com").status == 0)
        try sandbox.write("other.csv", "name,lat,lon\nX,1,2\nBad,95,2\n")
    }

    private func bytes(_ name: String) -> Data? {
        FileManager.default.contents(atPath: sandbox.path(name))
    }

    /// `arguments` with and without `--force`: exit 2 naming `what`, `name` unchanged.
    private func expectRefused(
        _ arguments: [String], _ name: String, _ what: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let before = bytes(name)
        let workspace = bytes("trove.sqlite")
        for force in [true, false] {
            let result = sandbox.run(arguments + (force ? ["--force"] : []))
            #expect(result.status == 2, "\(result.stderr)", sourceLocation: sourceLocation)
            #expect(
                result.stderr.contains(what), "\(result.stderr)", sourceLocation: sourceLocation)
            #expect(
                result.stderr.contains(sandbox.path(name)), "\(result.stderr)",
                sourceLocation: sourceLocation)
        }
        #expect(bytes(name) == before, sourceLocation: sourceLocation)
        #expect(bytes("trove.sqlite") == workspace, sourceLocation: sourceLocation)
    }

    @Test func anExportNeverReplacesATreasureImage() {
        expectRefused(
            ["export", "--layout", "flatirongo", "--out", "artwork/hairy-harry.png"],
            "artwork/hairy-harry.png", "the image of treasure hairy-harry")
    }

    @Test func anExportNeverReplacesTheSourceOfTreasures() {
        expectRefused(
            ["export", "--layout", "flatirongo", "--out", "treasures.csv"], "treasures.csv",
            "a file treasures were imported from")
        // Nor does a rejects file or a review sheet.
        expectRefused(
            ["import", "treasures", "other.csv", "--skip-invalid", "--rejects", "treasures.csv"],
            "treasures.csv", "a file treasures were imported from")
        expectRefused(
            ["review", "sheet", "--out", "treasures.csv"], "treasures.csv",
            "a file treasures were imported from")
    }

    /// A posts export is JSON, as an export is: it is refused for being a source, not for
    /// its kind.
    @Test func anExportNeverReplacesTheSourceOfPostsOrAPhoto() {
        expectRefused(
            ["export", "--layout", "trashmapper", "--out", "posts.json"], "posts.json",
            "a file posts were imported from")
        expectRefused(
            ["export", "--layout", "trashmapper", "--out", "photos/p1.jpg"], "photos/p1.jpg",
            "the photo of post p1")
    }

    @Test func anExportNeverReplacesARendition() throws {
        let made = try FileManager.default.contentsOfDirectory(
            atPath: sandbox.path("build/images/treasures/hairy-harry"))
        let thumb = try #require(made.first { $0.hasPrefix("thumb-") })
        let name = "build/images/treasures/hairy-harry/\(thumb)"
        expectRefused(
            ["export", "--layout", "flatirongo", "--out", name], name,
            "a rendition trove made (treasures/hairy-harry/\(thumb))")
    }

    @Test func recordedSourcesAreKnownThroughLinksToo() throws {
        try FileManager.default.createSymbolicLink(
            atPath: sandbox.path("link.csv"), withDestinationPath: sandbox.path("treasures.csv"))
        let result = sandbox.run(
            "export", "--layout", "flatirongo", "--out", "link.csv", "--force")
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("a file treasures were imported from"))
    }

    @Test func otherFilesAreStillReplacedWithForce() throws {
        try sandbox.write("notes.txt", "mine\n")
        let result = sandbox.run(
            "export", "--layout", "flatirongo", "--out", "notes.txt", "--force")
        #expect(result.status == 0, "\(result.stderr)")
    }
}
