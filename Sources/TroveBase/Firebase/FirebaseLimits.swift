/// The Realtime Database limits an export is checked against before anything is written.
///
/// See <https://firebase.google.com/docs/database/usage/limits>.
public enum FirebaseLimits {
    /// A key may hold at most this many bytes of UTF-8.
    public static let maximumKeyBytes = 768
    /// A path may not reach this many levels.
    public static let maximumDepth = 32
    /// A string value may hold at most this many bytes of UTF-8.
    public static let maximumStringBytes = 10 * 1024 * 1024

    /// Whether Firebase reads an object with these keys back as an array: every key is
    /// a non-negative 32-bit integer without leading zeros, and more than half of the
    /// indices from 0 to the largest are present.
    public static func looksLikeArray(_ keys: some Collection<String>) -> Bool {
        var tracker = ArrayLikeKeys()
        for key in keys {
            var key = key
            key.withUTF8 { tracker.add($0) }
        }
        return tracker.looksLikeArray
    }
}

/// Follows the keys of one object as they are written, to tell whether Firebase would
/// turn it into an array.
package struct ArrayLikeKeys {
    private(set) var count = 0
    private var allIndices = true
    private var largest: Int64 = -1
    /// The first few keys, for the message.
    package private(set) var examples: [String] = []

    package init() {}

    package mutating func add(_ key: UnsafeBufferPointer<UInt8>) {
        count += 1
        guard allIndices else { return }
        guard let index = Self.index(key) else {
            allIndices = false
            examples = []
            return
        }
        largest = max(largest, index)
        if examples.count < 3 { examples.append(String(decoding: key, as: UTF8.self)) }
    }

    package var looksLikeArray: Bool {
        allIndices && count > 0 && Int64(count) * 2 > largest + 1
    }

    private static func index(_ key: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard !key.isEmpty, key.count <= 10 else { return nil }
        if key.count > 1 && key[0] == UInt8(ascii: "0") { return nil }
        var value: Int64 = 0
        for byte in key {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        return value <= Int64(Int32.max) ? value : nil
    }
}
