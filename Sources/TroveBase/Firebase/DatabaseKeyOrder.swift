/// The order the Realtime Database gives keys (`orderBy="$key"`): keys that read as
/// 32-bit integers first, by value (the shorter text first when equal), then the others
/// by UTF-16 code unit.
package enum DatabaseKeyOrder {
    package static func integer(_ key: String) -> Int64? {
        let digits = key.hasPrefix("-") ? key.dropFirst() : Substring(key)
        guard !digits.isEmpty, key.utf8.count <= 11,
            digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
            let value = Int64(key), value >= Int64(Int32.min), value <= Int64(Int32.max)
        else { return nil }
        return value
    }

    /// Whether `a` comes before `b`.
    package static func precedes(_ a: String, _ b: String) -> Bool {
        switch (integer(a), integer(b)) {
        case let (x?, y?): return x != y ? x < y : a.utf8.count < b.utf8.count
        case (_?, nil): return true
        case (nil, _?): return false
        case (nil, nil): return a.utf16.lexicographicallyPrecedes(b.utf16)
        }
    }

    /// The first key after `key` that a page may start at, to step over a record too
    /// large to read: the next integer, or the text with the smallest character a key
    /// may hold (a space) after it.
    package static func successor(_ key: String) -> String {
        if let value = integer(key), value < Int64(Int32.max) { return String(value + 1) }
        return key + " "
    }
}
