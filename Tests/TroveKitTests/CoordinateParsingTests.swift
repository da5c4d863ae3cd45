import Testing

@testable import TroveKit

@Suite struct CoordinateParsingTests {
    /// The quick path must give exactly the double strtod gives, for every kind of
    /// decimal a file holds: short and long, signed, with up to 19 digits and beyond.
    @Test func plainDecimalsReadExactlyAsStrtodDoes() {
        var generator = SystemRandomNumberGenerator()
        var cases = [
            "0", "-0", "-0.0", "0.1", "0.3", "1.", ".5", "+7", "40.7128", "-74.006",
            "9007199254740993", "9007199254740992.5", "0.000000000000000000001",
            "12345678901234567890", "1.7976931348623157", "179.99999999999999999",
            "-89.9999999999999999999", "0.00000000000000000000000000001",
        ]
        for _ in 0..<20_000 {
            let whole = String(UInt64.random(in: 0...999, using: &generator))
            let digits = Int.random(in: 0...20, using: &generator)
            let fraction = String(
                (0..<digits).map { _ in Character(String(Int.random(in: 0...9))) })
            let sign = ["", "-", "+"].randomElement(using: &generator)!
            cases.append(sign + whole + (digits > 0 ? "." + fraction : ""))
        }
        for text in cases {
            let quick = Array(text.utf8).withUnsafeBufferPointer {
                TreasureCheck.plainDecimal($0, decimalComma: false)
            }
            let expected = Double(text)
            #expect(quick?.bitPattern == expected?.bitPattern, "\(text)")
        }
    }

    @Test func aDecimalCommaReadsAsAPointOnlyWhenAllowed() {
        let read = { (text: String, comma: Bool) in
            Array(text.utf8).withUnsafeBufferPointer {
                TreasureCheck.plainDecimal($0, decimalComma: comma)
            }
        }
        #expect(read("40,5", true) == 40.5)
        #expect(read("40,5", false) == nil)
        #expect(read("4.0,5", true) == nil)
        #expect(read("1-2", false) == nil)
        #expect(read("-", false) == nil)
    }
}
