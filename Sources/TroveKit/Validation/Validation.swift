import Foundation
import TroveBase
import TroveStore

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
        let settings = try workspace.settings()
        return JSONObject([
            "rules": rulesVersion, "game.bounds": settings.gameBounds?.text ?? "",
            "geohash.precision": settings.geohashPrecision, "strict": strict,
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
        let store = TreasureStore(workspace)
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
                    focus = TreasureValidator.Focus(
                        changed: try store.changedTreasures(since: last.seq))
                }
            }
        }
        let settings = try workspace.settings()
        var validator = TreasureValidator(
            bounds: settings.gameBounds, geohashPrecision: settings.geohashPrecision)
        validator.keysAreUnique = true
        // From the counters: counting the table reads all of it.
        let count = Int64(try StatusCounters.read(in: database).treasures)
        // With a focus, only the records compared with the reported ones are read.
        var only: [String]?
        if let changed = focus {
            let context = try FocusScan(changed, in: store)
            validator.focus = context.reported
            only = context.compared
            for file in context.files { validator.findings.register(file: file) }
            if settings.gameBounds == nil {
                validator.swappedContext = SwappedCheck(
                    positions: context.positions, count: Int(count))
            }
        } else {
            validator.reserveCapacity(Int(count))
        }
        // What only the record's own checks read is read only for those reported on.
        try store.forEachForValidation(
            keys: only, details: { validator.focus?.keys.contains($0) ?? true }
        ) { treasure in
            validator.add(treasure)
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

    /// What `--changed` reads beyond the changed treasures, found by scans of the columns
    /// compared alone: the workspace has no index by position or name, and one would cost
    /// every import more than these scans cost validate.
    private struct FocusScan {
        /// The records reported on: the changed ones, those closer than 5 m to one, and
        /// those named like one.
        var reported = TreasureValidator.Focus()
        /// The keys of every record a reported one is compared with: those closer than 5 m
        /// to one, and those named like one (the reported ones among them).
        var compared: [String] = []
        /// The files as a full validate ranks them: in the records' order, a source's
        /// records that are gone from it (no line, so no file) before its others.
        var files: [String?] = []
        /// Every position in range, in no particular order.
        var positions: [(Double, Double)] = []

        init(_ changed: TreasureValidator.Focus, in store: TreasureStore) throws {
            var sources: Set<SourcePart> = []
            var positions: [(Double, Double)] = []
            let reportedKeys = try Self.keys(near: changed, in: store) { row in
                sources.insert(SourcePart(source: row.source, gone: row.lineIsGone))
                if TreasureValidator.inRange(row.latitude, row.longitude) {
                    positions.append((row.latitude, row.longitude))
                }
            }
            self.positions = positions
            let reported = TreasureValidator.Focus(
                changed: try store.treasures(keys: reportedKeys))
            compared = try Self.keys(near: reported, in: store) { _ in }
            self.reported = TreasureValidator.Focus(keys: reported.keys)
            let names = try store.sourceNames()
            // A missing source sorts first, and a missing line first in its source.
            let ordered = sources.sorted {
                ($0.source ?? .min, $0.gone ? 0 : 1) < ($1.source ?? .min, $1.gone ? 0 : 1)
            }
            for part in ordered {
                files.append(part.gone ? nil : part.source.flatMap { names[$0] ?? nil })
            }
        }

        /// The records of one source with a line, or without one.
        private struct SourcePart: Hashable {
            var source: Int64?
            var gone: Bool
        }

        /// The keys of the records `focus` includes, in no order, from one scan that
        /// makes text of a key only for those; `each` sees every row.
        private static func keys(
            near focus: TreasureValidator.Focus, in store: TreasureStore,
            each: (TreasureStore.PositionRow) -> Void
        ) throws -> [String] {
            try store.keysOfPositions(named: Array(focus.names), keys: Array(focus.keys)) {
                row in
                each(row)
                return row.isNamed
                    || focus.isNear(latitude: row.latitude, longitude: row.longitude)
            }
        }
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
                            Treasure(
                                key: keys.key(explicit: input.key, name: input.name),
                                name: input.name, latitude: input.latitude,
                                longitude: input.longitude, description: input.description,
                                image: TreasureFileImport.resolveImage(input.image, in: source),
                                source: input.location))
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
