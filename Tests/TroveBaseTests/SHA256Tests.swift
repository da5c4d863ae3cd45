import Testing

@testable import TroveBase

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

@Suite struct ContentHashTests {
    @Test func anyChangedByteChangesTheFingerprint() {
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let original = ContentHash.hex(bytes)
        #expect(original.count == 32)
        #expect(ContentHash.hex(bytes) == original)
        var seen: Set<String> = [original]
        for index in [0, 1, 15, 16, 500, 990, 999] {
            var changed = bytes
            changed[index] ^= 1
            #expect(seen.insert(ContentHash.hex(changed)).inserted, "byte \(index)")
        }
        #expect(seen.insert(ContentHash.hex(Array(bytes.dropLast()))).inserted)
        #expect(seen.insert(ContentHash.hex([])).inserted)
    }
}
