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
    private let layout: Layout
    private let output: String
    private let bucket: String?
    private let tokens: Bool
    /// The images folder relative to the export's folder.
    private let images: String
    let manifestFile: OutputFile
    let scriptFile: OutputFile

    /// The plan to record, in blocks; recorded only when it differs from the last one.
    private let blocks = BlockSpill()
    private var changed = false
    /// Paths of the previous plan that nothing references now (deleted from the record
    /// whether or not another plan holds them).
    private var gone: [String] = []
    private var summary = StoragePlan.Summary()

    private var worker: Worker<Void>?
    private let cancelled = LockedValue(false)

    /// Stages the two files beside `output` in `outputs` and fixes the reading snapshot.
    ///
    /// - Throws: `FileWriteError` when the files cannot be staged, `SQLiteError`.
    init(
        database: Database, layout: Layout, output: String, bucket: String?, tokens: Bool,
        images: String, outputs: OutputSet
    ) throws {
        self.layout = layout
        self.output = output
        self.bucket = bucket
        self.tokens = tokens
        let folder = (output as NSString).deletingLastPathComponent
        self.images = StoragePlan.relativePath(from: folder, to: images)
        let paths = StoragePlan.paths(output: output)
        manifestFile = try outputs.stage(paths.manifest)
        scriptFile = try outputs.stage(paths.script)
        reader = try Database(
            path: database.path, mode: database.mode == .immutable ? .immutable : .readOnly)
        try reader.execute("BEGIN")
        _ = try reader.scalar("SELECT count(*) FROM sqlite_master")
    }

    /// Starts writing on a thread of its own.
    func start() {
        worker = Worker { [self] in
            defer { try? reader.execute("COMMIT") }
            try write()
        }
    }

    /// Waits for the files to be written (not yet in place) and returns what they hold.
    ///
    /// - Throws: `FileWriteError`, `SQLiteError`, `StoragePlanError`.
    func finish() throws -> StoragePlan.Summary {
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
        var previous = try PlannedObjectReader(database: reader, output: output)
        let countsAt = try writeScriptHeader()
        try writeManifestHeader()
        var manifestLine: [UInt8] = []
        var scriptLine: [UInt8] = []
        manifestLine.reserveCapacity(512)
        scriptLine.reserveCapacity(512)
        if !layout.renditionNames.isEmpty {
            let objects = try reader.prepare(
                StoragePlan.objectsQuery(layout: layout, tokens: tokens))
            var last: [UInt8] = []
            while let row = try objects.next() {
                if summary.objects & 0xFFF == 0, cancelled.withLock({ $0 }) { throw Cancelled() }
                try row.withUTF8(0) { path in
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
                    let token = row.withUTF8(1) { $0 }
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
                    try writeObject(
                        path: path, token: token, state: state, manifestLine: &manifestLine,
                        scriptLine: &scriptLine)
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
        changed = summary.new + summary.rotated > 0 || !gone.isEmpty
        try writeManifestEnd(deletions: deletions)
        try writeScriptEnd(deletions: deletions, countsAt: countsAt)
    }

    /// The gone paths that no other export's plan holds, in order.
    private func deletions() throws -> [String] {
        guard !gone.isEmpty else { return [] }
        // One pass over the other plans, keeping only the few gone paths in memory.
        var candidates = Set(gone)
        var others = try PlannedObjectReader(database: reader, output: output, others: true)
        while !others.isAtEnd && !candidates.isEmpty {
            candidates.remove(String(decoding: others.path, as: UTF8.self))
            try others.advance()
        }
        return gone.filter { candidates.contains($0) }
    }

    private func writeObject(
        path: UnsafeBufferPointer<UInt8>, token: UnsafeBufferPointer<UInt8>?,
        state: StoragePlan.State, manifestLine line: inout [UInt8], scriptLine: inout [UInt8]
    ) throws {
        let contentType = StoragePlan.contentType(of: path)
        // {"contentType": …, "metadata": {…}, "path": …, "state": …}, one a line.
        line.removeAll(keepingCapacity: true)
        if summary.objects > 0 { line.append(contentsOf: ",\n".utf8) }
        line.append(contentsOf: "    {\"contentType\": \"".utf8)
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
        summary.objects += 1
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

    private static func string(_ text: String) -> String {
        var bytes: [UInt8] = []
        JSONText.appendString(text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The JSON manifest up to its objects. Its `delete` list, known only once every object
    /// was read, is its last member.
    private func writeManifestHeader() throws {
        let string = Self.string
        let lines = [
            "{",
            "  \"bucket\": \(bucket.map(string) ?? "null"),",
            "  \"cacheControl\": \(string(StoragePlan.cacheControl)),",
            "  \"images\": \(string(images)),",
            "  \"layout\": \(string(layout.name)),",
            "  \"objects\": [",
        ]
        try manifestFile.write(lines.joined(separator: "\n") + "\n")
    }

    private func writeManifestEnd(deletions: [String]) throws {
        try manifestFile.write((summary.objects > 0 ? "\n" : "") + "  ],\n")
        try manifestFile.write(
            "  \"delete\": [" + deletions.map(Self.string).joined(separator: ", ") + "]\n}\n")
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
            "# Every object the export references, in path order: o STATE OBJECT CONTENT-TYPE",
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
            "        o() { shift; put \"$@\"; }",
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
                "#   ... upload --all   uploads all \(plural(summary.objects)) the export"
                    + " references",
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
        guard changed else { return }
        _ = try database.execute(
            "DELETE FROM storage_plan_blocks WHERE output = ?", [.text(output)])
        let insert = try database.prepare(
            "INSERT INTO storage_plan_blocks (output, seq, data) VALUES (?, ?, ?)")
        var seq: Int64 = 0
        try blocks.forEach { block in
            try insert.run([.text(output), .integer(seq), .blob(block)])
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
