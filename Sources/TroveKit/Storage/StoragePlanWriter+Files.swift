import Foundation
import TroveBase

// The plan's two files: the manifest (`.storage.json`), an object at a time, and the
// upload script (`.storage.sh`) with its counts patched in at the end.

extension StoragePlanWriter {
    static func withOptional<T>(
        _ bytes: [UInt8]?, _ body: (UnsafeBufferPointer<UInt8>?) throws -> T
    ) rethrows -> T {
        guard let bytes else { return try body(nil) }
        return try bytes.withUnsafeBufferPointer { try body($0) }
    }

    func writeObject(
        path: UnsafeBufferPointer<UInt8>, token: UnsafeBufferPointer<UInt8>?,
        state: StoragePlan.State
    ) throws {
        let contentType = StoragePlan.contentType(of: path)
        let stateName = Self.stateNames[state.index]
        // {"contentType": …, "metadata": {…}, "path": …, "state": …}, one a line.
        // A var, as JSON text is written through `inout`.
        var line = manifestPending
        objects.appendNext(to: &line)
        line.append("{\"contentType\": \"")
        line.append(contentsOf: contentType)
        line.append("\", \"metadata\": ")
        if let token {
            line.append(contentsOf: Self.tokenMember)
            JSONText.appendString(bytes: token, to: &line)
            line.append(UInt8(ascii: "}"))
        } else {
            line.append("{}")
        }
        line.append(", \"path\": ")
        JSONText.appendString(bytes: path, to: &line)
        line.append(", \"state\": \"")
        line.append(contentsOf: stateName)
        line.append("\"}")
        switch state {
        case .new: summary.new += 1
        case .rotated: summary.rotated += 1
        case .unchanged: break
        }

        // o STATE 'PATH' TYPE ['TOKEN']
        let script = scriptPending
        script.append("    o ")
        script.append(contentsOf: stateName)
        script.append(UInt8(ascii: " "))
        Self.appendQuoted(path, to: script)
        script.append(UInt8(ascii: " "))
        script.append(contentsOf: contentType)
        if let token {
            script.append(UInt8(ascii: " "))
            Self.appendQuoted(token, to: script)
        }
        script.append(UInt8(ascii: "\n"))
        if line.count >= Self.pendingLimit { try handOver(line, to: manifestFile) }
        if script.count >= Self.pendingLimit { try handOver(script, to: scriptFile) }
    }

    /// Bytes collected before they go to a file, in large pieces that skip the file's own
    /// buffer.
    static let pendingLimit = 1 << 18

    /// Writes out what `pending` holds.
    func handOver(_ pending: RenderBuffer, to file: OutputFile) throws {
        guard !pending.isEmpty else { return }
        try pending.withUnsafeBufferPointer { try file.write($0) }
        pending.removeAll()
    }

    /// `ShellQuoting.append`, for a render buffer: text without a quote (any path or token
    /// trove makes) is copied between two quotes as it is.
    static func appendQuoted(_ text: UnsafeBufferPointer<UInt8>, to buffer: RenderBuffer) {
        if text.isEmpty || memchr(text.baseAddress!, Int32(UInt8(ascii: "'")), text.count) == nil {
            buffer.append(UInt8(ascii: "'"))
            buffer.append(contentsOf: text)
            buffer.append(UInt8(ascii: "'"))
            return
        }
        var quoted: [UInt8] = []
        ShellQuoting.append(text, to: &quoted)
        buffer.append(contentsOf: quoted)
    }

    static let tokenMember = Array("{\"\(StoragePlan.tokenMetadataKey)\": ".utf8)
    static let stateNames = [StoragePlan.State.new, .rotated, .unchanged].map {
        Array($0.rawValue.utf8)
    }

    /// The JSON manifest up to its objects. Its `delete` list, known only once every object
    /// was read, is its last member.
    func writeManifestHeader() throws {
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

    func writeManifestEnd(deletions: [String]) throws {
        try handOver(manifestPending, to: manifestFile)
        try manifestFile.write(objects.closing + ",\n")
        try manifestFile.write("  \"delete\": " + deletions.jsonText + "\n}\n")
    }

    /// Room for the header lines that count objects, filled in at the end.
    static let countsRoom = 600

    /// The `gcloud storage` script up to its objects; returns where the counts go.
    func writeScriptHeader() throws -> Int {
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

    func writeScriptEnd(deletions: [String], countsAt: Int) throws {
        try handOver(scriptPending, to: scriptFile)
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
}
