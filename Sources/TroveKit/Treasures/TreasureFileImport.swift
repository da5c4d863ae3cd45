import Foundation
import TroveBase
import TroveStore

/// Reads treasure files and upserts them into the workspace in one transaction.
///
/// Any row that cannot be imported stops everything (nothing is written) unless
/// `skipInvalid`, in which case it is reported and left out.
public struct TreasureFileImport {
    /// One input: a path, or standard input already saved to a file.
    public struct Source: Sendable {
        /// The file to read.
        public var path: String
        /// How messages name it (as the user typed it, or `<stdin>`).
        public var displayPath: String
        /// The folder relative image paths are resolved against.
        public var baseFolder: String
        public var format: TreasureFormat?
        /// The whole input, when it was read before the import (standard input): then
        /// `path` is not read.
        public var contents: [UInt8]?

        public init(path: String, displayPath: String, baseFolder: String, format: TreasureFormat?)
        {
            self.path = path
            self.displayPath = displayPath
            self.baseFolder = baseFolder
            self.format = format
        }

        /// Standard input, already read: it needs its format named.
        public static func standardInput(
            _ contents: [UInt8], format: TreasureFormat, baseFolder: String
        ) -> Source {
            var source = Source(
                path: "<stdin>", displayPath: "<stdin>", baseFolder: baseFolder, format: format)
            source.contents = contents
            return source
        }

        /// How `workspace` knows the file (`SourceIdentity`): its path relative to the
        /// workspace's folder, so that importing it from another folder, or in a moved or
        /// cloned project, still finds its treasures; standard input is always `<stdin>`.
        func identity(in workspace: Workspace) -> String {
            displayPath == SourceIdentity.standardInput
                ? displayPath : workspace.sourceIdentity(ofFile: path)
        }

        /// Set by the import before the file is read: `identity(in:)` of its workspace.
        var identity = SourceIdentity.standardInput
    }

    /// A treasure of a file that the file no longer holds.
    public struct Vanished: Equatable, Sendable {
        public var key: String
    }

    /// A new derived key at the position and with the image of a vanished treasure.
    public struct LikelyRename: Equatable, Sendable {
        public var oldKey: String
        public var newKey: String
        /// Where the new row is: its line, or its GeoJSON feature.
        public var location: Diagnostic.Location
    }

    /// What happened to each file.
    public struct FileResult: Sendable {
        public var displayPath: String
        public var summary: ImportSummary
        /// Treasures last imported from this file that it no longer holds, by key.
        public var vanished: [Vanished] = []
        /// Whether `vanished` were removed (with `sync`; in a dry run, would be).
        public var removed = false
        /// With `sync`, vanished treasures kept because rows of the file were skipped: a
        /// skipped row may be one of them.
        public var keptBecauseOfSkippedRows = false
        /// With `sync`, when every skipped row named its key: the keys of skipped rows that
        /// are kept (not in `vanished`), while the other treasures gone from the file go.
        public var keptForSkippedKeys: [String] = []
        /// The keys of the skipped rows, or nil when one had none (its key was to be
        /// derived, so it may be any of the vanished treasures).
        var skippedKeys: Set<String>? = []
        public var renames: [LikelyRename] = []
        /// Whether some rows had no key column value, so their keys were derived.
        public var derivedKeys = false
        /// Findings about the file as a whole (keys a column would serve better, all-digit
        /// keys, columns the last import had), each said once.
        public var warnings: [Diagnostic] = []
        /// Rows of only delimiters, skipped as blank lines are (not invalid rows).
        public var blankRecords = 0
        /// A file new to the workspace matched with one it recorded elsewhere, or the
        /// several it could be (`.new` otherwise).
        public var moved = MovedSource.new
    }

    /// Why an import stopped; nothing was written.
    public enum Failure: Error, CustomStringConvertible {
        /// The file cannot be read or parsed.
        case unreadable(TreasureFileError)
        /// A row that cannot be imported, without `--skip-invalid`.
        case invalidRow(Diagnostic)

        public var description: String {
            switch self {
            case .unreadable(let error): return error.diagnostic.compilerStyle
            case .invalidRow(let diagnostic): return diagnostic.compilerStyle
            }
        }
    }

    public var encoding: TextEncoding = .utf8
    /// Read positions as `[latitude, longitude]` (GeoJSON), the `lat` column as the
    /// longitude and `lon` as the latitude (CSV).
    public var swapCoordinates = false
    /// Keys that are all digits (geojson.io numbers its features 0, 1, 2…) are not taken:
    /// those rows are keyed by their names, as rows without a key are.
    public var ignoreNumericIDs = false
    public var skipInvalid = false
    public var dryRun = false
    /// Remove the treasures of these files that the files no longer hold.
    public var sync = false
    /// Called for each row left out with `skipInvalid`.
    public var onSkip: (Diagnostic) -> Void = { _ in }
    /// Called every so many rows, for a progress display.
    public var onProgress: (Int) -> Void = { _ in }

    public init() {}

    private struct DryRunFinished: Error {
        let results: [FileResult]
    }

    /// Imports every source into `workspace`; with `dryRun` the transaction is rolled back.
    ///
    /// - Throws: `Failure` (nothing written), `WorkspaceError`, `SQLiteError`.
    public func run(_ sources: [Source], into workspace: Workspace) throws -> [FileResult] {
        do {
            return try workspace.write {
                let results = try importAll(sources, into: workspace)
                if dryRun { throw DryRunFinished(results: results) }
                return results
            }
        } catch let finished as DryRunFinished {
            return finished.results
        }
    }

    private func importAll(_ sources: [Source], into workspace: Workspace) throws -> [FileResult] {
        let store = TreasureStore(workspace)
        // The files' rows in `sources` first: only a file the workspace knew can have
        // treasures that are gone from it, and only then are new keys worth noting for
        // the rename check.
        var sourceIDs: [Int64] = []
        var known: [Bool] = []
        var moves: [MovedSource] = []
        var sources = sources
        for index in sources.indices {
            let source = sources[index]
            let (id, wasKnown, identity, moved) = try Self.source(
                source.identity(in: workspace), of: source, in: workspace, store: store)
            // A file recorded under another identity (through a link) keeps that one.
            sources[index].identity = identity
            sourceIDs.append(id)
            known.append(wasKnown)
            moves.append(moved)
        }
        let notesNewKeys = known.contains(true)
        if notesNewKeys { try store.startNotingNewKeys() }
        let importer = try TreasureImporter(workspace: workspace)
        let keys = SharedKeyDeriver(expectedKeys: Self.expectedRows(in: sources))
        var results: [FileResult] = []
        var before = ImportSummary()
        var skipped = 0
        var rows = 0
        for (fileIndex, source) in sources.enumerated() {
            // Read only when a row of the file needs a derived key, on a connection of its
            // own: it sees the workspace as it was before this import.
            let id = sourceIDs[fileIndex]
            let path = store.database.path
            var load: (@Sendable () throws -> StoredKeys)?
            if known[fileIndex] {
                load = { try Self.storedKeys(of: id, in: TreasureStore.reader(path: path)) }
            }
            keys.begin(load)
            // One thread reads and prepares rows while this one writes them: the two
            // halves take about as long, and the machine has two cores.
            let channel = RowChannel(capacity: 8)
            let encoding = self.encoding
            let swap = swapCoordinates
            let ignoreNumericIDs = ignoreNumericIDs
            let reader = Worker {
                Self.read(
                    source, encoding: encoding, swap: swap, ignoreNumericIDs: ignoreNumericIDs,
                    keys: keys, into: channel)
            }
            // Stopped and joined on every way out, so no reading outlives the import.
            defer {
                channel.cancel()
                try? reader.wait()
            }
            let read = try receiveRows(
                from: channel, into: importer, skipped: &skipped, rows: &rows)
            let total = try importer.summary(skipped: skipped)
            let file = ImportSummary(
                new: total.new - before.new, updated: total.updated - before.updated,
                unchanged: total.unchanged - before.unchanged,
                skipped: total.skipped - before.skipped)
            var result = FileResult(displayPath: source.displayPath, summary: file)
            result.moved = moves[fileIndex]
            result.derivedKeys = read.derivedKeys
            if let columns = read.columns {
                result.warnings += try Self.rememberColumns(
                    columns, decimalComma: read.decimalComma, of: source,
                    id: sourceIDs[fileIndex], in: store)
            }
            result.warnings += read.warnings
            result.skippedKeys = read.skippedKeys
            result.blankRecords = read.blankRecords
            results.append(result)
            before = total
        }
        // Only now, with every file read: a treasure that moved to a later file of this
        // import is that file's now, not gone.
        try settleVanished(
            &results, sourceIDs: sourceIDs, known: known, keys: keys, store: store)
        try importer.finish()
        if notesNewKeys { try store.stopNotingNewKeys() }
        return results
    }

    /// What the rows of one file told besides its treasures.
    private struct FileRows {
        var derivedKeys = false
        var warnings: [Diagnostic] = []
        var blankRecords = 0
        var columns: [String]?
        var decimalComma = false
        var skippedKeys: Set<String>? = []
    }

    /// Adds the rows `channel` brings to `importer` until the file ends, counting those
    /// skipped and read.
    private func receiveRows(
        from channel: RowChannel, into importer: TreasureImporter, skipped: inout Int,
        rows: inout Int
    ) throws -> FileRows {
        var read = FileRows()
        while true {
            switch channel.receive() {
            case .rows(let batch):
                if let first = batch.invalid.first, !skipInvalid {
                    throw Failure.invalidRow(first)
                }
                try importer.add(batch.treasures)
                read.derivedKeys = read.derivedKeys || batch.derivedKeys
                read.warnings += batch.warnings
                read.blankRecords += batch.blankRecords
                if let columns = batch.columns {
                    read.columns = columns
                    read.decimalComma = batch.decimalComma
                }
                for diagnostic in batch.invalid {
                    skipped += 1
                    onSkip(diagnostic)
                    if let key = diagnostic.location.key {
                        read.skippedKeys?.insert(key)
                    } else {
                        read.skippedKeys = nil
                    }
                }
                rows += batch.treasures.count + batch.invalid.count
                onProgress(rows)
                continue
            case .failed(let error):
                throw Failure.unreadable(error)
            case .finished:
                break
            }
            break
        }
        return read
    }

    /// The `sources` row of `source`, known by `identity`: the one recorded under it, else
    /// the same file recorded under another identity (reached through a link), else the
    /// one file of that name recorded where it no longer is (taken over: the project
    /// moved), else a new one; and the identity its rows are recorded under.
    ///
    /// - Throws: `SQLiteError`.
    private static func source(
        _ identity: String, of source: Source, in workspace: Workspace, store: TreasureStore
    ) throws -> (id: Int64, known: Bool, identity: String, moved: MovedSource) {
        if let id = try store.knownSource(path: identity, name: source.displayPath) {
            return (id, true, identity, .new)
        }
        guard identity != SourceIdentity.standardInput else {
            let id = try store.source(path: identity, name: source.displayPath).id
            return (id, false, identity, .new)
        }
        let candidates = try store.sources(named: LexicalPath.fileName(source.path))
        let moved = MovedSource.match(
            file: source.path, among: candidates.map(\.path), in: workspace)
        if case .sameFile(let recorded) = moved,
            let id = try store.knownSource(path: recorded, name: source.displayPath)
        {
            return (id, true, recorded, .new)
        }
        if case .one(let recorded) = moved,
            let id = candidates.first(where: { $0.path == recorded })?.id
        {
            try store.moveSource(id, to: identity, name: source.displayPath)
            return (id, true, identity, .one(MovedSource.shown(recorded, in: workspace)))
        }
        let id = try store.source(path: identity, name: source.displayPath).id
        if case .several(let recorded) = moved {
            return (
                id, false, identity,
                .several(recorded.map { MovedSource.shown($0, in: workspace) })
            )
        }
        return (id, false, identity, .new)
    }

    /// Finds each known file's treasures that it no longer holds, the likely renames among
    /// them, and removes them with `sync`; otherwise their line is forgotten, as it now
    /// holds something else, and findings name them by key.
    private func settleVanished(
        _ results: inout [FileResult], sourceIDs: [Int64], known: [Bool],
        keys: SharedKeyDeriver, store: TreasureStore
    ) throws {
        struct Spot: Hashable {
            var source: Int64
            var lat: Double
            var lon: Double
            var image: String?
        }
        var spots: [Spot: [Int]] = [:]  // vanished treasures by place: (file index, entry)
        var entries: [(file: Int, key: String)] = []
        for (index, id) in sourceIDs.enumerated() where known[index] {
            try store.forEachTreasure(ofSource: id, skipping: keys.contains(utf8:)) { treasure in
                results[index].vanished.append(Vanished(key: treasure.key))
                let spot = Spot(
                    source: id, lat: treasure.latitude, lon: treasure.longitude,
                    image: treasure.image)
                spots[spot, default: []].append(entries.count)
                entries.append((index, treasure.key))
            }
        }
        guard !entries.isEmpty else { return }
        var matched = Set<Int>()
        try store.forEachNewlyKeyed { treasure, source in
            let spot = Spot(
                source: source ?? -1, lat: treasure.latitude, lon: treasure.longitude,
                image: treasure.image)
            guard let candidate = spots[spot]?.first(where: { !matched.contains($0) }) else {
                return
            }
            matched.insert(candidate)
            let entry = entries[candidate]
            results[entry.file].renames.append(
                LikelyRename(oldKey: entry.key, newKey: treasure.key, location: treasure.source))
        }
        for index in results.indices where !results[index].vanished.isEmpty {
            if sync && results[index].summary.skipped > 0 {
                if let keys = results[index].skippedKeys {
                    // Every skipped row named its key: only those treasures stay.
                    let all = results[index].vanished
                    results[index].keptForSkippedKeys = all.map(\.key).filter(keys.contains)
                    results[index].vanished = all.filter { !keys.contains($0.key) }
                    for key in results[index].keptForSkippedKeys { try store.forgetLine(of: key) }
                } else {
                    results[index].keptBecauseOfSkippedRows = true
                }
            }
            let removes = sync && !results[index].keptBecauseOfSkippedRows
            results[index].removed = removes
            for vanished in results[index].vanished {
                if removes {
                    try store.remove(vanished.key)
                } else {
                    try store.forgetLine(of: vanished.key)
                }
            }
        }
    }

    /// The keys, positions, images and names of the treasures last imported from the
    /// file `source`, oldest line first, so a re-read row keeps its treasure's key.
    ///
    /// - Throws: `SQLiteError`.
    static func storedKeys(of source: Int64, in store: TreasureStore) throws -> StoredKeys {
        var stored = StoredKeys()
        try store.forEachTreasureInLineOrder(ofSource: source) { treasure in
            stored.add(
                key: treasure.key, name: treasure.name, latitude: treasure.latitude,
                longitude: treasure.longitude, image: treasure.image)
        }
        return stored
    }

    /// Stores the columns a file was read with, and says which columns of its last import
    /// it no longer has (a header typo, `Points` → `Pionts`, drops the field from every
    /// record).
    ///
    /// - Throws: `SQLiteError`.
    static func rememberColumns(
        _ columns: [String], decimalComma: Bool, of source: Source, id: Int64,
        in store: TreasureStore
    ) throws -> [Diagnostic] {
        var warnings: [Diagnostic] = []
        if let stored = try store.columns(ofSource: id) {
            // Exactly: `{extra.Points}` reads nothing from a column now named `points`.
            let now = Set(columns)
            for name in stored where !now.contains(name) {
                let lineOne: Int? = source.format == .geojson ? nil : 1
                warnings.append(
                    Diagnostic(
                        .warning, DiagnosticCode.columnGone,
                        "the column '\(TreasureCheck.shown(name))' of the file's last import is "
                            + "gone" + ColumnSuggestion.text(for: name, among: columns),
                        at: .init(file: source.displayPath, line: lineOne),
                        hint: "the treasures no longer have it, and layouts write nothing "
                            + "for {extra.\(TreasureCheck.shown(name))}"))
            }
        }
        try store.setColumns(columns, decimalComma: decimalComma, ofSource: id)
        return warnings
    }

    /// About how many rows the files hold, from their sizes: a CSV row is rarely under
    /// 40 bytes, a GeoJSON Feature under 90 (its type, geometry and properties members).
    static func expectedRows(in sources: [Source]) -> Int {
        let rows = sources.reduce(0) { total, source in
            let perRow =
                (source.format ?? TreasureFormat(path: source.path)) == .geojson ? 90 : 40
            if let contents = source.contents { return total + contents.count / perRow }
            var info = stat()
            guard stat(source.path, &info) == 0 else { return total }
            return total + Int(info.st_size) / perRow
        }
        return min(rows, 50_000_000)
    }

    /// The reading half: parses `source`, derives keys and resolves images, and sends
    /// the rows in batches until the end, an unreadable file, or cancellation.
    private static func read(
        _ source: Source, encoding: TextEncoding, swap: Bool, ignoreNumericIDs: Bool,
        keys: SharedKeyDeriver, into channel: RowChannel
    ) {
        do {
            var reader =
                if let contents = source.contents, let format = source.format {
                    try TreasureReader(
                        bytes: contents, format: format, displayPath: source.displayPath,
                        encoding: encoding)
                } else {
                    try TreasureReader(
                        path: source.path, displayPath: source.displayPath, format: source.format,
                        encoding: encoding)
                }
            reader.swapCoordinates = swap
            var batch = RowBatch(file: source.displayPath, sourcePath: source.identity)
            var notes = FileNotes(file: source.displayPath)
            // Rows at a new position named like a stored treasure: keyed at the end.
            var held: [(input: TreasureInput, image: String?)] = []
            // Artwork repeats across rows: each distinct path is worked out once.
            var resolvedImages: [String: String] = [:]
            func image(of input: TreasureInput) -> String? {
                guard let raw = input.image else { return nil }
                if let known = resolvedImages[raw] { return known }
                let resolved = resolveImage(raw, in: source)
                if let resolved, resolvedImages.count < 4096 { resolvedImages[raw] = resolved }
                return resolved
            }
            func send() -> Bool {
                guard batch.treasures.count + batch.invalid.count == RowItem.batchSize else {
                    return true
                }
                guard channel.send(.rows(batch)) else { return false }
                batch = RowBatch(file: source.displayPath, sourcePath: source.identity)
                return true
            }
            func append(_ input: TreasureInput, image: String?, key: String, first: Bool) {
                notes.keyed(key, explicit: input.key != nil, input: input)
                batch.treasures.append(key: key, input: input, image: image, firstUse: first)
            }
            while let row = try reader.next() {
                switch row {
                case .treasure(var input):
                    if ignoreNumericIDs, let key = input.key, FileNotes.isAllDigits(key) {
                        input.key = nil
                    }
                    if input.key == nil { batch.derivedKeys = true }
                    let image = image(of: input)
                    if let (key, first) = try keys.keyAndFirstUse(
                        explicit: input.key, name: input.name, latitude: input.latitude,
                        longitude: input.longitude, image: image)
                    {
                        append(input, image: image, key: key, first: first)
                    } else {
                        held.append((input, image))
                    }
                case .invalid(let diagnostic):
                    batch.invalid.append(diagnostic)
                }
                guard send() else { return }
            }
            for (input, image) in held {
                let (key, first) = keys.deferred(name: input.name)
                append(input, image: image, key: key, first: first)
                guard send() else { return }
            }
            batch.warnings = reader.fileWarnings + notes.warnings()
            batch.blankRecords = reader.blankRecords
            batch.columns = reader.columnNames
            batch.decimalComma = reader.decimalComma
            if batch.treasures.count + batch.invalid.count > 0 || !batch.warnings.isEmpty
                || batch.blankRecords > 0
            {
                guard channel.send(.rows(batch)) else { return }
            }
            _ = channel.send(.finished)
        } catch {
            _ = channel.send(.failed(error))
        }
    }

    /// A relative image path becomes absolute against the file's folder; URLs stay.
    ///
    /// Worked out as text: `URL(fileURLWithPath:)` asks the file system whether each path
    /// is a folder, which cost more than the rest of a row's import.
    static func resolveImage(_ image: String?, in source: Source) -> String? {
        guard let image, !image.isEmpty else { return nil }
        let lowered = image.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") { return image }
        let folder =
            source.baseFolder.hasPrefix("/")
            ? source.baseFolder : FileManager.default.currentDirectoryPath + "/" + source.baseFolder
        return LexicalPath.resolve(image, against: folder)
    }
}

// MARK: - Between the reading and the writing thread

/// Rows on their way to the workspace: the importable ones packed, the others to report.
struct RowBatch: Sendable {
    var treasures: PackedTreasures
    var invalid: [Diagnostic] = []
    /// Whether some of the rows had their key derived from the name.
    var derivedKeys = false
    /// Said once about the whole file, in its last batch.
    var warnings: [Diagnostic] = []
    /// Rows of only delimiters the file had, in its last batch.
    var blankRecords = 0
    /// The file's columns and whether its commas are decimal commas, in its last batch.
    var columns: [String]?
    var decimalComma = false

    package init(file: String, sourcePath: String) {
        treasures = PackedTreasures(file: file, sourcePath: sourcePath)
    }
}

/// What the reading thread hands the writing one: batches of rows, then the end or the
/// reason it stopped.
enum RowItem: Sendable {
    case rows(RowBatch)
    case failed(TreasureFileError)
    case finished

    static let batchSize = 2048
}

/// Row batches in flight, at most eight, so memory stays flat whatever the file's size.
typealias RowChannel = BoundedChannel<RowItem>

/// Key derivation shared by the reading threads of one import, which run one at a time.
final class SharedKeyDeriver: @unchecked Sendable {
    private var deriver = KeyDeriver()
    private let lock = NSLock()

    package init(expectedKeys: Int = 0) {
        deriver.reserve(expectedKeys)
    }

    /// The treasures the next file gave at its last import, read by `load` when a row
    /// first needs them (a file whose rows all have keys never does).
    func begin(_ load: (@Sendable () throws -> StoredKeys)?) {
        lock.lock()
        defer { lock.unlock() }
        deriver.begin(StoredKeys())
        loader = load
    }
    private var loader: (@Sendable () throws -> StoredKeys)?

    func keyAndFirstUse(
        explicit: String?, name: String, latitude: Double, longitude: Double, image: String?
    ) throws(TreasureFileError) -> (key: String, first: Bool)? {
        lock.lock()
        defer { lock.unlock() }
        if explicit == nil, let load = loader {
            loader = nil
            do {
                deriver.begin(try load())
            } catch {
                throw TreasureFileError(
                    code: nil, message: "cannot read the keys of the file's last import: \(error)",
                    location: .init())
            }
        }
        return deriver.keyAndFirstUse(
            explicit: explicit, name: name, latitude: latitude, longitude: longitude,
            image: image)
    }

    func deferred(name: String) -> (key: String, first: Bool) {
        lock.lock()
        defer { lock.unlock() }
        return deriver.deferred(name: name)
    }

    /// Whether this import has stored a treasure under the key in `utf8`.
    package func contains(utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        let key = String(decoding: utf8, as: UTF8.self)
        lock.lock()
        defer { lock.unlock() }
        return deriver.contains(key)
    }
}
