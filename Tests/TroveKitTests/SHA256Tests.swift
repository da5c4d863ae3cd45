import Testing

@testable import TroveKit

@Suite struct SHA256Tests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
    ])
    func matchesTheStandardVectors(text: String, expected: String) {
        #expect(SHA256.hex(Array(text.utf8)) == expected)
    }

    @Test func feedingInPiecesEqualsFeedingAtOnce() {
        let bytes = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        var pieces = SHA256()
        var start = 0
        for size in [1, 63, 64, 65, 127, 1000, 3] where start < bytes.count {
            let end = min(bytes.count, start + size)
            pieces.update(Array(bytes[start..<end]))
            start = end
        }
        pieces.update(Array(bytes[start...]))
        #expect(pieces.finish() == SHA256.digest(bytes))
        #expect(
            SHA256.hex(Array(repeating: UInt8(ascii: "a"), count: 1_000_000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}
