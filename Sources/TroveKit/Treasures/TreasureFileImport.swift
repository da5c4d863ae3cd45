import Foundation

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

        public init(path: String, displayPath: String, baseFolder: String, format: TreasureFormat?)
        {
            self.path = path
            self.displayPath = displayPath
            self.baseFolder = baseFolder
            self.format = format
        }
    }

    /// What happened to each file.
    public struct FileResult: Sendable {
        public var displayPath: String
        public var summary: ImportSummary
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
    public var skipInvalid = false
    public var dryRun = false
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
        let importer = try TreasureImporter(workspace: workspace)
        let keys = SharedKeyDeriver()
        var results: [FileResult] = []
        var before = ImportSummary()
        var skipped = 0
        var rows = 0
        for source in sources {
            // One thread reads and prepares rows while this one writes them: the two
            // halves take about as long, and the machine has two cores.
            let channel = RowChannel()
            let encoding = self.encoding
            Thread.detachNewThread {
                Self.read(source, encoding: encoding, keys: keys, into: channel)
            }
            defer { channel.cancel() }
            while true {
                switch channel.receive() {
                case .rows(let batch):
                    if let first = batch.invalid.first, !skipInvalid {
                        throw Failure.invalidRow(first)
                    }
                    try importer.add(batch.treasures)
                    for diagnostic in batch.invalid {
                        skipped += 1
                        onSkip(diagnostic)
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
            let total = try importer.summary(skipped: skipped)
            let file = ImportSummary(
                new: total.new - before.new, updated: total.updated - before.updated,
                unchanged: total.unchanged - before.unchanged,
                skipped: total.skipped - before.skipped)
            results.append(FileResult(displayPath: source.displayPath, summary: file))
            before = total
        }
        return results
    }

    /// The reading half: parses `source`, derives keys and resolves images, and sends
    /// the rows in batches until the end, an unreadable file, or cancellation.
    private static func read(
        _ source: Source, encoding: TextEncoding, keys: SharedKeyDeriver, into channel: RowChannel
    ) {
        do {
            var reader = try TreasureReader(
                path: source.path, displayPath: source.displayPath, format: source.format,
                encoding: encoding)
            var batch = RowBatch(file: source.displayPath)
            while let row = try reader.next() {
                switch row {
                case .treasure(let input):
                    let key = keys.key(explicit: input.key, name: input.name)
                    batch.treasures.append(
                        key: key, input: input, image: resolveImage(input.image, in: source))
                case .invalid(let diagnostic):
                    batch.invalid.append(diagnostic)
                }
                if batch.treasures.count + batch.invalid.count == RowChannel.batchSize {
                    guard channel.send(.rows(batch)) else { return }
                    batch = RowBatch(file: source.displayPath)
                }
            }
            if batch.treasures.count + batch.invalid.count > 0 {
                guard channel.send(.rows(batch)) else { return }
            }
            _ = channel.send(.finished)
        } catch {
            _ = channel.send(.failed(error))
        }
    }

    /// A relative image path becomes absolute against the file's folder; URLs stay.
    static func resolveImage(_ image: String?, in source: Source) -> String? {
        guard let image, !image.isEmpty else { return nil }
        let lowered = image.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") { return image }
        let url =
            image.hasPrefix("/")
            ? URL(fileURLWithPath: image)
            : URL(fileURLWithPath: source.baseFolder).appendingPathComponent(image)
        return url.standardizedFileURL.path
    }
}

// MARK: - Between the reading and the writing thread

/// Rows on their way to the workspace: the importable ones packed, the others to report.
struct RowBatch: Sendable {
    var treasures: PackedTreasures
    var invalid: [Diagnostic] = []

    init(file: String) {
        treasures = PackedTreasures(file: file)
    }
}

/// A bounded queue of row batches from the reading thread to the writing one.
final class RowChannel: @unchecked Sendable {
    enum Item: Sendable {
        case rows(RowBatch)
        case failed(TreasureFileError)
        case finished
    }

    static let batchSize = 2048
    /// Batches in flight at most, so memory stays flat whatever the file's size.
    private static let capacity = 8
    private let condition = NSCondition()
    private var items: [Item] = []
    private var cancelled = false

    /// Queues `item`, waiting while the queue is full; false once the reader should stop.
    func send(_ item: Item) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while items.count >= Self.capacity && !cancelled { condition.wait() }
        if cancelled { return false }
        items.append(item)
        condition.broadcast()
        return true
    }

    /// The next item, waiting while there is none.
    func receive() -> Item {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty { condition.wait() }
        let item = items.removeFirst()  // at most `capacity` items: cheap
        condition.broadcast()
        return item
    }

    /// Tells the reader to stop; its pending batches are dropped.
    func cancel() {
        condition.lock()
        cancelled = true
        items.removeAll()
        condition.broadcast()
        condition.unlock()
    }
}

/// Key derivation shared by the reading threads of one import, which run one at a time.
final class SharedKeyDeriver: @unchecked Sendable {
    private var deriver = KeyDeriver()
    private let lock = NSLock()

    func key(explicit: String?, name: String) -> String {
        lock.lock()
        defer { lock.unlock() }
        return deriver.key(explicit: explicit, name: name)
    }
}
