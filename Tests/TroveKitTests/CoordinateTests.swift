import Testing

@testable import TroveBase
@testable import TroveKit
@testable import TroveStore

@Suite struct CoordinateTests {
    @Test(arguments: [
        (0.0, 0.0, true), (90, 180, true), (-90, -180, true), (90.000001, 0, false),
        (-90.5, 0, false), (0, 180.5, false), (0, -181, false), (.nan, 0, false),
        (0, .nan, false), (.infinity, 0, false), (0, -.infinity, false),
    ])
    func theRangeRuleIsClosedAndFinite(latitude: Double, longitude: Double, valid: Bool) {
        #expect(Coordinate.isValid(latitude: latitude, longitude: longitude) == valid)
        #expect((Coordinate(validLatitude: latitude, longitude: longitude) != nil) == valid)
        #expect(((try? Coordinate(latitude: latitude, longitude: longitude)) != nil) == valid)
    }

    @Test func anOutOfRangeValueIsNamedWithItsAxisAndRange() {
        #expect(
            throws: CoordinateError(.latitude, 140.2),
            performing: { try Coordinate(latitude: 140.2, longitude: 0) })
        #expect(
            CoordinateError(.latitude, 140.2).description == "latitude 140.2 is outside [-90, 90]")
        #expect(CoordinateError(.latitude, 95).description == "latitude 95 is outside [-90, 90]")
        #expect(
            CoordinateError(.longitude, -200, text: "-200.0").description
                == "longitude -200.0 is outside [-180, 180]")
        #expect(CoordinateError(.latitude, 95).code == DiagnosticCode.latitudeOutOfRange)
        #expect(CoordinateError(.longitude, 195).code == DiagnosticCode.longitudeOutOfRange)
        #expect(CoordinateError(.latitude, .nan).code == DiagnosticCode.notANumber)
        #expect(
            CoordinateError(.longitude, .infinity).description
                == "longitude inf is not a finite number")
    }

    @Test func latitudeIsCheckedBeforeLongitude() {
        #expect(throws: CoordinateError(.latitude, 100)) {
            try Coordinate(latitude: 100, longitude: 200)
        }
    }
}

@Suite struct CoordinateMessageTests {
    /// A stored position out of range (a workspace from before the check, or edited by
    /// hand) is named as the file readers name one: the number as it reads back, no `.0`.
    @Test func theValidatorNamesAStoredValueAsTheReadersDo() throws {
        var validator = TreasureValidator()
        validator.add(
            Treasure(
                key: "a", name: "A", latitude: 95, longitude: -200.5,
                source: Diagnostic.Location()))
        validator.finish()
        var messages: [String] = []
        try validator.findings.drain { messages.append("\($0.code) \($0.message)") }
        #expect(
            messages == [
                "T101 latitude 95 is outside [-90, 90]",
                "T102 longitude -200.5 is outside [-180, 180]",
            ])
    }
}
