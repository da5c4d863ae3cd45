import Testing

@testable import TroveBase

@Suite struct RadiusTests {
    @Test(arguments: [
        ("500m", 500.0), ("2km", 2000), ("1.5 km", 1500), ("750", 750), ("2KM", 2000),
        (" 10 m ", 10), ("0.5", 0.5), (".5km", 500),
    ])
    func parsesMetresAndKilometres(text: String, metres: Double) throws {
        #expect(try parseRadius(text) == metres)
    }

    @Test(arguments: [
        "", "km", "-5m", "5 miles", "1e3", "1,5km", "nan", "inf", "0", "0km", "1..2", "5mm",
        "5 k m",
        "0x10",
    ])
    func junkIsRefused(text: String) {
        let error = #expect(throws: RadiusError.self) { try parseRadius(text) }
        #expect(error?.description.contains("500m") == true)
    }
}
