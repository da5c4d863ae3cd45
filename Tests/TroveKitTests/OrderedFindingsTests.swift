import Testing

@testable import TroveBase
@testable import TroveKit

@Suite struct OrderedFindingsTests {
    /// Findings at random places of a few files, some said as read, with every field set
    /// somewhere.
    static func findings(count: Int, seed: UInt64) -> [(Diagnostic, asRead: Bool)] {
        var generator = SeededGenerator(state: seed)
        let files: [String?] = ["a.csv", "b.geojson", nil, "é 🗺.csv"]
        return (0..<count).map { index in
            let file = files.randomElement(using: &generator)!
            let line =
                Bool.random(using: &generator) ? Int.random(in: 1...40, using: &generator) : nil
            let feature =
                line == nil && Bool.random(using: &generator)
                ? Int.random(in: 0...40, using: &generator) : nil
            let location = Diagnostic.Location(
                file: file, line: line, column: line.map { $0 % 3 + 1 }, feature: feature,
                jsonPath: feature.map { "geometry.coordinates[\($0 % 2)]" },
                key: Bool.random(using: &generator) ? "key-\(index)" : nil)
            let finding = Diagnostic(
                Bool.random(using: &generator) ? .error : .warning, "T\(100 + index % 90)",
                "finding \(index) \u{2028}" + String(repeating: "x", count: index % 50),
                at: location, hint: index % 3 == 0 ? "do \(index)" : nil)
            return (finding, Int.random(in: 0..<5, using: &generator) == 0)
        }
    }

    /// What the order means: files as first seen, then line or feature, findings said as
    /// read first, then as added.
    static func expected(_ input: [(Diagnostic, asRead: Bool)]) -> [Diagnostic] {
        var rank: [String: Int] = [:]
        for (finding, _) in input where rank[finding.location.file ?? ""] == nil {
            rank[finding.location.file ?? ""] = rank.count
        }
        return input.enumerated().sorted { lhs, rhs in
            func key(_ item: (offset: Int, element: (Diagnostic, asRead: Bool))) -> (
                Int, Int, Int, Int
            ) {
                let location = item.element.0.location
                return (
                    rank[location.file ?? ""]!, location.line ?? location.feature ?? 0,
                    item.element.asRead ? 0 : 1, item.offset
                )
            }
            return key(lhs) < key(rhs)
        }.map(\.element.0)
    }

    @Test(arguments: [1, 7, 1000, 1 << 15])
    func spilledRunsMergeIntoTheOrderOfOneSort(chunkSize: Int) throws {
        let input = Self.findings(count: 3000, seed: UInt64(chunkSize))
        let store = OrderedFindings(chunkSize: chunkSize)
        for (finding, asRead) in input { store.add(finding, asRead: asRead) }
        var output: [Diagnostic] = []
        try store.drain { output.append($0) }
        #expect(output == Self.expected(input))
        #expect(store.errors == input.filter { $0.0.severity == .error }.count)
        #expect(store.warnings == input.count - store.errors)
    }

    @Test func aFileRegisteredFirstRanksFirstWhateverIsFoundFirst() throws {
        let store = OrderedFindings(chunkSize: 2)
        store.register(file: "first.csv")
        let later = Diagnostic(.error, "T101", "later", at: .init(file: "second.csv", line: 1))
        let earlier = Diagnostic(.warning, "T301", "earlier", at: .init(file: "first.csv", line: 9))
        store.add(later)
        store.add(later)
        store.add(earlier)
        var output: [Diagnostic] = []
        try store.drain { output.append($0) }
        #expect(output == [earlier, later, later])
    }

    @Test func reservedPlacesKeepTheirOrderWhateverOrderTheyAreFilledIn() throws {
        let store = OrderedFindings(chunkSize: 2)
        func finding(_ message: String) -> Diagnostic {
            Diagnostic(.warning, "T205", message, at: .init(file: "t.csv"))
        }
        store.add(finding("before"))
        let first = store.reserve(3)
        store.add(finding("third"), reserved: first + 2)
        store.add(finding("first"), reserved: first)
        store.add(finding("after"))
        var output: [String] = []
        try store.drain { output.append($0.message) }
        #expect(output == ["before", "first", "third", "after"])
    }
}
