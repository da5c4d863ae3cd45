/// A fast 128-bit fingerprint of file contents, to notice that a source image changed.
///
/// Not cryptographic: it guards against accidents, not adversaries, and runs at memory
/// speed where SHA-256 would cost a quarter of a thumbnail's time on large PNG artwork.
package enum ContentHash {
    /// The fingerprint of `bytes` as 32 hex digits.
    package static func hex(_ bytes: [UInt8]) -> String {
        var a: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
        var b: UInt64 = 0xC2B2_AE3D_27D4_EB4F
        bytes.withUnsafeBytes { raw in
            let words = raw.count / 16
            for index in 0..<words {
                let x = raw.loadUnaligned(fromByteOffset: index * 16, as: UInt64.self)
                let y = raw.loadUnaligned(fromByteOffset: index * 16 + 8, as: UInt64.self)
                a = mix(a ^ x, 0xBF58_476D_1CE4_E5B9)
                b = mix(b ^ y, 0x94D0_49BB_1331_11EB)
            }
            var tail: UInt64 = 0
            for offset in (words * 16)..<raw.count {
                tail = tail << 8 | UInt64(raw[offset])
                if (offset - words * 16) % 8 == 7 {
                    a = mix(a ^ tail, 0xBF58_476D_1CE4_E5B9)
                    tail = 0
                }
            }
            b = mix(b ^ tail, 0x94D0_49BB_1331_11EB)
        }
        // Fold the lanes into each other so every input bit reaches both halves.
        let high = mix(a ^ (b >> 29), 0xFF51_AFD7_ED55_8CCD)
        let low = mix(b ^ (a >> 31) ^ high, 0xC4CE_B9FE_1A85_EC53)
        return hex64(high) + hex64(low)
    }

    @inline(__always)
    private static func mix(_ value: UInt64, _ multiplier: UInt64) -> UInt64 {
        let product = value.multipliedFullWidth(by: multiplier)
        return product.high ^ product.low
    }

    private static func hex64(_ value: UInt64) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }
}
