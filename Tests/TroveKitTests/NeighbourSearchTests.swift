import Foundation
import Testing

@testable import TroveBase
@testable import TroveKit
@testable import TroveStore

/// The searches that use `NeighbourIndex`, where a grid of cells goes wrong easily.
@Suite struct NeighbourSearchTests {
    static func tooClose(_ positions: [(String, Double, Double)]) throws -> [String] {
        var validator = TreasureValidator()
        for (key, latitude, longitude) in positions {
            validator.add(
                Treasure(
                    key: key, name: key, latitude: latitude, longitude: longitude,
                    source: Diagnostic.Location()))
        }
        validator.finish()
        var found: [String] = []
        try validator.findings.drain { diagnostic in
            if diagnostic.code == DiagnosticCode.tooClose { found.append(diagnostic.compilerStyle) }
        }
        return found
    }

    @Test func nearDuplicatesAcrossTheAntimeridianAreFound() throws {
        #expect(
            try Self.tooClose([("east", 10, 179.99999), ("west", 10, -179.99999), ("far", 10, 0)])
                == ["west: warning[T205]: only 2.2 m from 'east' (east)"])
    }

    @Test func nearDuplicatesRoundAPoleAreFound() throws {
        // A metre from the pole, a quarter of the way round from each other.
        #expect(
            try Self.tooClose([("a", 89.99999, 0), ("b", 89.99999, 90), ("c", -89.99999, 45)])
                == ["b: warning[T205]: only 1.6 m from 'a' (a)"])
    }

    @Test func ofEquallyCloseOnesTheFirstInCellOrderIsNamed() throws {
        // "m" lies between the other two, 1.1 m from each; the western is named, as before.
        #expect(
            try Self.tooClose([("e", 0, 0.00001), ("w", 0, -0.00001), ("m", 0, 0)])
                == [
                    "w: warning[T205]: only 2.2 m from 'e' (e)",
                    "m: warning[T205]: only 1.1 m from 'w' (w)",
                ])
    }

    @Test func aFocusFindsChangedNeighboursAcrossTheAntimeridian() {
        let focus = TreasureValidator.Focus(changed: [
            Treasure(key: "a", name: "A", latitude: -40, longitude: 180),
            Treasure(key: "b", name: "B", latitude: 89.99999, longitude: 0),
        ])
        #expect(focus.isNear(latitude: -40, longitude: -179.99999))
        #expect(!focus.isNear(latitude: -40, longitude: -179.9999))
        #expect(focus.isNear(latitude: 89.99999, longitude: 135))
        #expect(!focus.isNear(latitude: 89.9999, longitude: 180))
        #expect(!TreasureValidator.Focus().isNear(latitude: -40, longitude: 180))
    }
}
