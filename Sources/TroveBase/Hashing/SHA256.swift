/// SHA-256 (FIPS 180-4), where a digest must be collision-resistant: a post's content
/// identity, the digest that stands in for a user's e-mail address, and the review
/// sheet's id and Content-Security-Policy hashes. Foundation on Linux has no digest API and the
/// build machines cannot fetch one. Image bytes use the faster `ContentHash`.
///
/// Written over unsafe buffers with no allocation per block.
package struct SHA256 {
    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a,
        0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19
    )
    private var pending: [UInt8] = []
    private var length: UInt64 = 0

    private static let k: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1,
        0x923f_82a4, 0xab1c_5ed5, 0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3,
        0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174, 0xe49b_69c1, 0xefbe_4786,
        0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147,
        0x06ca_6351, 0x1429_2967, 0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13,
        0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85, 0xa2bf_e8a1, 0xa81a_664b,
        0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a,
        0x5b9c_ca4f, 0x682e_6ff3, 0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208,
        0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    /// A hash of nothing yet, to feed a stream into.
    package init() {}

    /// Feeds more bytes.
    package mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Feeds more bytes.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        length &+= UInt64(bytes.count)
        var offset = 0
        if !pending.isEmpty {
            let take = min(64 - pending.count, bytes.count)
            pending.append(contentsOf: bytes[0..<take])
            offset = take
            if pending.count < 64 { return }
            pending.withUnsafeBytes { compress($0.baseAddress!, blocks: 1) }
            pending.removeAll(keepingCapacity: true)
        }
        let blocks = (bytes.count - offset) / 64
        if blocks > 0 {
            compress(bytes.baseAddress! + offset, blocks: blocks)
            offset += blocks * 64
        }
        pending.append(contentsOf: bytes[offset...])
    }

    /// The 32-byte digest; the hasher should not be used afterwards.
    package mutating func finish() -> [UInt8] {
        let bits = length &* 8
        pending.append(0x80)
        while pending.count % 64 != 56 { pending.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) {
            pending.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift)))
        }
        let tail = pending
        tail.withUnsafeBytes { compress($0.baseAddress!, blocks: tail.count / 64) }
        let words = [state.0, state.1, state.2, state.3, state.4, state.5, state.6, state.7]
        var digest: [UInt8] = []
        digest.reserveCapacity(32)
        for word in words {
            for shift in [24, 16, 8, 0] { digest.append(UInt8(truncatingIfNeeded: word >> shift)) }
        }
        return digest
    }

    private mutating func compress(_ data: UnsafeRawPointer, blocks: Int) {
        Self.k.withUnsafeBufferPointer { k in
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
                var (h0, h1, h2, h3, h4, h5, h6, h7) = state
                for block in 0..<blocks {
                    let base = data + block * 64
                    for i in 0..<16 {
                        w[i] = UInt32(
                            bigEndian: base.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self))
                    }
                    for i in 16..<64 {
                        let x = w[i - 15]
                        let y = w[i - 2]
                        let s0 = rotate(x, 7) ^ rotate(x, 18) ^ (x >> 3)
                        let s1 = rotate(y, 17) ^ rotate(y, 19) ^ (y >> 10)
                        w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
                    }
                    var (a, b, c, d, e, f, g, h) = (h0, h1, h2, h3, h4, h5, h6, h7)
                    for i in 0..<64 {
                        let s1 = rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)
                        let choice = (e & f) ^ (~e & g)
                        let t1 = h &+ s1 &+ choice &+ k[i] &+ w[i]
                        let s0 = rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)
                        let majority = (a & b) ^ (a & c) ^ (b & c)
                        h = g
                        g = f
                        f = e
                        e = d &+ t1
                        d = c
                        c = b
                        b = a
                        a = t1 &+ s0 &+ majority
                    }
                    h0 &+= a
                    h1 &+= b
                    h2 &+= c
                    h3 &+= d
                    h4 &+= e
                    h5 &+= f
                    h6 &+= g
                    h7 &+= h
                }
                state = (h0, h1, h2, h3, h4, h5, h6, h7)
            }
        }
    }

    @inline(__always)
    private func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value >> count) | (value << (32 &- count))
    }

    /// The digest of `bytes`.
    package static func digest<Bytes: Sequence>(_ bytes: Bytes) -> [UInt8]
    where Bytes.Element == UInt8 {
        var hasher = SHA256()
        if let contiguous = bytes.withContiguousStorageIfAvailable({
            hasher.update(UnsafeRawBufferPointer($0))
        }) {
            _ = contiguous
        } else {
            hasher.update(Array(bytes))
        }
        return hasher.finish()
    }

    /// The digest of `bytes` as lowercase hex.
    package static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String
    where Bytes.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in digest(bytes) {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
