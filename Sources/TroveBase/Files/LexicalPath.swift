/// Absolute paths worked on as text: normalised, related to a folder and resolved against
/// one, without asking the file system (a file that is gone or not yet made has a path
/// too). `..` takes away the component before it, as `URL.standardized` does.
package enum LexicalPath {
    /// The components of absolute `path` with empty ones and `.` dropped and each `..`
    /// applied; `..` above the root stays at the root.
    package static func components(_ path: String) -> [Substring] {
        var result: [Substring] = []
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            switch component {
            case ".": continue
            case "..": _ = result.popLast()
            default: result.append(component)
            }
        }
        return result
    }

    /// Absolute `path` normalised: `/a/./b/../c` is `/a/c`.
    package static func normalized(_ path: String) -> String {
        if isNormalized(path) { return path }
        return "/" + components(path).joined(separator: "/")
    }

    /// Whether absolute `path` is normalised already: no empty, `.` or `..` component and
    /// no slash at the end. Most paths are, and a look at their bytes is enough.
    static func isNormalized(_ path: String) -> Bool {
        var utf8 = path.utf8.makeIterator()
        guard utf8.next() == UInt8(ascii: "/") else { return false }
        // The bytes of the current component so far: 0, 1 or 2 dots, or 3 for anything else.
        var dots = 0
        var length = 0
        while let byte = utf8.next() {
            if byte == UInt8(ascii: "/") {
                if length == 0 || dots == length { return false }
                dots = 0
                length = 0
            } else {
                if byte == UInt8(ascii: ".") && dots == length && length < 2 { dots += 1 }
                length += 1
            }
        }
        return path == "/" || (length > 0 && !(dots == length && length <= 2))
    }

    /// Absolute `path` relative to absolute `folder`: `data/t.csv`, or `../other/t.csv`
    /// when it is outside; `.` for the folder itself.
    package static func relative(_ path: String, to folder: String) -> String {
        let target = components(path)
        let base = components(folder)
        var shared = 0
        while shared < min(target.count, base.count) && target[shared] == base[shared] {
            shared += 1
        }
        let parts =
            Array(repeating: Substring(".."), count: base.count - shared) + target[shared...]
        return parts.isEmpty ? "." : parts.joined(separator: "/")
    }

    /// `path` resolved against absolute `folder` and normalised (an absolute `path` is
    /// only normalised).
    package static func resolve(_ path: String, against folder: String) -> String {
        normalized(path.hasPrefix("/") ? path : folder + "/" + path)
    }

    /// The last component of `path`: its file name.
    package static func fileName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}
