import Foundation
import Testing

@testable import TroveBase
@testable import TroveKit
@testable import TroveStore

/// Counts the images it is asked about.
private final class InspectionCount: @unchecked Sendable {
    private let lock = NSLock()
    private var paths: [String] = []
    var seen: [String] { lock.withLock { paths } }
    func note(_ path: String) { lock.withLock { paths.append(path) } }
}

@Suite struct SharedImageTests {
    /// 1,200 records over 3 image files, across several batches of image checks: each file
    /// is inspected once, and every record still gets its image's findings at its own place.
    @Test func validateInspectsEachDistinctImageOnce() throws {
        let count = InspectionCount()
        var validator = TreasureValidator(inspectImage: { path, location in
            count.note(path)
            return [
                Diagnostic(
                    .warning, DiagnosticCode.imageTooSmall, "image \(path) is small",
                    at: location)
            ]
        })
        let images = ["/art/chest.png", "/art/coin.png", "/art/key.png"]
        for index in 0..<1_200 {
            var location = Diagnostic.Location()
            location.file = "t.csv"
            location.line = index + 2
            validator.add(
                Treasure(
                    key: "t\(index)", name: "Treasure \(index)", latitude: Double(index % 80),
                    longitude: Double(index / 80), image: images[index % 3], source: location))
        }
        validator.finish()
        var found: [Diagnostic] = []
        try validator.findings.drain {
            if $0.code == DiagnosticCode.imageTooSmall { found.append($0) }
        }
        #expect(count.seen.sorted() == images)
        #expect(found.count == 1_200)
        #expect(found.map(\.location.line) == (0..<1_200).map { $0 + 2 })
        #expect(found[4].message == "image /art/coin.png is small")
        #expect(found[4].location.key == "t4")
    }

    /// A second name for a file: made in a new folder, kept when it already names that
    /// file, refused (for the caller to write the bytes) when the file is gone or the name
    /// holds another file, which is left as it was.
    @Test func aSharedFileGetsASecondNameOrIsRefused() throws {
        let folder = TemporaryFolder()
        let original = try folder.write([1, 2, 3], to: "a.jpg")
        let second = folder.url.appendingPathComponent("k/b/a.jpg").path
        #expect(SharedFile.link(original, to: second))
        #expect(FileManager.default.contents(atPath: second) == Data([1, 2, 3]))
        #expect(SharedFile.link(original, to: second))
        let other = try folder.write([9], to: "other.jpg")
        #expect(!SharedFile.link(original, to: other))
        #expect(FileManager.default.contents(atPath: other) == Data([9]))
        try FileManager.default.removeItem(atPath: original)
        #expect(FileManager.default.contents(atPath: second) == Data([1, 2, 3]))
        #expect(!SharedFile.link(original, to: folder.url.appendingPathComponent("c.jpg").path))
    }

    /// A folder's listing says what each entry is without following symbolic links, so
    /// the removal of orphaned renditions never reaches through one.
    @Test func aFolderListingTellsFilesFoldersAndLinksApart() throws {
        let folder = TemporaryFolder()
        try folder.write([1], to: "thumb-0123abcd.jpg")
        let inner = folder.url.appendingPathComponent("key").path
        try FileManager.default.createDirectory(atPath: inner, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: folder.url.appendingPathComponent("elsewhere").path, withDestinationPath: inner)
        let entries = try #require(FolderEntries.list(folder.url.path))
        #expect(
            entries.sorted { $0.name < $1.name }.map { "\($0.name) \($0.kind)" } == [
                "elsewhere other", "key folder", "thumb-0123abcd.jpg file",
            ])
        #expect(FolderEntries.list(folder.url.appendingPathComponent("gone").path) == nil)
        #expect(
            FolderEntries.kind(of: folder.url.appendingPathComponent("elsewhere").path) == .other)
    }
}
