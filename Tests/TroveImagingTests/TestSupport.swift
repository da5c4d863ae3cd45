import Foundation

@testable import TroveImaging

// MARK: - Synthetic pictures

/// Deterministic pictures built in code, so tests need no image files.
enum Synthetic {
    /// A smooth, textured colour picture that compresses like a photograph.
    static func photo(width: Int, height: Int, seed: UInt64 = 1) -> Bitmap {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        for y in 0..<height {
            for x in 0..<width {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let noise = Double(state >> 59) - 16
                let fx = Double(x) / Double(width)
                let fy = Double(y) / Double(height)
                let s = Double(seed)
                let r = 128 + 90 * sin(fx * 9 + s) * cos(fy * 7) + noise
                let g = 120 + 80 * sin((fx + fy) * 11 + s * 2) + noise * 0.5
                let b = 60 + 150 * fy + 30 * cos(fx * 23 * (1 + s / 10)) - noise
                let index = (y * width + x) * 3
                pixels[index] = byte(r)
                pixels[index + 1] = byte(g)
                pixels[index + 2] = byte(b)
            }
        }
        return Bitmap(width: width, height: height, channels: 3, pixels: pixels)
    }

    /// Four coloured quadrants with a gradient, easy to tell apart in any orientation.
    static func quadrants(width: Int, height: Int) -> Bitmap {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        let colours: [[Double]] = [[220, 40, 40], [40, 200, 40], [40, 40, 220], [230, 230, 60]]
        for y in 0..<height {
            for x in 0..<width {
                let quadrant = (y < height / 2 ? 0 : 2) + (x < width / 2 ? 0 : 1)
                let shade = 0.75 + 0.25 * Double(x + y) / Double(width + height)
                for k in 0..<3 {
                    pixels[(y * width + x) * 3 + k] = byte(colours[quadrant][k] * shade)
                }
            }
        }
        return Bitmap(width: width, height: height, channels: 3, pixels: pixels)
    }

    static func byte(_ value: Double) -> UInt8 { UInt8(max(0, min(255, value.rounded()))) }
}

/// Stores `upright` so that applying `orientation` shows it upright again.
func stored(_ upright: Bitmap, for orientation: Int) -> Bitmap {
    let w = upright.width
    let h = upright.height
    let swaps = orientation >= 5
    let sw = swaps ? h : w
    let sh = swaps ? w : h
    var pixels = [UInt8](repeating: 0, count: upright.pixels.count)
    for oy in 0..<h {
        for ox in 0..<w {
            let (sx, sy): (Int, Int)
            switch orientation {
            case 2: (sx, sy) = (sw - 1 - ox, oy)
            case 3: (sx, sy) = (sw - 1 - ox, sh - 1 - oy)
            case 4: (sx, sy) = (ox, sh - 1 - oy)
            case 5: (sx, sy) = (oy, ox)
            case 6: (sx, sy) = (oy, sh - 1 - ox)
            case 7: (sx, sy) = (sw - 1 - oy, sh - 1 - ox)
            case 8: (sx, sy) = (sw - 1 - oy, ox)
            default: (sx, sy) = (ox, oy)
            }
            for k in 0..<upright.channels {
                pixels[(sy * sw + sx) * upright.channels + k] =
                    upright.pixels[(oy * w + ox) * upright.channels + k]
            }
        }
    }
    return Bitmap(width: sw, height: sh, channels: upright.channels, pixels: pixels)
}

// MARK: - Comparisons

/// Peak signal-to-noise ratio in dB over all channels.
func psnr(_ a: Bitmap, _ b: Bitmap) -> Double {
    precondition(a.pixels.count == b.pixels.count)
    var total = 0.0
    for index in 0..<a.pixels.count {
        let d = Double(a.pixels[index]) - Double(b.pixels[index])
        total += d * d
    }
    let mse = total / Double(a.pixels.count)
    return mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
}

func meanAbsoluteDifference(_ a: Bitmap, _ b: Bitmap) -> Double {
    precondition(a.pixels.count == b.pixels.count)
    var total = 0
    for index in 0..<a.pixels.count { total += abs(Int(a.pixels[index]) - Int(b.pixels[index])) }
    return Double(total) / Double(a.pixels.count)
}

/// A straightforward Lanczos3 resize in doubles, written independently of the library.
func referenceLanczos3(_ bitmap: Bitmap, width: Int, height: Int) -> Bitmap {
    func kernel(_ x: Double) -> Double {
        if x == 0 { return 1 }
        if abs(x) >= 3 { return 0 }
        return 3 * sin(.pi * x) * sin(.pi * x / 3) / (.pi * .pi * x * x)
    }
    func taps(_ inSize: Int, _ outSize: Int) -> [[(Int, Double)]] {
        let scale = Double(inSize) / Double(outSize)
        let filterScale = max(1, scale)
        return (0..<outSize).map { i in
            let center = (Double(i) + 0.5) * scale
            let lo = max(0, Int(floor(center - 3 * filterScale)))
            let hi = min(inSize - 1, Int(ceil(center + 3 * filterScale)))
            var list = (lo...hi).map { j in (j, kernel((Double(j) + 0.5 - center) / filterScale)) }
            let sum = list.reduce(0) { $0 + $1.1 }
            list = list.map { ($0.0, $0.1 / sum) }
            return list
        }
    }
    let c = bitmap.channels
    let columns = taps(bitmap.width, width)
    let rows = taps(bitmap.height, height)
    var horizontal = [Double](repeating: 0, count: width * bitmap.height * c)
    for y in 0..<bitmap.height {
        for x in 0..<width {
            for (j, w) in columns[x] {
                for k in 0..<c {
                    horizontal[(y * width + x) * c + k] +=
                        w * Double(bitmap.pixels[(y * bitmap.width + j) * c + k])
                }
            }
        }
    }
    var out = [UInt8](repeating: 0, count: width * height * c)
    for y in 0..<height {
        for x in 0..<width {
            for k in 0..<c {
                var v = 0.0
                for (j, w) in rows[y] { v += w * horizontal[(j * width + x) * c + k] }
                out[(y * width + x) * c + k] = Synthetic.byte(v)
            }
        }
    }
    return Bitmap(width: width, height: height, channels: c, pixels: out)
}

/// Bytes of a file under Fixtures.
func fixture(_ name: String) throws -> [UInt8] {
    let parts = name.split(separator: ".")
    guard
        let url = Bundle.module.url(
            forResource: String(parts[0]), withExtension: String(parts[1]),
            subdirectory: "Fixtures")
    else { throw CocoaError(.fileNoSuchFile) }
    return Array(try Data(contentsOf: url))
}

// MARK: - The HP/Microsoft sRGB profile, as libpng recognises it

/// A 3144-byte profile that libpng takes for the HP/Microsoft "sRGB IEC61966-2.1"
/// profile (the one Photoshop and Windows embed), without shipping its bytes.
///
/// libpng recognises that profile by an empty MD5 field, its length, its rendering intent
/// and the Adler-32 and CRC-32 of the whole profile (`png_sRGB_checks` in png.c); on write
/// it refuses it as "known incorrect sRGB profile". This builds a valid header with the
/// same fields and fills one tag so that both checksums come out as the real profile's:
/// first the Adler-32 by adjusting byte sums, then the CRC-32 with moves that leave
/// Adler-32 alone (+1, -1, -1, +1 on four neighbours), chosen by Gaussian elimination.
func hpSRGBLookalikeProfile() -> [UInt8] {
    let length = 3144
    let targetAdler: UInt32 = 0xF784_F3FB
    let targetCRC: UInt32 = 0x182E_A552
    var profile = [UInt8](repeating: 0, count: length)
    func put(_ offset: Int, _ bytes: [UInt8]) {
        for (index, byte) in bytes.enumerated() { profile[offset + index] = byte }
    }
    put(0, PNGBuilder.be32(UInt32(length)))
    put(4, Array("Lino".utf8))
    put(8, [0x02, 0x10, 0, 0])
    put(12, Array("mntr".utf8))
    put(16, Array("RGB ".utf8))
    put(20, Array("XYZ ".utf8))
    put(24, [0x07, 0xCE, 0, 2, 0, 9, 0, 6, 0, 0x31, 0, 0])
    put(36, Array("acsp".utf8))
    put(40, Array("MSFT".utf8))
    put(48, Array("IEC sRGB".utf8))
    // Rendering intent (64) stays 0, perceptual; the MD5 (84..<100) stays empty.
    put(
        68,
        PNGBuilder.be32(0x0000_F6D6) + PNGBuilder.be32(0x0001_0000)
            + PNGBuilder.be32(0x0000_D32D))
    put(80, Array("HP  ".utf8))
    put(128, PNGBuilder.be32(1))
    let tagStart = 144
    put(132, Array("desc".utf8) + PNGBuilder.be32(UInt32(tagStart)))
    put(140, PNGBuilder.be32(UInt32(length - tagStart)))
    put(tagStart, Array("desc".utf8))
    let free = (tagStart + 8)..<length
    for index in free { profile[index] = 0x80 }

    // Adler-32: A = 1 + sum of bytes, B = sum over i of (length - i) * byte + length.
    let modulus = 65521
    func adler(_ bytes: [UInt8]) -> (a: Int, b: Int) {
        var a = 1
        var b = 0
        for byte in bytes {
            a = (a + Int(byte)) % modulus
            b = (b + a) % modulus
        }
        return (a, b)
    }
    // The CRC moves use the last 4 * 64 bytes; the Adler adjustment stays before them.
    let moveStart = length - 4 * 64
    let a = adler(profile).a
    // Raise bytes one by one until A matches (each step adds 1 to A).
    var wantA = (Int(targetAdler & 0xFFFF) - a + modulus) % modulus
    var position = free.lowerBound
    while wantA > 0 {
        let step = min(wantA, 0xFF - Int(profile[position]))
        profile[position] += UInt8(step)
        wantA -= step
        position += 1
    }
    // Then B with pairs (+1 at i, -1 at i + d), which keep A and add d to B.
    let b = adler(profile).b
    var wantB = (Int(targetAdler >> 16) - b + modulus) % modulus
    var low = position + 1
    while wantB > 0 {
        let distance = min(wantB, moveStart - 1 - low)
        let high = low + distance
        precondition(profile[low] < 0xFF && profile[high] > 0, "no room left")
        profile[low] += 1
        profile[high] -= 1
        wantB -= distance
        low += 1
    }
    precondition(adler(profile) == (Int(targetAdler & 0xFFFF), Int(targetAdler >> 16)))

    // CRC-32 is affine over GF(2): each move flips a fixed set of CRC bits.
    let base = PNGBuilder.crc32(profile)
    var rows: [(effect: UInt32, moves: UInt64)] = []
    for move in 0..<64 {
        var moved = profile
        let at = moveStart + move * 4
        moved[at] += 1
        moved[at + 1] -= 1
        moved[at + 2] -= 1
        moved[at + 3] += 1
        rows.append((PNGBuilder.crc32(moved) ^ base, UInt64(1) << UInt64(move)))
    }
    var want = base ^ targetCRC
    var chosen: UInt64 = 0
    for bit in (0..<32).reversed() {
        let mask = UInt32(1) << UInt32(bit)
        guard let pivot = rows.firstIndex(where: { $0.effect & mask != 0 }) else { continue }
        let row = rows.remove(at: pivot)
        for index in rows.indices where rows[index].effect & mask != 0 {
            rows[index].effect ^= row.effect
            rows[index].moves ^= row.moves
        }
        if want & mask != 0 {
            want ^= row.effect
            chosen ^= row.moves
        }
    }
    precondition(want == 0, "the moves do not span every CRC bit")
    for move in 0..<64 where chosen & (UInt64(1) << UInt64(move)) != 0 {
        let at = moveStart + move * 4
        profile[at] += 1
        profile[at + 1] -= 1
        profile[at + 2] -= 1
        profile[at + 3] += 1
    }
    precondition(PNGBuilder.crc32(profile) == targetCRC)
    precondition(adler(profile) == (Int(targetAdler & 0xFFFF), Int(targetAdler >> 16)))
    return profile
}
