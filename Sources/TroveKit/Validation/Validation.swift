import Foundation
import TroveSQLite

/// Runs `TreasureValidator` over the workspace or over files without importing them.
public enum Validation {
    /// The findings, and whether any file could not be read at all.
    public struct Report: Sendable {
        public var findings: [Diagnostic] = []
        /// Files that could not be read or parsed (exit status 3).
        public var unreadableFiles = 0

        public var errors: Int { findings.filter { $0.severity == .error }.count }
        public var warnings: Int { findings.filter { $0.severity == .warning }.count }
    }

    /// Checks every treasure in the workspace, in import order.
    ///
    /// - Throws: `SQLiteError`.
    public static func workspace(_ workspace: Workspace) throws -> Report {
        var validator = TreasureValidator(
            bounds: try workspace.setting(Setting.gameBounds.key).flatMap(GeoBounds.init),
            geohashPrecision: try workspace.geohashPrecision())
        validator.keysAreUnique = true
        let count = try workspace.database.scalar("SELECT count(*) FROM treasures")?.int64 ?? 0
        validator.reserveCapacity(Int(count))
        let statement = try workspace.database.prepare(
            """
            SELECT t.key, t.name, t.lat, t.lon, t.image, t.description, g.geohash,
                   coalesce(s.name, s.path),
                   t.source_line
            FROM treasures AS t LEFT JOIN sources AS s ON s.id = t.source
            LEFT JOIN treasure_geohashes AS g ON g.key = t.key
            ORDER BY t.source, t.source_line, t.key
            """)
        while let row = try statement.next() {
            // Lines are the ones of each treasure's last import. A treasure whose row is
            // gone from its file has no line any more, and is named by its key.
            let source = SourceLine.location(file: row.text(7), stored: row.int64(8))
            validator.add(
                TreasureRecord(
                    key: row.text(0) ?? "", name: row.text(1) ?? "",
                    latitude: row.double(2) ?? .nan, longitude: row.double(3) ?? .nan,
                    image: row.text(4), description: row.text(5), geohash: row.text(6),
                    location: source ?? Diagnostic.Location()
                ))
        }
        var findings = inFileOrder(validator.finish())
        if validator.missingGeohashes > 0 {
            let count = validator.missingGeohashes
            findings.insert(
                Diagnostic(
                    .warning, DiagnosticCode.geohashMissing,
                    "\(count) treasure\(count == 1 ? " has" : "s have") no geohash yet",
                    at: .init(), hint: "run 'trove geohash'"), at: 0)
        }
        // Said first: until it is set, no export with image URLs can succeed.
        if let missing = try MissingBucket.find(in: workspace) {
            findings.insert(
                Diagnostic(
                    .warning, DiagnosticCode.missingBucket, missing.message, at: .init(),
                    hint: MissingBucket.hint), at: 0)
        }
        return Report(findings: findings)
    }

    /// Checks files as `import treasures` would read them, without importing.
    public static func files(
        _ sources: [TreasureFileImport.Source], encoding: TextEncoding, bounds: GeoBounds?
    ) -> Report {
        var report = Report()
        var validator = TreasureValidator(bounds: bounds)
        var keys = KeyDeriver()
        for source in sources {
            do {
                var reader = try TreasureReader(
                    path: source.path, displayPath: source.displayPath, format: source.format,
                    encoding: encoding)
                while let row = try reader.next() {
                    switch row {
                    case .treasure(let input):
                        validator.add(
                            TreasureRecord(
                                key: keys.key(explicit: input.key, name: input.name),
                                name: input.name, latitude: input.latitude,
                                longitude: input.longitude,
                                image: TreasureFileImport.resolveImage(input.image, in: source),
                                description: input.description, location: input.location))
                    case .invalid(let diagnostic):
                        report.findings.append(diagnostic)
                    }
                }
                report.findings += reader.fileWarnings
            } catch {
                report.findings.append(error.diagnostic)
                report.unreadableFiles += 1
            }
        }
        report.findings = inFileOrder(report.findings + validator.finish())
        return report
    }

    /// Findings sorted by file (in the order files first appear) and line, as a compiler
    /// lists them; findings at one place keep their order.
    static func inFileOrder(_ findings: [Diagnostic]) -> [Diagnostic] {
        var fileOrder: [String: Int] = [:]
        for finding in findings {
            let file = finding.location.file ?? ""
            if fileOrder[file] == nil { fileOrder[file] = fileOrder.count }
        }
        return findings.enumerated().sorted { lhs, rhs in
            let left = lhs.element.location
            let right = rhs.element.location
            let leftKey = (fileOrder[left.file ?? ""]!, left.line ?? left.feature ?? 0, lhs.offset)
            let rightKey = (
                fileOrder[right.file ?? ""]!, right.line ?? right.feature ?? 0, rhs.offset
            )
            return leftKey < rightKey
        }.map(\.element)
    }
}
