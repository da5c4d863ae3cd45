import Foundation
import Testing

@testable import TroveBase
@testable import TroveKit
@testable import TroveStore

/// The treasures family's store: what it writes comes back, by name, as `Treasure`s.
@Suite struct TreasureStoreTests {
    let path: String
    let workspace: Workspace

    init() throws {
        path =
            FileManager.default.temporaryDirectory
            .appendingPathComponent("trove-store-\(UUID().uuidString).sqlite").path
        workspace = try Workspace(path: path, create: true)
    }

    private func cleanUp() {
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
    }

    /// Imports `inputs` from the file `file` as the importer does.
    private func importTreasures(_ inputs: [(String, TreasureInput)], from file: String) throws {
        try workspace.write {
            let importer = try TreasureImporter(workspace: workspace)
            // The file's `SourceIdentity`: its path relative to the workspace's folder.
            var batch = PackedTreasures(file: file, sourcePath: file)
            for (key, input) in inputs {
                batch.append(key: key, input: input, image: input.image, firstUse: true)
            }
            try importer.add(batch)
            try importer.finish()
        }
    }

    private static func input(
        _ name: String, _ latitude: Double, _ longitude: Double, line: Int,
        image: String? = nil, extra: [ExtraField] = []
    ) -> TreasureInput {
        TreasureInput(
            name: name, latitude: latitude, longitude: longitude, image: image,
            description: "about \(name)", extra: extra,
            location: Diagnostic.Location(file: "t.csv", line: line))
    }

    @Test func whatAnImportWritesReadsBackWhole() throws {
        defer { cleanUp() }
        try importTreasures(
            [
                (
                    "b",
                    Self.input(
                        "Bee", 52.5, 13.4, line: 3, image: "/img/b.jpg",
                        extra: [ExtraField(name: "points", json: "50")])
                ),
                ("a", Self.input("Ant", 48.1, 11.6, line: 2)),
            ], from: "t.csv")
        let store = TreasureStore(workspace)
        var read: [Treasure] = []
        try store.forEachTreasure(geohashPrecision: 10) { read.append($0) }
        #expect(read.map(\.key) == ["a", "b"])
        let bee = try #require(read.last)
        #expect(bee.name == "Bee")
        #expect(bee.coordinate == Coordinate(validLatitude: 52.5, longitude: 13.4))
        #expect(bee.description == "about Bee")
        #expect(bee.image == "/img/b.jpg")
        #expect(bee.extras == [TreasureExtra(name: "points", json: "50", text: "50")])
        #expect(bee.geohash == nil && !bee.geohashIsCurrent)
        #expect(bee.source == Diagnostic.Location(file: "t.csv", line: 3))
        #expect(bee.sourceText == "t.csv:3")
        #expect(try store.treasure("b", geohashPrecision: nil) == bee)
        #expect(try store.treasure("zzz", geohashPrecision: nil) == nil)
        #expect(try store.count() == 2)
    }

    @Test func aSourceIsKnownByItsPathAndKeepsItsColumns() throws {
        defer { cleanUp() }
        let store = TreasureStore(workspace)
        try workspace.write {
            let first = try store.source(path: "data/t.csv", name: "t.csv")
            #expect(!first.known)
            let again = try store.source(path: "data/t.csv", name: "../t.csv")
            #expect(again.id == first.id && again.known)
            #expect(try store.columns(ofSource: first.id) == nil)
            try store.setColumns(["name", "lat", "Points"], decimalComma: true, ofSource: first.id)
            #expect(try store.columns(ofSource: first.id) == ["name", "lat", "Points"])
            // Named by its identity, whoever typed it how.
            #expect(try store.sourceNames() == [first.id: "data/t.csv"])
        }
    }

    @Test func removingATreasureTakesItsGeohashAndMarksIt() throws {
        defer { cleanUp() }
        try importTreasures(
            [
                ("a", Self.input("Ant", 48.1, 11.6, line: 2)),
                ("b", Self.input("Bee", 1, 2, line: 3)),
            ],
            from: "t.csv")
        _ = try GeohashAssignment.run(on: workspace)
        let clock = try ChangeLog.clock(in: workspace.database)
        let store = TreasureStore(workspace)
        try workspace.write {
            #expect(try store.remove("a"))
            #expect(try !store.remove("a"))
            try store.forgetLine(of: "b")
        }
        #expect(
            try ChangeLog.changes(of: .treasure, since: clock, in: workspace.database)
                == .keys(["a"]))
        var left: [Treasure] = []
        try store.forEachTreasure(geohashPrecision: 10) { left.append($0) }
        #expect(left.map(\.key) == ["b"])
        #expect(left.first?.geohashIsCurrent == true)
        #expect(left.first?.sourceText == "t.csv (no longer in it)")
        #expect(left.first?.location == Diagnostic.Location())
        #expect(try !store.hasGeohash(ofLength: 5))
        #expect(try store.hasGeohash(ofLength: 10))
    }

    @Test func staleGeohashesAreRewrittenAndFoundByRange() throws {
        defer { cleanUp() }
        try importTreasures(
            [
                ("a", Self.input("Ant", 48.1, 11.6, line: 2)),
                ("b", Self.input("Bee", 1, 2, line: 3)),
            ],
            from: "t.csv")
        try GeohashFunction.register(on: workspace.database)
        let store = TreasureStore(workspace)
        let written = try workspace.write { try store.assignStaleGeohashes(precision: 6) }
        #expect(written == 2)
        #expect(try workspace.write { try store.assignStaleGeohashes(precision: 6) } == 0)
        let geohash = Geohash.encode(latitude: 48.1, longitude: 11.6, precision: 6)
        var found: [Treasure] = []
        try store.forEachTreasure(
            inGeohashRanges: [GeohashRange(start: geohash, end: geohash + "~")],
            keeping: { _ in true }
        ) { found.append($0) }
        #expect(found == [Treasure(key: "a", name: "Ant", latitude: 48.1, longitude: 11.6)])
        var dropped: [Treasure] = []
        try store.forEachTreasure(
            inGeohashRanges: [GeohashRange(start: geohash, end: geohash + "~")],
            keeping: { _ in false }
        ) { dropped.append($0) }
        #expect(dropped.isEmpty)
    }

    @Test func validateReadsDetailsOnlyForTheReportedOnes() throws {
        defer { cleanUp() }
        try importTreasures(
            [
                ("a", Self.input("Ant", 48.1, 11.6, line: 2, image: "/img/a.jpg")),
                ("b", Self.input("Bee", 1, 2, line: 3, image: "/img/b.jpg")),
            ], from: "t.csv")
        let store = TreasureStore(workspace)
        var read: [Treasure] = []
        try store.forEachForValidation(keys: nil, details: { $0 == "b" }) { read.append($0) }
        #expect(read.map(\.key) == ["a", "b"])
        #expect(read.map(\.image) == [nil, "/img/b.jpg"])
        #expect(
            read.map(\.location) == [
                Diagnostic.Location(file: "t.csv", line: 2),
                Diagnostic.Location(file: "t.csv", line: 3),
            ])
        read = []
        try store.forEachForValidation(keys: ["b"], details: { _ in true }) { read.append($0) }
        #expect(read.map(\.key) == ["b"])
        #expect(try store.treasures(keys: ["a", "x"]).map(\.name) == ["Ant"])
        let named = try store.keysOfPositions(named: ["Bee"], keys: []) { $0.isNamed }
        #expect(named == ["b"])
    }
}
