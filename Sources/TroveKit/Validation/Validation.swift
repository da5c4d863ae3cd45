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
        /// Of a workspace: how many treasures were checked, of how many.
        public internal(set) var checked = 0
        public internal(set) var total = 0
        /// Of `--changed`: why every treasure was checked, when it was.
        public internal(set) var everythingBecause: String?
        /// Of a workspace: the change clock and the inputs the findings stand for, to
        /// record when they pass (`record(_:in:)`).
        var clock: Int64?
        var inputs = ""

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

    /// The name validate's clock value is recorded under in `change_consumers`.
    static let consumerName = "validate"
    /// Bumped whenever a check is added or changes, so that the first `--changed` after
    /// an upgrade checks everything.
    static let rulesVersion = 1

    /// What a workspace's findings depend on besides its treasures: the rules, the
    /// settings they read, and whether warnings fail.
    static func inputs(of workspace: Workspace, strict: Bool) throws -> String {
        let bounds = try workspace.setting(Setting.gameBounds.key) ?? ""
        return JSONObject([
            "rules": rulesVersion, "game.bounds": bounds,
            "geohash.precision": try workspace.geohashPrecision(), "strict": strict,
        ]).compactJSONText
    }

    /// Checks every treasure in the workspace, in import order; with `changedOnly`, only
    /// those changed since the last validate that passed, with their neighbours (see
    /// `TreasureValidator.Focus`), and every treasure when that cannot be told.
    ///
    /// The checks across records (near-duplicates, duplicate names, swapped
    /// coordinates) compare the reported records with every other, so a finding on a
    /// reported record is the one a full validate reports.
    ///
    /// - Throws: `SQLiteError`, `WorkspaceError`.
    public static func workspace(
        _ workspace: Workspace, changedOnly: Bool = false, strict: Bool = false
    ) throws -> Report {
        try workspace.read {
            try check(workspace, changedOnly: changedOnly, strict: strict)
        }
    }

    /// Records `report`'s clock value as the last validate's, when it passed.
    ///
    /// - Throws: `WorkspaceError`, `SQLiteError`.
    public static func record(_ report: Report, in workspace: Workspace) throws {
        guard let clock = report.clock else { return }
        try workspace.write {
            try ChangeLog.recordConsumer(
                consumerName, inputs: report.inputs, at: clock, in: workspace.database)
        }
    }

    private static func check(_ workspace: Workspace, changedOnly: Bool, strict: Bool) throws
        -> Report
    {
        let database = workspace.database
        let clock = try ChangeLog.clock(in: database)
        let inputs = try inputs(of: workspace, strict: strict)
        var focus: TreasureValidator.Focus?
        var everythingBecause: String?
        if changedOnly {
            let last = try ChangeLog.consumer(consumerName, in: database)
            switch try ChangeLog.changes(of: .treasure, since: last?.seq, in: database) {
            case .everything(let reason):
                everythingBecause =
                    last == nil ? "no validate has passed on this workspace yet" : reason
            case .keys:
                if let last, last.inputs != inputs {
                    everythingBecause =
                        "the rules, game.bounds, geohash.precision or --strict changed since "
                        + "the last validate"
                } else if let last {
                    focus = try changedRecords(since: last.seq, in: database)
                }
            }
        }
        var validator = TreasureValidator(
            bounds: try workspace.setting(Setting.gameBounds.key).flatMap(GeoBounds.init),
            geohashPrecision: try workspace.geohashPrecision())
        validator.keysAreUnique = true
        validator.focus = focus
        let count = try database.scalar("SELECT count(*) FROM treasures")?.int64 ?? 0
        validator.reserveCapacity(Int(count))
        let statement = try database.prepare(
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
            let key = row.text(0) ?? ""
            let name = row.text(1) ?? ""
            let latitude = row.double(2) ?? .nan
            let longitude = row.double(3) ?? .nan
            // What only the record's own checks read is read only for those reported on.
            let reported =
                focus?.includes(key: key, name: name, latitude: latitude, longitude: longitude)
                ?? true
            validator.add(
                TreasureRecord(
                    key: key, name: name, latitude: latitude, longitude: longitude,
                    image: reported ? row.text(4) : nil,
                    description: reported ? row.text(5) : nil,
                    geohash: reported ? row.text(6) : nil,
                    location: source ?? Diagnostic.Location()
                ))
        }
        validator.finish()
        var report = Report(validator.findings)
        report.checked = validator.checked
        report.total = Int(count)
        report.everythingBecause = everythingBecause
        report.clock = clock
        report.inputs = inputs
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

    /// The treasures changed after clock value `seq` that still exist (a deleted one has
    /// no position left to find neighbours by).
    private static func changedRecords(since seq: Int64, in database: Database) throws
        -> TreasureValidator.Focus
    {
        var focus = TreasureValidator.Focus()
        let statement = try database.prepare(
            "SELECT key, name, lat, lon FROM treasures WHERE key IN ("
                + ChangeLog.changedKeysSQL + ")")
        try statement.bind([.text(RecordKind.treasure.rawValue), .integer(seq)])
        while let row = try statement.next() {
            focus.add(
                key: row.text(0) ?? "", name: row.text(1) ?? "",
                latitude: row.double(2) ?? .nan, longitude: row.double(3) ?? .nan)
        }
        return focus
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
