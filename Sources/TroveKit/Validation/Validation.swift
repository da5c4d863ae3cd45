import Foundation
import TroveSQLite

/// Runs `TreasureValidator` over the workspace or over files without importing them.
public enum Validation {
    /// The findings, and whether any file could not be read at all.
    ///
    /// Findings about the workspace as a whole come first, then the records' in compiler
    /// order (`OrderedFindings`: not held in memory), then any appended.
    public struct Report {
        private var leading: [Diagnostic] = []
        private var ordered: OrderedFindings
        private var trailing: [Diagnostic] = []
        /// Files that could not be read or parsed (exit status 3).
        public var unreadableFiles = 0

        init(_ ordered: OrderedFindings) {
            self.ordered = ordered
        }

        public var errors: Int {
            ordered.errors + (leading + trailing).filter { $0.severity == .error }.count
        }
        public var warnings: Int {
            ordered.warnings + (leading + trailing).filter { $0.severity == .warning }.count
        }

        /// Adds findings after all the others.
        public mutating func append(_ findings: [Diagnostic]) {
            trailing += findings
        }

        mutating func insertFirst(_ finding: Diagnostic) {
            leading.insert(finding, at: 0)
        }

        /// Calls `body` with each finding in order. The report is read once: a second
        /// call sees only the findings said first and last.
        ///
        /// - Throws: what `body` throws, or `SpillError` when findings set aside in a
        ///   temporary file cannot be read back.
        public func forEach(_ body: (Diagnostic) throws -> Void) throws {
            for finding in leading { try body(finding) }
            try ordered.drain(body)
            for finding in trailing { try body(finding) }
        }

        /// Every finding, in order, in memory: for tests and small reports.
        public func collected() throws -> [Diagnostic] {
            var findings: [Diagnostic] = []
            try forEach { findings.append($0) }
            return findings
        }
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
        validator.finish()
        var report = Report(validator.findings)
        if validator.missingGeohashes > 0 {
            let count = validator.missingGeohashes
            report.insertFirst(
                Diagnostic(
                    .warning, DiagnosticCode.geohashMissing,
                    "\(count) treasure\(count == 1 ? " has" : "s have") no geohash yet",
                    at: .init(), hint: "run 'trove geohash'"))
        }
        // Said first: until it is set, no export with image URLs can succeed.
        if let missing = try MissingBucket.find(in: workspace) {
            report.insertFirst(
                Diagnostic(
                    .warning, DiagnosticCode.missingBucket, missing.message, at: .init(),
                    hint: MissingBucket.hint))
        }
        return report
    }

    /// Checks files as `import treasures` would read them, without importing.
    public static func files(
        _ sources: [TreasureFileImport.Source], encoding: TextEncoding, bounds: GeoBounds?
    ) -> Report {
        var validator = TreasureValidator(bounds: bounds)
        let findings = validator.findings
        var report = Report(findings)
        var keys = KeyDeriver()
        for source in sources {
            // Files rank in the order given, before anything is found in them.
            findings.register(file: source.displayPath)
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
                        findings.add(diagnostic, asRead: true)
                    }
                }
                for warning in reader.fileWarnings { findings.add(warning, asRead: true) }
            } catch {
                findings.add(error.diagnostic, asRead: true)
                report.unreadableFiles += 1
            }
        }
        validator.finish()
        return report
    }
}
