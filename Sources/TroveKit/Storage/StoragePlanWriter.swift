import Foundation
import TroveBase
import TroveSQLite
import TroveStore

/// Writes the Storage plan of one export as it reads it, into two files staged in the
/// export's output set, so they go into place with the tree or not at all.
///
/// One pass over the referenced objects, merged with the output's previous plan (both
/// sorted by path), decides each object's state, writes its lines straight into both
/// files and finds what is gone; memory does not grow with the number of objects. What
/// needs every object's state comes after the objects: the manifest's `delete` list is
/// its last member, and the script's header counts sit in room kept for them and
/// filled in at the end.
///
/// It runs on its own thread and read connection, beside the tree's streams; the
/// connection's snapshot is taken when the writer is made, inside the export's write
/// transaction, so it sees what the tree sees. The plan to record is encoded as it goes
/// and set aside until the export records it on its own connection.
final class StoragePlanWriter: @unchecked Sendable {
    let reader: Database
    /// The export's own connection, for what an incremental plan reads and records.
    let database: Database
    let layout: Layout
    /// The export generation the plan compares with (nil: none) and the one it makes.
    let baseGeneration: Int64?
    let newGeneration: Int64
    /// Objects the base referenced.
    let baseObjects: Int
    /// Whether every referenced object is listed, not only those that change.
    let listsAll: Bool
    /// For a plan of the records changed since this clock value only: their keys.
    package let changed: (seq: Int64, keys: [String])?
    let output: String
    let bucket: String?
    let tokens: Bool
    /// The images folder relative to the export's folder.
    package let images: String
    let manifestFile: OutputFile
    let scriptFile: OutputFile
    /// The objects' lines on their way to the two files (`handOver`).
    let manifestPending = RenderBuffer(capacity: StoragePlanWriter.pendingLimit + (1 << 12))
    let scriptPending = RenderBuffer(capacity: StoragePlanWriter.pendingLimit + (1 << 12))

    /// The plan to record, in blocks; recorded only when it differs from the base.
    let blocks = BlockSpill()
    var differs = false
    /// Paths of the previous plan that nothing references now (deleted from the record
    /// whether or not another plan holds them).
    var gone: [String] = []
    package var summary = StoragePlan.Summary()
    /// The manifest's `objects` array; its count is the objects listed in the files so far.
    var objects = JSONLineWriter(indent: "    ", closingIndent: "  ", breaksWhenEmpty: true)

    var worker: Worker<Void>?
    let cancelled = LockedValue(false)

    /// Stages the two files beside `output` in `outputs` and fixes the reading snapshot.
    ///
    /// - Throws: `FileWriteError` when the files cannot be staged, `SQLiteError`.
    package init(
        database: Database, layout: Layout, output: String, bucket: String?, tokens: Bool,
        images: String, outputs: OutputSet, baseGeneration: Int64?, baseObjects: Int,
        newGeneration: Int64, listsAll: Bool, changed: (seq: Int64, keys: [String])?
    ) throws {
        self.database = database
        self.baseGeneration = baseGeneration
        self.baseObjects = baseObjects
        self.newGeneration = newGeneration
        self.listsAll = listsAll
        self.changed = changed
        self.layout = layout
        self.output = output
        self.bucket = bucket
        self.tokens = tokens
        let folder = (output as NSString).deletingLastPathComponent
        self.images = LexicalPath.relative(images, to: folder)
        let paths = StoragePlan.paths(output: output)
        manifestFile = try outputs.stage(paths.manifest)
        scriptFile = try outputs.stage(paths.script)
        reader = try ExportStore(database).snapshot()
    }

    /// Starts writing on a thread of its own (a plan of changed records only is written
    /// at `finish`, on the export's connection).
    func start() {
        guard changed == nil else { return }
        worker = Worker { [self] in
            defer { ExportStore.endSnapshot(reader) }
            try write()
        }
    }

    /// Waits for the files to be written (not yet in place) and returns what they hold.
    ///
    /// - Throws: `FileWriteError`, `SQLiteError`, `StoragePlanError`.
    func finish() throws -> StoragePlan.Summary {
        if let changed {
            ExportStore.endSnapshot(reader)
            try writeChanges(since: changed.seq, keys: changed.keys)
            return summary
        }
        if worker == nil { start() }
        defer { worker = nil }
        try worker?.wait()
        return summary
    }

    /// Stops the writer early and waits for it, so its connection is free to close.
    func cancel() {
        guard let worker else { return }
        cancelled.withLock { $0 = true }
        _ = try? worker.wait()
        self.worker = nil
    }

    struct Cancelled: Error {}

    // MARK: - Writing

    func write() throws {
        var encoder = PlannedObjectEncoder { [blocks] in try blocks.write($0) }
        var previous = try PlannedObjectReader(
            blocks: ExportStore(reader).blocks(
                .objects, layout: layout.name, generation: baseGeneration))
        let countsAt = try writeScriptHeader()
        try writeManifestHeader()
        if !layout.renditionNames.isEmpty {
            // The objects come in path order, and so do the tokens: they are merged as both
            // are read rather than looked up object by object. Treasures' objects are
            // checked against their treasures' images much the same way (`AscendingLookup`).
            let store = ExportStore(reader)
            // Treasures' images by key.
            var images: AscendingLookup?
            let objects: Statement
            if layout.recordKind == .treasure {
                objects = try store.treasureRenditionObjects(renditionNames: layout.renditionNames)
                images = try AscendingLookup(
                    ordered: KeyOrderedTable(statement: store.treasureImages()),
                    lookup: store.treasureImage())
            } else {
                objects = try store.objects(
                    of: layout.recordKind, renditionNames: layout.renditionNames, tokens: false)
            }
            var tokenTable =
                try tokens ? KeyOrderedTable(statement: store.tokensInPathOrder()) : nil
            // Resolved once: the loop reads a million rows by index.
            let pathColumn = objects.column("path")
            let ownerColumn = images == nil ? 0 : objects.column("owner")
            let sourceColumn = images == nil ? 0 : objects.column("source")
            var last: [UInt8] = []
            while let row = try objects.next() {
                if summary.objects & 0xFFF == 0, cancelled.withLock({ $0 }) { throw Cancelled() }
                if images != nil {
                    let current = try row.withUTF8(ownerColumn) { owner in
                        try row.withUTF8(sourceColumn) { source in
                            try images!.withValue(of: owner) {
                                $0.map { compareBytes($0, source) == 0 } ?? false
                            }
                        }
                    }
                    // A rendition of an image its treasure no longer has is no object.
                    guard current == true else { continue }
                }
                try row.withUTF8(pathColumn) { path in
                    // A path shared by several renditions is one object.
                    if summary.objects > 0 && last.elementsEqual(path) { return }
                    last.removeAll(keepingCapacity: true)
                    last.append(contentsOf: path)
                    // Previous paths before this one are gone.
                    while !previous.isAtEnd
                        && previous.path.withUnsafeBufferPointer({ compareBytes($0, path) }) < 0
                    {
                        gone.append(String(decoding: previous.path, as: UTF8.self))
                        try previous.advance()
                    }
                    // Valid until the token statement steps again, at a later path.
                    var token: UnsafeBufferPointer<UInt8>?
                    if try tokenTable?.seek(path) == true {
                        token = tokenTable?.statement.withUTF8(1) { $0 }
                    }
                    var state = StoragePlan.State.new
                    if !previous.isAtEnd
                        && previous.path.withUnsafeBufferPointer({ compareBytes($0, path) }) == 0
                    {
                        let same =
                            switch (previous.token, token) {
                            case (nil, nil): true
                            case (let old?, let new?): old.elementsEqual(new)
                            default: false
                            }
                        state = same ? .unchanged : .rotated
                        try previous.advance()
                    }
                    try encoder.append(path: path, token: token)
                    summary.objects += 1
                    if listsAll || state != .unchanged {
                        try writeObject(path: path, token: token, state: state)
                    }
                }
            }
        }
        while !previous.isAtEnd {
            gone.append(String(decoding: previous.path, as: UTF8.self))
            try previous.advance()
        }
        try encoder.finish()
        let deletions = try deletions()
        summary.deletions = deletions.count
        differs = summary.new + summary.rotated > 0 || !gone.isEmpty || baseGeneration == nil
        try writeManifestEnd(deletions: deletions)
        try writeScriptEnd(deletions: deletions, countsAt: countsAt)
    }

    /// The gone paths that no other layout's last export references, in order.
    func deletions(on connection: Database? = nil) throws -> [String] {
        guard !gone.isEmpty else { return [] }
        let connection = connection ?? reader
        let store = ExportStore(connection)
        var candidates = Set(gone)
        let others = try store.latestObjectGenerations(besides: layout.name)
        for (other, generation) in others where !candidates.isEmpty {
            if gone.count > 64 {
                // Many gone: one pass over the other's objects.
                var reader = try PlannedObjectReader(
                    blocks: store.blocks(.objects, layout: other, generation: generation))
                while !reader.isAtEnd && !candidates.isEmpty {
                    candidates.remove(String(decoding: reader.path, as: UTF8.self))
                    try reader.advance()
                }
            } else {
                // A few: each looked up in the block it would be in.
                let index = try store.index(.objects, layout: other, generation: generation)
                for path in candidates.sorted() {
                    if try Self.holds(Array(path.utf8), index: index, store: store) {
                        candidates.remove(path)
                    }
                }
            }
        }
        return gone.filter { candidates.contains($0) }
    }

    /// Whether the objects of `index` hold `path`.
    static func holds(_ path: [UInt8], index: [StateBlockReference], store: ExportStore)
        throws -> Bool
    {
        guard !index.isEmpty else { return false }
        let position = StatePatcher.blockIndex(
            of: path, in: index, compare: StoragePlan.compareBytes)
        let bytes = try store.block(index[position].block) ?? []
        var reader = try PlannedObjectReader(block: bytes)
        while !reader.isAtEnd {
            if reader.path == path { return true }
            try reader.advance()
        }
        return false
    }

    // MARK: - A plan of the changed records

    /// The objects of the records changed since clock value `seq`, merged into the base's
    /// objects: the few blocks they fall in are rewritten, the others shared. Runs on the
    /// export's connection, inside its transaction.
    func writeChanges(since seq: Int64, keys: [String]) throws {
        let countsAt = try writeScriptHeader()
        try writeManifestHeader()
        let store = ExportStore(database)
        let index = try store.index(.objects, layout: layout.name, generation: baseGeneration)
        let insert = try store.indexWriter(
            .objects, layout: layout.name, generation: newGeneration)
        var total = baseObjects
        try StoragePlan.mergeChangedObjects(
            layout: layout, tokens: tokens, since: seq, keys: keys, into: index,
            database: database,
            store: insert
        ) { path, old, new in
            guard let new else {
                total -= 1
                gone.append(String(decoding: path, as: UTF8.self))
                return
            }
            if old == nil { total += 1 }
            let token = StoragePlan.token(inPayload: new)
            try path.withUnsafeBufferPointer { path in
                try Self.withOptional(token) { token in
                    try writeObject(
                        path: path, token: token, state: old == nil ? .new : .rotated)
                }
            }
        }
        // Counted as referenced, listed as changed.
        summary.objects = total
        let deletions = try deletions(on: database)
        summary.deletions = deletions.count
        try writeManifestEnd(deletions: deletions)
        try writeScriptEnd(deletions: deletions, countsAt: countsAt)
    }

    // MARK: - Recording

    /// Makes the written plan the output's last, for the next plan to compare with; a
    /// plan equal to the last is not written again.
    ///
    /// - Throws: `SQLiteError`, `FileWriteError`.
    func record(in database: Database) throws {
        // A plan of changed records recorded its objects as it went.
        guard changed == nil else { return }
        let store = ExportStore(database)
        if !differs, let baseGeneration {
            // The same objects as the base: its blocks are shared.
            try store.shareObjects(layout: layout.name, from: baseGeneration, to: newGeneration)
            return
        }
        let insert = try store.blockWriter(
            .objects, layout: layout.name, generation: newGeneration)
        var seq: Int64 = 0
        try blocks.forEach { block in
            try insert(seq, block)
            seq += 1
        }
    }
}

/// Byte order, as SQLite's BINARY collation sorts text.
private func compareBytes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>)
    -> Int
{
    let common = min(a.count, b.count)
    if common > 0 {
        let order = memcmp(a.baseAddress!, b.baseAddress!, common)
        if order != 0 { return Int(order) }
    }
    return a.count - b.count
}
