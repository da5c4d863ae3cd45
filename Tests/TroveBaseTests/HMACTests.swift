import Testing

@testable import TroveBase

/// HMAC-SHA256 against the test vectors of RFC 4231 (cases 1–4, 6 and 7; case 5 tests a
/// truncated output, which trove never uses).
@Suite struct HMACTests {
    static func repeated(_ byte: UInt8, _ count: Int) -> [UInt8] {
        [UInt8](repeating: byte, count: count)
    }

    static let cases: [(key: [UInt8], data: [UInt8], expected: String)] = [
        (
            repeated(0x0b, 20), Array("Hi There".utf8),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        ),
        (
            Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        ),
        (
            repeated(0xaa, 20), repeated(0xdd, 50),
            "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"
        ),
        (
            (1...25).map { UInt8($0) }, repeated(0xcd, 50),
            "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"
        ),
        (
            repeated(0xaa, 131),
            Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        ),
        (
            repeated(0xaa, 131),
            Array(
                ("This is a test using a larger than block-size key and a larger than "
                    + "block-size data. The key needs to be hashed before being used by the "
                    + "HMAC algorithm.").utf8),
            "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"
        ),
    ]

    @Test(arguments: 0..<cases.count)
    func matchesRFC4231(index: Int) {
        let item = Self.cases[index]
        #expect(HMACSHA256.hex(key: item.key, message: item.data) == item.expected)
    }

    @Test func hexRoundTripsAndComparisonSeesEveryByte() {
        let code = HMACSHA256.code(key: Array("k".utf8), message: Array("m".utf8))
        #expect(HMACSHA256.bytes(hex: HMACSHA256.hexText(code)) == code)
        #expect(HMACSHA256.bytes(hex: "abc") == nil)
        #expect(HMACSHA256.bytes(hex: "zz") == nil)
        #expect(HMACSHA256.equal(code, code))
        var other = code
        other[31] ^= 1
        #expect(!HMACSHA256.equal(code, other))
        #expect(!HMACSHA256.equal(code, Array(code.dropLast())))
    }
}
