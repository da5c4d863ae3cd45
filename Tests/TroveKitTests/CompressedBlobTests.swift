import Testing

@testable import TroveBase

@Suite struct CompressedBlobTests {
    /// An update body as a plan holds it: many paths alike but for their keys and numbers.
    static let body: [UInt8] = Array(
        ("{"
            + (0..<2000).map {
                #""treasureLocations/t\#($0)":{"g":"dr5ru\#($0 % 97)","l":[40.\#($0),-74.\#($0)]}"#
            }.joined(separator: ",") + "}").utf8)

    @Test func aBodyComesBackByteForByteAndTakesLessRoom() throws {
        let packed = CompressedBlob.pack(Self.body)
        #expect(packed.count * 3 < Self.body.count)
        #expect(CompressedBlob.unpack(packed) == Self.body)
    }

    @Test func smallBodiesAndBodiesStoredBeforeCompressionReadAsTheyAre() {
        let small = Array(#"{"a":1}"#.utf8)
        #expect(CompressedBlob.pack(small) == small)
        #expect(CompressedBlob.unpack(small) == small)
        // Written by an earlier trove, uncompressed: JSON never starts with the marker.
        #expect(CompressedBlob.unpack(Self.body) == Self.body)
        #expect(CompressedBlob.unpack([]) == [])
    }

    @Test func bytesThatDeflateCannotShrinkAreKeptAsTheyAre() {
        let noise = (0..<4096).map { _ in UInt8.random(in: 2...255) }
        #expect(CompressedBlob.pack(noise) == noise)
    }

    @Test func aDamagedBlobIsNotTakenForABody() {
        var packed = CompressedBlob.pack(Self.body)
        packed[packed.count / 2] ^= 0xFF
        #expect(CompressedBlob.unpack(packed) == nil)
        #expect(CompressedBlob.unpack(Array(packed.prefix(12))) == nil)
        #expect(CompressedBlob.unpack([1, 0, 0, 0]) == nil)
    }
}
