/// The one rule for Realtime Database keys, for every key trove checks: treasure keys
/// and post ids as they are read, layout paths' literal segments and every rendered path.
///
/// See <https://firebase.google.com/docs/database/usage/limits>.
public enum FirebaseKey {
    /// Why `key` cannot be a database key, or nil when it can.
    public static func problem(_ key: String) -> String? {
        var key = key
        return key.withUTF8 { problem(bytes: $0) }
    }

    /// Why the UTF-8 `bytes` cannot be a database key, or nil when they can.
    package static func problem(bytes: UnsafeBufferPointer<UInt8>) -> String? {
        if bytes.isEmpty { return "is empty" }
        if bytes.count > FirebaseLimits.maximumKeyBytes {
            return "is \(bytes.count) bytes long; Firebase allows \(FirebaseLimits.maximumKeyBytes)"
        }
        // Every forbidden character is ASCII, so the UTF-8 bytes tell.
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "."), UInt8(ascii: "$"), UInt8(ascii: "#"), UInt8(ascii: "["),
                UInt8(ascii: "]"), UInt8(ascii: "/"):
                return "contains '\(Character(Unicode.Scalar(byte)))', which Firebase forbids "
                    + "in keys (. $ # [ ] /)"
            case 0..<0x20, 0x7F:
                return "contains a control character, which Firebase forbids in keys"
            default: continue
            }
        }
        return nil
    }
}
