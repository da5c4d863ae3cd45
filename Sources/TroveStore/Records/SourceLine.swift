import TroveBase

/// Where a treasure's row sits in its file, as the `source_line` column of `treasures`
/// holds it.
///
/// A CSV row or a line of newline-delimited GeoJSON has a line (1 and up). A feature of a
/// GeoJSON FeatureCollection has no line of its own and is named by its 0-based index; it
/// is stored as `-1 - index`, so the one column tells the two apart.
enum SourceLine {
    package static func stored(_ location: Diagnostic.Location) -> Int64? {
        if let line = location.line { return Int64(line) }
        return location.feature.map { -1 - Int64($0) }
    }

    /// The location `stored` means in `file`; nil when the row is gone from it.
    package static func location(file: String?, stored: Int64?) -> Diagnostic.Location? {
        guard let stored else { return nil }
        return stored >= 0
            ? Diagnostic.Location(file: file, line: Int(stored))
            : Diagnostic.Location(file: file, feature: Int(-1 - stored))
    }
}
