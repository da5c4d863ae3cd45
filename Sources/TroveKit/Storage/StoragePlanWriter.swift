import Foundation
import TroveSQLite

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
    private let reader: Database
    /// The export's own connection, for what an incremental plan reads and records.
    private let database: Database
    private let layout: Layout
    /// The export generation the plan compares with (nil: none) and the one it makes.
    private let baseGeneration: Int64?
    private let newGeneration: Int64
    /// Objects the base referenced.
    private let baseObjects: Int
    /// Whether every referenced object is listed, not only those that change.
    private let listsAll: Bool
    /// For a plan of the records changed since this clock value only: their keys.
    private let changed: (seq: Int64, keys: [String])?
    private let output: String
    private let bucket: String?
    private let tokens: Bool
    /// The images folder relative to the export's folder.
    private let images: String
    let manifestFile: OutputFile
    let scriptFile: OutputFile

    /// The plan to record, in blocks; recorded only when it differs from the base.
    private let blocks = BlockSpill()
    private var differs = false
    /// Paths of the previous plan that nothing references now (deleted from the record
    /// whether or not another plan holds them).
    private var gone: [String] = []
    private var summary = StoragePlan.Summary()
    /// The manifest's `objects` array; its count is the objects listed in the files so far.
    private var objects = JSONLineWriter(indent: "    ", closingIndent: "  ", breaksWhenEmpty: true)

    private var worker: Worker<Void>?
    private let cancelled = LockedValue(false)

    /// Stages the two files beside `output` in `outputs` and fixes the reading snapshot.
    ///
    /// - Throws: `FileWriteError` when the files cannot be staged, `SQLiteError`.
    init(
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
        self.images = StoragePlan.relativePath(from: folder, to: images)
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

    private struct Cancelled: Error {}

    // MARK: - Writing

    private func write() throws {
        var encoder = PlannedObjectEncoder { [blocks] in try blocks.write($0) }
        var previous = try PlannedObjectReader(
            blocks: ExportStore(reader).blocks(
                .objects, layout: layout.name, generation: baseGeneration))
        let countsAt = try writeScriptHeader()
        try writeManifestHeader()
        var manifestLine: [UInt8] = []
        var scriptLine: [UInt8] = []
        manifestLine.reserveCapacity(512)
        scriptLine.reserveCapacity(512)
        if !layout.renditionNames.isEmpty {
            let objects = try ExportStore(reader).objects(layout: layout, tokens: tokens)
            // Resolved once: the loop reads a million rows by index.
            let pathColumn = objects.column("path")
            let tokenColumn = objects.column("token")
            var last: [UInt8] = []
            while let row = try objects.next() {
                if summary.objects & 0xFFF == 0, cancelled.withLock({ $0 }) { throw Cancelled() }
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
                    let token = row.withUTF8(tokenColumn) { $0 }
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
                        try writeObject(
                            path: path, token: token, state: state, manifestLine: &manifestLine,
                            scriptLine: &scriptLine)
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
    private func deletions(on connection: Database? = nil) throws -> [String] {
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
    private static func holds(_ path: [UInt8], index: [StateBlockReference], store: ExportStore)
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
    private func writeChanges(since seq: Int64, keys: [String]) throws {
        let countsAt = try writeScriptHeader()
        try writeManifestHeader()
        let store = ExportStore(database)
        let index = try store.index(.objects, layout: layout.name, generation: baseGeneration)
        let insert = try store.indexWriter(
            .objects, layout: layout.name, generation: newGeneration)
        var manifestLine: [UInt8] = []
        var scriptLine: [UInt8] = []
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
                        path: path, token: token, state: old == nil ? .new : .rotated,
                        manifestLine: &manifestLine, scriptLine: &scriptLine)
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

    private static func withOptional<T>(
        _ bytes: [UInt8]?, _ body: (UnsafeBufferPointer<UInt8>?) throws -> T
    ) rethrows -> T {
        guard let bytes else { return try body(nil) }
        return try bytes.withUnsafeBufferPointer { try body($0) }
    }

    private func writeObject(
        path: UnsafeBufferPointer<UInt8>, token: UnsafeBufferPointer<UInt8>?,
        state: StoragePlan.State, manifestLine line: inout [UInt8], scriptLine: inout [UInt8]
    ) throws {
        let contentType = StoragePlan.contentType(of: path)
        // {"contentType": …, "metadata": {…}, "path": …, "state": …}, one a line.
        line.removeAll(keepingCapacity: true)
        objects.appendNext(to: &line)
        line.append(contentsOf: "{\"contentType\": \"".utf8)
        line.append(contentsOf: contentType)
        line.append(contentsOf: "\", \"metadata\": ".utf8)
        if let token {
            line.append(contentsOf: Self.tokenMember)
            JSONText.appendString(bytes: token, to: &line)
            line.append(UInt8(ascii: "}"))
        } else {
            line.append(contentsOf: "{}".utf8)
        }
        line.append(contentsOf: ", \"path\": ".utf8)
        JSONText.appendString(bytes: path, to: &line)
        line.append(contentsOf: ", \"state\": \"".utf8)
        line.append(contentsOf: Self.stateNames[state.index])
        line.append(contentsOf: "\"}".utf8)
        try manifestFile.write(line)
        switch state {
        case .new: summary.new += 1
        case .rotated: summary.rotated += 1
        case .unchanged: break
        }

        // o STATE 'PATH' TYPE ['TOKEN']
        scriptLine.removeAll(keepingCapacity: true)
        scriptLine.append(contentsOf: "    o ".utf8)
        scriptLine.append(contentsOf: Self.stateNames[state.index])
        scriptLine.append(UInt8(ascii: " "))
        ShellQuoting.append(path, to: &scriptLine)
        scriptLine.append(UInt8(ascii: " "))
        scriptLine.append(contentsOf: contentType)
        if let token {
            scriptLine.append(UInt8(ascii: " "))
            ShellQuoting.append(token, to: &scriptLine)
        }
        scriptLine.append(UInt8(ascii: "\n"))
        try scriptFile.write(scriptLine)
    }

    private static let tokenMember = Array("{\"\(StoragePlan.tokenMetadataKey)\": ".utf8)
    private static let stateNames = [StoragePlan.State.new, .rotated, .unchanged].map {
        Array($0.rawValue.utf8)
    }

    /// The JSON manifest up to its objects. Its `delete` list, known only once every object
    /// was read, is its last member.
    private func writeManifestHeader() throws {
        let string = JSONText.quoted
        let lines = [
            "{",
            "  \"bucket\": \(bucket.map(string) ?? "null"),",
            "  \"cacheControl\": \(string(StoragePlan.cacheControl)),",
            "  \"images\": \(string(images)),",
            "  \"layout\": \(string(layout.name)),",
            // Without it, unchanged objects are counted but not listed.
            "  \"listsEveryObject\": \(listsAll),",
            "  \"objects\": " + objects.opening,
        ]
        try manifestFile.write(lines.joined(separator: "\n"))
    }

    private func writeManifestEnd(deletions: [String]) throws {
        try manifestFile.write(objects.closing + ",\n")
        try manifestFile.write("  \"delete\": " + deletions.jsonText + "\n}\n")
    }

    /// Room for the header lines that count objects, filled in at the end.
    private static let countsRoom = 600

    /// The `gcloud storage` script up to its objects; returns where the counts go.
    private func writeScriptHeader() throws -> Int {
        let quoted = ShellQuoting.quoted
        let export = (output as NSString).lastPathComponent
        // A commit journal beside the export means its files are not all in place yet.
        let journal = (CommitJournal.path(for: output) as NSString).lastPathComponent
        // Names come from the command line and the layout: they appear only single-quoted
        // in assignments, never in a comment (a line break would end it) or in double
        // quotes (where `$(…)` and backticks run).
        let script = ((export as NSString).deletingPathExtension) + ".storage.sh"
        let usage = ShellQuoting.word(script)
        try scriptFile.write(
            [
                "#!/bin/sh",
                "# Firebase Storage plan for the export EXPORT names (with layout LAYOUT), written"
                    + " by trove export.",
                "#",
                "#   sh " + (usage.contains(where: \.isNewline) ? "THIS-FILE" : usage) + " upload",
                "",
            ].joined(separator: "\n"))
        let countsAt = try scriptFile.reserve(Self.countsRoom)
        let lines = [
            "# GCLOUD names the gcloud command; IMAGES the images folder (relative to this file).",
            "set -eu",
            "EXPORT=" + quoted(export),
            "LAYOUT=" + quoted(layout.name),
            "cd \"$(dirname \"$0\")\"",
            "if [ -e \(quoted(journal)) ]; then",
            "    echo \"$0: the export to $EXPORT was interrupted while its files went into"
                + " place; run it again\" >&2",
            "    exit 1",
            "fi",
            "GCLOUD=\"${GCLOUD:-gcloud}\"",
            "if [ -z \"${IMAGES:-}\" ]; then IMAGES=" + quoted(images) + "; fi",
            "BUCKET=" + quoted("gs://" + (bucket ?? "")),
            "CACHE=" + quoted(StoragePlan.cacheControl),
            "",
            "# put OBJECT CONTENT-TYPE [TOKEN]",
            "put() {",
            "    if [ -n \"${3:-}\" ]; then",
            "        \"$GCLOUD\" storage cp --content-type=\"$2\" --cache-control=\"$CACHE\" \\",
            "            --custom-metadata=\"\(StoragePlan.tokenMetadataKey)=$3\" \"$IMAGES/$1\" \"$BUCKET/$1\"",
            "    else",
            "        \"$GCLOUD\" storage cp --content-type=\"$2\" --cache-control=\"$CACHE\" \\",
            "            \"$IMAGES/$1\" \"$BUCKET/$1\"",
            "    fi",
            "}",
            "# retoken OBJECT TOKEN",
            "retoken() {",
            "    \"$GCLOUD\" storage objects update \"$BUCKET/$1\" \\",
            "        --update-custom-metadata=\"\(StoragePlan.tokenMetadataKey)=$2\"",
            "}",
            "",
            listsAll
                ? "# Every object the export references, in path order: o STATE OBJECT CONTENT-TYPE"
                : "# The objects that change, in path order: o STATE OBJECT CONTENT-TYPE",
            "# [TOKEN], STATE new (not uploaded before), rotated (its token changed) or unchanged.",
            "objects() {",
        ]
        try scriptFile.write(lines.joined(separator: "\n") + "\n")
        return countsAt
    }

    private func writeScriptEnd(deletions: [String], countsAt: Int) throws {
        let quoted = ShellQuoting.quoted
        try scriptFile.write(
            "    :\n}\n# The objects the previous plan held that nothing references now.\n")
        try scriptFile.write("delete_old() {\n")
        for path in deletions {
            try scriptFile.write("    \"$GCLOUD\" storage rm \"$BUCKET/\"\(quoted(path))\n")
        }
        let tail = [
            "    :",
            "}",
            "",
            "case \"${1:-}\" in",
            "upload)",
            "    if [ \"${2:-}\" = --all ]; then",
            listsAll
                ? "        o() { shift; put \"$@\"; }"
                : "        echo \"$0: this plan lists only the objects that change; export with"
                    + " --all-objects for a plan that lists every object\" >&2; exit 2",
            "    else",
            "        o() {",
            "            case \"$1\" in",
            "            new) shift; put \"$@\" ;;",
            "            rotated) retoken \"$2\" \"${4:-}\" ;;",
            "            esac",
            "        }",
            "    fi",
            "    objects",
            "    ;;",
            "delete) delete_old ;;",
            "*)",
            "    echo \"usage: $0 upload [--all] | delete\" >&2",
            "    exit 2",
            "    ;;",
            "esac",
        ]
        try scriptFile.write(tail.joined(separator: "\n") + "\n")
        func plural(_ count: Int) -> String { count == 1 ? "1 object" : "\(count) objects" }
        var counts =
            [
                "#       before the database update: uploads the \(plural(summary.new)) not"
                    + " uploaded before"
                    + (summary.rotated == 0 ? "" : " and re-tokens \(plural(summary.rotated))"),
                listsAll
                    ? "#   ... upload --all   uploads all \(plural(summary.objects)) the export"
                        + " references"
                    : "#   ... upload --all   needs a plan written by export --all-objects (this"
                        + " one lists what changes of \(plural(summary.objects)))",
                "#   ... delete         after the database update: deletes the"
                    + " \(plural(deletions.count)) nothing references any more",
            ].joined(separator: "\n") + "\n#"
        // The room's rest: spaces ending the comment line, then its line break.
        counts += String(repeating: " ", count: max(0, Self.countsRoom - counts.utf8.count - 1))
        try scriptFile.patch(at: countsAt, Array(counts.utf8) + [0x0A])
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
