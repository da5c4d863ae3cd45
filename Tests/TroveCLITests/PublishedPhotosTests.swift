import Foundation
import Testing

@testable import TroveCLI

/// `images --posts` publishes approved posts only, and withdraws what is no longer approved.
@Suite struct PublishedPhotosTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        sandbox.run("init")
        try sandbox.write("photos/a.jpg", PostPhotos.jpeg(width: 400, height: 300, seed: 1))
        try sandbox.write("photos/b.jpg", PostPhotos.jpeg(width: 300, height: 400, seed: 2))
        try sandbox.write("photos/c.jpg", PostPhotos.jpeg(width: 320, height: 240, seed: 3))
        let csv = """
            id,user,lat,lon,description,date,photo
            p1,alice,40.7128,-74.0060,cans,2022-01-24,a.jpg
            p2,bob,40.7300,-74.0000,bottles,2022-01-25,b.jpg
            p3,carl,40.7400,-74.0100,crisps,2022-01-26,c.jpg
            """
        try sandbox.write("posts.csv", csv)
        sandbox.run("import", "posts", "posts.csv", "--photos", "photos")
    }

    func files() -> [String] {
        let root = sandbox.path("out")
        let names = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String }
        return (names ?? []).filter { $0.hasSuffix(".jpg") }.sorted()
    }

    @Test func onlyApprovedPostsAreRenderedAndWithdrawnOnesLeave() throws {
        let none = sandbox.run("images", "--posts", "--out", "out")
        #expect(none.status == 0)
        #expect(files().isEmpty, "pending posts are not published")
        sandbox.run("review", "approve", "p1", "p2", "--as", "ann")
        sandbox.run("review", "reject", "p3", "--reason", "privacy", "--as", "ann")
        #expect(sandbox.run("images", "--posts", "--out", "out").status == 0)
        #expect(files().filter { $0.hasPrefix("posts/p1/") }.count == 2)
        #expect(files().filter { $0.hasPrefix("posts/p2/") }.count == 2)
        #expect(!files().contains { $0.hasPrefix("posts/p3/") })

        // Rejecting an approved post takes its renditions out on the next run.
        #expect(sandbox.run("review", "reject", "p2", "--reason", "privacy", "--force").status == 0)
        let after = sandbox.run("images", "--posts", "--out", "out", "--format", "json")
        #expect(after.status == 0)
        #expect(after.stdout.contains("\"images\": 1"))
        #expect(!files().contains { $0.hasPrefix("posts/p2/") })
        #expect(files().filter { $0.hasPrefix("posts/p1/") }.count == 2)
        // A second run changes nothing and keeps p1's files.
        let again = sandbox.run("images", "--posts", "--out", "out", "--format", "json")
        #expect(again.stdout.contains("\"made\": 0"))
        #expect(files().filter { $0.hasPrefix("posts/p1/") }.count == 2)
        // Reopening counts as no longer approved too; status then sees nothing stale.
        sandbox.run("review", "reopen", "p1")
        sandbox.run("images", "--out", "out")
        #expect(files().isEmpty)
        let status = sandbox.run("status", "--format", "json").stdout
        #expect(status.contains("\"stale\": 0"), "\(status)")
        #expect(sandbox.run("check").status == 0)
    }
}
