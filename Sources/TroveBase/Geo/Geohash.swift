// MARK: - Geohash

/// GeoFire's geohash: interleaved longitude/latitude bisection bits in base32.
///
/// The bits match GeoFire's clients exactly, so that hashes written by trove and hashes
/// written by an app sort and compare the same way: the first bit is longitude, and a
/// value exactly on an interval's midpoint falls into the lower half (the bit is 1 only
/// when the value is strictly greater than the midpoint).
public enum Geohash {
    /// GeoFire's base32 alphabet (no `a`, `i`, `l`, `o`).
    public static let alphabet: [UInt8] = Array("0123456789bcdefghjkmnpqrstuvwxyz".utf8)
    /// The precision trove uses unless told otherwise, as GeoFire does.
    public static let defaultPrecision = 10
    /// The allowed precisions, in characters.
    public static let precisionRange = 1...22
    /// Bits per base32 character.
    static let bitsPerCharacter = 5

    /// A latitude/longitude rectangle: the cell a geohash names.
    public struct Box: Equatable, Sendable {
        /// The southern edge, in degrees.
        public var minLatitude: Double
        /// The northern edge, in degrees.
        public var maxLatitude: Double
        /// The western edge, in degrees.
        public var minLongitude: Double
        /// The eastern edge, in degrees.
        public var maxLongitude: Double

        /// The middle of the box.
        public var center: (latitude: Double, longitude: Double) {
            ((minLatitude + maxLatitude) / 2, (minLongitude + maxLongitude) / 2)
        }

        /// Whether the point lies inside the box or on its border.
        public func contains(latitude: Double, longitude: Double) -> Bool {
            latitude >= minLatitude && latitude <= maxLatitude && longitude >= minLongitude
                && longitude <= maxLongitude
        }
    }

    /// The geohash of a position, `precision` characters long.
    ///
    /// The position must be finite and in range (latitude in [-90, 90], longitude in
    /// [-180, 180]); callers validate data from outside before hashing it.
    public static func encode(
        latitude: Double, longitude: Double, precision: Int = defaultPrecision
    ) -> String {
        precondition(precisionRange.contains(precision), "geohash precision must be 1...22")
        let bits = precision * bitsPerCharacter
        // Longitude takes the odd-numbered bits (first, third, ...), so it gets the extra one.
        let longitudeBits = (bits + 1) / 2
        let latitudeBits = bits / 2
        let lon = cellIndex(longitude, min: -180, max: 180, bits: longitudeBits)
        let lat = cellIndex(latitude, min: -90, max: 90, bits: latitudeBits)
        return prefix(longitudeIndex: lon, latitudeIndex: lat, bits: bits)
    }

    /// The cell a geohash names, or `nil` when the text is empty, longer than 22
    /// characters or contains a character outside GeoFire's alphabet.
    public static func decode(_ geohash: String) -> Box? {
        let bytes = Array(geohash.utf8)
        guard precisionRange.contains(bytes.count) else { return nil }
        var box = Box(minLatitude: -90, maxLatitude: 90, minLongitude: -180, maxLongitude: 180)
        var isLongitude = true
        for byte in bytes {
            guard let value = alphabetIndex(byte) else { return nil }
            for shift in stride(from: bitsPerCharacter - 1, through: 0, by: -1) {
                let bit = (value >> shift) & 1 == 1
                if isLongitude {
                    let mid = (box.minLongitude + box.maxLongitude) / 2
                    if bit { box.minLongitude = mid } else { box.maxLongitude = mid }
                } else {
                    let mid = (box.minLatitude + box.maxLatitude) / 2
                    if bit { box.minLatitude = mid } else { box.maxLatitude = mid }
                }
                isLongitude.toggle()
            }
        }
        return box
    }

    /// The middle of the cell a geohash names, and how far from it in metres any point
    /// of the cell can lie (on GeoFire's sphere); nil for text that is no geohash.
    ///
    /// The reach walks half the cell's height along a meridian, then half its width
    /// along a parallel; a degree of a parallel is never longer than a degree of a
    /// meridian, so the bound holds anywhere, poles included. Reads the bytes in place:
    /// circle queries call it once per candidate.
    package static func cellCentre(utf8 bytes: UnsafeBufferPointer<UInt8>)
        -> (latitude: Double, longitude: Double, reach: Double)?
    {
        guard precisionRange.contains(bytes.count) else { return nil }
        var longitudeIndex: UInt64 = 0
        var latitudeIndex: UInt64 = 0
        var longitudeBits = 0
        var latitudeBits = 0
        var isLongitude = true
        for byte in bytes {
            let value = alphabetValues[Int(byte)]
            guard value >= 0 else { return nil }
            for shift in stride(from: bitsPerCharacter - 1, through: 0, by: -1) {
                let bit = UInt64((value >> shift) & 1)
                if isLongitude {
                    longitudeIndex = longitudeIndex << 1 | bit
                    longitudeBits += 1
                } else {
                    latitudeIndex = latitudeIndex << 1 | bit
                    latitudeBits += 1
                }
                isLongitude.toggle()
            }
        }
        // Cell sizes are powers of two, so these products are exact.
        let longitudeHalf = 180 / Double(sign: .plus, exponent: longitudeBits, significand: 1)
        let latitudeHalf = 90 / Double(sign: .plus, exponent: latitudeBits, significand: 1)
        let longitude = -180 + (2 * Double(longitudeIndex) + 1) * longitudeHalf
        let latitude = -90 + (2 * Double(latitudeIndex) + 1) * latitudeHalf
        let metresPerDegree = Double.pi * earthRadiusMetres / 180
        return (latitude, longitude, (latitudeHalf + longitudeHalf) * metresPerDegree)
    }

    /// Each byte's value in the alphabet, -1 for bytes outside it.
    private static let alphabetValues: [Int] = {
        var values = [Int](repeating: -1, count: 256)
        for (value, byte) in alphabet.enumerated() { values[Int(byte)] = value }
        return values
    }()

    /// Whether the text is a geohash trove could have written (1–22 characters of the
    /// alphabet).
    public static func isValid(_ geohash: String) -> Bool {
        let bytes = geohash.utf8
        return precisionRange.contains(bytes.count) && bytes.allSatisfy { alphabetIndex($0) != nil }
    }

    // MARK: - Bits

    /// The position of a value among the `2^bits` cells of `[min, max]`, as GeoFire's
    /// bisection finds it (midpoint values go low).
    ///
    /// Up to 40 bits every midpoint the bisection visits is exact in a double, so the
    /// answer is the cell `(g(j), g(j+1)]` of the grid `g(j) = min + j * step`: one
    /// division finds it, and exact comparisons with the two grid points settle rounding.
    /// Deeper, the midpoints round, and only the bisection itself reproduces GeoFire.
    static func cellIndex(_ value: Double, min: Double, max: Double, bits: Int) -> UInt64 {
        guard bits <= 40 else { return bisectionIndex(value, min: min, max: max, bits: bits) }
        let cells = UInt64(1) << UInt64(bits)
        let last = Int64(cells - 1)
        let step = (max - min) / Double(cells)
        let estimate = ((value - min) / step).rounded(.up) - 1
        var j = estimate.isNaN ? 0 : Int64(Swift.max(0, Swift.min(Double(last), estimate)))
        while j > 0 && value <= min + Double(j) * step { j -= 1 }
        while j < last && value > min + Double(j + 1) * step { j += 1 }
        return UInt64(j)
    }

    /// GeoFire's bisection, step by step.
    static func bisectionIndex(_ value: Double, min: Double, max: Double, bits: Int) -> UInt64 {
        var low = min
        var high = max
        var index: UInt64 = 0
        for _ in 0..<bits {
            let mid = (low + high) / 2
            if value > mid {
                index = index << 1 | 1
                low = mid
            } else {
                index <<= 1
                high = mid
            }
        }
        return index
    }

    /// The base32 text of the first `bits` interleaved bits, padded with zero bits to a
    /// whole character.
    static func prefix(longitudeIndex: UInt64, latitudeIndex: UInt64, bits: Int) -> String {
        let characters = (bits + bitsPerCharacter - 1) / bitsPerCharacter
        if characters * bitsPerCharacter <= 64 {
            // Up to 12 characters: interleave all bits at once, then read 5 at a time.
            let interleaved =
                bits & 1 == 0
                ? spread(longitudeIndex) << 1 | spread(latitudeIndex)
                : spread(longitudeIndex) | spread(latitudeIndex) << 1
            let padded = interleaved << UInt64(characters * bitsPerCharacter - bits)
            return String(unsafeUninitializedCapacity: characters) { text in
                alphabet.withUnsafeBufferPointer { alphabet in
                    for index in 0..<characters {
                        let shift = UInt64((characters - 1 - index) * bitsPerCharacter)
                        text[index] = alphabet[Int((padded >> shift) & 0x1F)]
                    }
                    return characters
                }
            }
        }
        return bitwisePrefix(
            longitudeIndex: longitudeIndex, latitudeIndex: latitudeIndex, bits: bits)
    }

    /// `prefix` a bit at a time, for any precision.
    static func bitwisePrefix(longitudeIndex: UInt64, latitudeIndex: UInt64, bits: Int) -> String {
        let longitudeBits = (bits + 1) / 2
        let latitudeBits = bits / 2
        let characters = (bits + bitsPerCharacter - 1) / bitsPerCharacter
        // Written straight into the string's storage: a geohash of up to 15 characters is
        // a small string and needs no allocation at all (export and validate make millions).
        return String(unsafeUninitializedCapacity: characters) { text in
            alphabet.withUnsafeBufferPointer { alphabet in
                var value = 0
                var count = 0
                var written = 0
                var lonShift = longitudeBits
                var latShift = latitudeBits
                for bit in 0..<bits {
                    let set: Bool
                    if bit & 1 == 0 {
                        lonShift -= 1
                        set = (longitudeIndex >> UInt64(lonShift)) & 1 == 1
                    } else {
                        latShift -= 1
                        set = (latitudeIndex >> UInt64(latShift)) & 1 == 1
                    }
                    value = value << 1 | (set ? 1 : 0)
                    count += 1
                    if count == bitsPerCharacter {
                        text[written] = alphabet[value]
                        written += 1
                        value = 0
                        count = 0
                    }
                }
                if count > 0 {
                    text[written] = alphabet[value << (bitsPerCharacter - count)]
                    written += 1
                }
                return written
            }
        }
    }

    /// The low 32 bits of `value` moved to the even bit positions (bit i to bit 2i).
    private static func spread(_ value: UInt64) -> UInt64 {
        var x = value & 0xFFFF_FFFF
        x = (x | x << 16) & 0x0000_FFFF_0000_FFFF
        x = (x | x << 8) & 0x00FF_00FF_00FF_00FF
        x = (x | x << 4) & 0x0F0F_0F0F_0F0F_0F0F
        x = (x | x << 2) & 0x3333_3333_3333_3333
        x = (x | x << 1) & 0x5555_5555_5555_5555
        return x
    }

    static func alphabetIndex(_ byte: UInt8) -> Int? {
        // A small linear search: the alphabet has 32 entries and decoding is rare.
        alphabet.firstIndex(of: byte)
    }
}
