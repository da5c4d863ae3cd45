import Foundation

/// Damerau-free Levenshtein distance, enough for typos in command and column names.
public func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous = Array(0...b.count)
    var current = Array(repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            let cost = a[i - 1] == b[j - 1] ? 0 : 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
        }
        swap(&previous, &current)
    }
    return previous[b.count]
}

/// Column names as data has them, for "did you mean" in findings about names a layout
/// or an import expected.
package enum ColumnSuggestion {
    /// ` (did you mean 'state'? the case differs)`, ` (did you mean 'city'?)`, or nothing
    /// when no name is close.
    package static func text(for name: String, among names: [String]) -> String {
        if let same = names.first(where: { $0 != name && $0.lowercased() == name.lowercased() }) {
            return "; did you mean '\(same)'? (only the case differs)"
        }
        let scored = names.map { ($0, editDistance(name.lowercased(), $0.lowercased())) }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return "" }
        guard best.1 <= max(2, name.count / 3) else { return "" }
        return "; did you mean '\(best.0)'?"
    }
}

/// A "did you mean" for a file that is missing only because of the case of its name: what
/// a designer on macOS (whose disks ignore case) wrote works there and fails on Linux.
public enum PathSuggestion {
    /// `; did you mean 'rossio.jpg'? (only the case differs)` when the missing file's folder
    /// holds a file whose name equals its name ignoring case, or nothing.
    public static func caseOnly(for path: String) -> String {
        let folder = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        guard !name.isEmpty,
            let names = try? FileManager.default.contentsOfDirectory(
                atPath: folder.isEmpty ? "." : folder)
        else { return "" }
        let lowered = name.lowercased()
        guard let same = names.sorted().first(where: { $0 != name && $0.lowercased() == lowered })
        else { return "" }
        return "; did you mean '\(same)'? (only the case differs)"
    }
}
