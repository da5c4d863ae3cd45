import Foundation
import Testing

@testable import TroveBase
@testable import TroveKit
@testable import TroveStore

/// A small change costs what it changes: a 3-row file imported into a workspace of many
/// treasures reads a few pages, not a table.
@Suite struct SmallImportTests {
    @Test func aThreeRowImportReadsNoTableWhole() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "trove-small-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("w.sqlite").path
        func importFile(_ name: String, _ text: String, into workspace: Workspace) throws {
            let file = folder.appendingPathComponent(name).path
            try Data(text.utf8).write(to: URL(fileURLWithPath: file))
            _ = try TreasureFileImport().run(
                [.init(path: file, displayPath: name, baseFolder: folder.path, format: .csv)],
                into: workspace)
        }
        var big = "key,name,lat,lon,image\n"
        for index in 0..<20_000 {
            big += "t\(index),Treasure number \(index),\(Double(index % 170) - 85),"
            big += "\(Double(index / 170) - 170),art/\(index % 5).png\n"
        }
        try importFile("big.csv", big, into: try Workspace(path: path, create: true))
        let small = "key,name,lat,lon,image\nn1,New 1,1,2,art/1.png\nn2,New 2,3,4,\nn3,New 3,5,6,\n"
        let workspace = try Workspace(path: path)
        let pages = Int(try workspace.database.scalar("PRAGMA page_count")?.int64 ?? 0)
        let before = workspace.database.pagesRead
        try importFile("small.csv", small, into: workspace)
        let read = workspace.database.pagesRead - before
        #expect(read * 20 < pages, "read \(read) of \(pages) pages")
        // And again, the same rows changed, on a fresh connection: updates cost as little.
        let fresh = try Workspace(path: path)
        let again = fresh.database.pagesRead
        try importFile(
            "small.csv", small.replacingOccurrences(of: "New", with: "Renamed"), into: fresh)
        let readAgain = fresh.database.pagesRead - again
        #expect(readAgain * 20 < pages, "read \(readAgain) of \(pages) pages")
        // And a third time with new keys: the old rows are gone from the file, and the new
        // ones are looked up as likely renames of them.
        let third = try Workspace(path: path)
        let start = third.database.pagesRead
        try importFile("small.csv", small.replacingOccurrences(of: "\nn", with: "\nm"), into: third)
        let readThird = third.database.pagesRead - start
        #expect(readThird * 20 < pages, "read \(readThird) of \(pages) pages")
        #expect(try TreasureStore(fresh).count() == 20_006)
        #expect(try StatusCounters.read(in: fresh.database).treasures == 20_006)
    }
}
