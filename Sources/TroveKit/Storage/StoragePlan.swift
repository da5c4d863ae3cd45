import Foundation
import TroveSQLite

/// What Firebase Storage must hold for one export: exactly the objects its URLs
/// reference, and the objects the layout's previous plan held that nothing references
/// any more.
///
/// Written beside the export as a JSON manifest (`OUT.storage.json`) and a shell script
/// for `gcloud storage` (`OUT.storage.sh`): `upload` before the database update puts the
/// new objects in place (with Content-Type, a year of immutable caching, since names are
/// content-hashed, and the download token as `firebaseStorageDownloadTokens` metadata),
/// `delete` after it removes what the app no longer points at, so the app never points
/// at a missing image.
public struct StoragePlan: Equatable, Sendable {
    /// One object the export references.
    public struct Object: Equatable, Sendable {
        /// The object path inside the bucket, and the file's path below the images folder.
        public var path: String
        /// The download token, or nil when tokens are off.
        public var token: String?
        /// Why the upload step touches it.
        public var state: State

        /// `image/jpeg`, `image/png`, from the name.
        public var contentType: String {
            let name = path.lowercased()
            if name.hasSuffix(".png") { return "image/png" }
            if name.hasSuffix(".jpg") || name.hasSuffix(".jpeg") { return "image/jpeg" }
            return "application/octet-stream"
        }
    }

    public enum State: String, Sendable {
        /// Not in the layout's previous plan: uploaded.
        case new
        /// In the previous plan with another token: its metadata is updated.
        case rotated
        /// In the previous plan as it is: left alone (uploaded again with `upload --all`).
        case unchanged
    }

    /// Every object the export references, sorted by path.
    public var objects: [Object]
    /// The export file the plan belongs to: its previous plan is the one compared with.
    public var output: String
    /// Objects of the previous plan that nothing references now, sorted.
    public var deletions: [String]
    public var bucket: String?
    public var layout: String

    /// `Cache-Control` of every object: names carry a content hash, so they never change.
    public static let cacheControl = "public, max-age=31536000, immutable"
    /// The object metadata key Firebase reads download tokens from.
    public static let tokenMetadataKey = "firebaseStorageDownloadTokens"

    /// The plan for `layout` exported to `output` in the workspace's current state,
    /// against the objects the previous plan of `output` held (never deleting what
    /// another export's plan holds).
    ///
    /// - Throws: `SQLiteError`.
    static func make(
        database: Database, layout: Layout, output: String, bucket: String?, tokens: Bool
    ) throws -> StoragePlan {
        var objects: [Object] = []
        if !layout.renditionNames.isEmpty {
            let names = layout.renditionNames.map {
                "'" + $0.replacingOccurrences(of: "'", with: "''") + "'"
            }
            let owner =
                layout.records == .treasures
                ? "JOIN treasures AS o ON r.owner_kind = 'treasure' AND o.key = r.owner_key"
                    + " AND o.image = r.source"
                : "JOIN posts AS o ON r.owner_kind = 'post' AND o.id = r.owner_key"
                    + " AND o.photo = r.source AND o.status = 'approved'"
            let previous = try Dictionary(
                database.query(
                    "SELECT path, token FROM storage_plan WHERE output = ?",
                    [.text(output)]
                ) { ($0.text(0) ?? "", $0.text(1)) }, uniquingKeysWith: { first, _ in first })
            objects = try database.query(
                """
                SELECT DISTINCT r.path, t.token FROM renditions AS r \(owner)
                LEFT JOIN storage_tokens AS t ON t.path = r.path
                WHERE r.name IN (\(names.joined(separator: ", ")))
                ORDER BY r.path
                """
            ) { row in
                let path = row.text(0) ?? ""
                let token = tokens ? row.text(1) : nil
                let state: State =
                    switch previous[path] {
                    case .none: .new
                    case .some(let old) where old != token: .rotated
                    default: .unchanged
                    }
                return Object(path: path, token: token, state: state)
            }
        }
        let referenced = Set(objects.map(\.path))
        // Sets, not a correlated subquery: storage_plan is keyed by output first, so a
        // search by path alone would scan the table once per planned object.
        let elsewhere = Set(
            try database.query(
                "SELECT path FROM storage_plan WHERE output <> ?", [.text(output)]
            ) { $0.text(0) ?? "" })
        let deletions = try database.query(
            "SELECT path FROM storage_plan WHERE output = ? ORDER BY path", [.text(output)]
        ) { $0.text(0) ?? "" }.filter { !referenced.contains($0) && !elsewhere.contains($0) }
        return StoragePlan(
            objects: objects, output: output, deletions: deletions, bucket: bucket,
            layout: layout.name)
    }

    /// Records this plan as the layout's last, for the next plan to compare with.
    ///
    /// - Throws: `SQLiteError`.
    func record(in database: Database) throws {
        _ = try database.execute("DELETE FROM storage_plan WHERE output = ?", [.text(output)])
        let insert = try database.prepare(
            "INSERT INTO storage_plan (output, path, token) VALUES (?, ?, ?)")
        for object in objects {
            _ = try insert.run([.text(output), .text(object.path), object.token.map { .text($0) }])
        }
    }

    // MARK: - Files

    /// The manifest and script paths for an export written to `output`:
    /// `OUT.storage.json` and `OUT.storage.sh`, OUT without `.json`.
    public static func paths(output: String) -> (manifest: String, script: String) {
        let base = output.hasSuffix(".json") ? String(output.dropLast(5)) : output
        return (base + ".storage.json", base + ".storage.sh")
    }

    /// The JSON manifest; `images` is the images folder relative to the manifest's.
    public func manifest(images: String) -> String {
        func string(_ text: String) -> String {
            var bytes: [UInt8] = []
            JSONText.appendString(text, to: &bytes)
            return String(decoding: bytes, as: UTF8.self)
        }
        var lines = ["{"]
        lines.append("  \"bucket\": \(bucket.map(string) ?? "null"),")
        lines.append("  \"cacheControl\": \(string(Self.cacheControl)),")
        lines.append("  \"delete\": [" + deletions.map(string).joined(separator: ", ") + "],")
        lines.append("  \"images\": \(string(images)),")
        lines.append("  \"layout\": \(string(layout)),")
        lines.append("  \"objects\": [")
        for (index, object) in objects.enumerated() {
            let metadata =
                object.token.map { "{\(string(Self.tokenMetadataKey)): \(string($0))}" } ?? "{}"
            lines.append(
                "    {\"contentType\": \(string(object.contentType)), "
                    + "\"metadata\": \(metadata), \"path\": \(string(object.path)), "
                    + "\"state\": \(string(object.state.rawValue))}"
                    + (index + 1 < objects.count ? "," : ""))
        }
        lines.append("  ]")
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The `gcloud storage` script; `images` is the images folder relative to the
    /// script's, `export` the export file's name for its comments.
    public func script(images: String, export: String) -> String {
        func quoted(_ text: String) -> String {
            "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
        }
        let new = objects.filter { $0.state == .new }
        let rotated = objects.filter { $0.state == .rotated }
        let unchanged = objects.filter { $0.state == .unchanged }
        func plural(_ count: Int) -> String { count == 1 ? "1 object" : "\(count) objects" }
        var lines = [
            "#!/bin/sh",
            "# Firebase Storage plan for \(export) (layout \(layout)), written by trove export.",
            "#",
            "#   sh \((export as NSString).deletingPathExtension).storage.sh upload",
            "#       before the database update: uploads the \(plural(new.count)) not uploaded"
                + " before" + (rotated.isEmpty ? "" : " and re-tokens \(plural(rotated.count))"),
            "#   ... upload --all   uploads all \(plural(objects.count)) the export references",
            "#   ... delete         after the database update: deletes the"
                + " \(plural(deletions.count)) nothing references any more",
            "#",
            "# GCLOUD names the gcloud command; IMAGES the images folder (relative to this file).",
            "set -eu",
            "cd \"$(dirname \"$0\")\"",
            "GCLOUD=\"${GCLOUD:-gcloud}\"",
            "IMAGES=\"${IMAGES:-\(images.replacingOccurrences(of: "\"", with: "\\\""))}\"",
            "BUCKET=" + quoted("gs://" + (bucket ?? "")),
            "CACHE=" + quoted(Self.cacheControl),
            "",
            "# put OBJECT CONTENT-TYPE [TOKEN]",
            "put() {",
            "    if [ -n \"${3:-}\" ]; then",
            "        \"$GCLOUD\" storage cp --content-type=\"$2\" --cache-control=\"$CACHE\" \\",
            "            --custom-metadata=\"\(Self.tokenMetadataKey)=$3\" \"$IMAGES/$1\" \"$BUCKET/$1\"",
            "    else",
            "        \"$GCLOUD\" storage cp --content-type=\"$2\" --cache-control=\"$CACHE\" \\",
            "            \"$IMAGES/$1\" \"$BUCKET/$1\"",
            "    fi",
            "}",
            "# retoken OBJECT TOKEN",
            "retoken() {",
            "    \"$GCLOUD\" storage objects update \"$BUCKET/$1\" \\",
            "        --update-custom-metadata=\"\(Self.tokenMetadataKey)=$2\"",
            "}",
            "",
        ]
        func call(_ object: Object) -> String {
            "    put \(quoted(object.path)) \(object.contentType)"
                + (object.token.map { " " + quoted($0) } ?? "")
        }
        lines.append("upload_new() {")
        lines += new.map(call)
        lines += rotated.map { "    retoken \(quoted($0.path)) \(quoted($0.token ?? ""))" }
        lines.append("    :")
        lines.append("}")
        lines.append("upload_rest() {")
        lines += (unchanged + rotated).sorted { $0.path < $1.path }.map(call)
        lines.append("    :")
        lines.append("}")
        lines.append("delete_old() {")
        lines += deletions.map { "    \"$GCLOUD\" storage rm \"$BUCKET/\"\(quoted($0))" }
        lines.append("    :")
        lines.append("}")
        lines.append("")
        lines.append("case \"${1:-}\" in")
        lines.append("upload)")
        lines.append(
            "    if [ \"${2:-}\" = --all ]; then upload_new; upload_rest; else upload_new; fi")
        lines.append("    ;;")
        lines.append("delete) delete_old ;;")
        lines.append("*)")
        lines.append("    echo \"usage: $0 upload [--all] | delete\" >&2")
        lines.append("    exit 2")
        lines.append("    ;;")
        lines.append("esac")
        return lines.joined(separator: "\n") + "\n"
    }
}

extension StoragePlan {
    /// Writes the manifest and the script beside the export at `output`, for renditions in
    /// the folder `images`, noting each file in `summary`.
    ///
    /// - Throws: `ExportError.cannotWrite`.
    func write(beside output: String, images: String, summary: inout ExportSummary) throws {
        let paths = Self.paths(output: output)
        let folder = (output as NSString).deletingLastPathComponent
        let relative = Self.relativePath(from: folder, to: images)
        let files = [
            (paths.manifest, manifest(images: relative)),
            (
                paths.script,
                script(images: relative, export: (output as NSString).lastPathComponent)
            ),
        ]
        for (path, text) in files {
            do {
                if try AtomicFile.write(Data(text.utf8), to: path) {
                    summary.written.append(path)
                } else {
                    summary.unchanged.append(path)
                }
            } catch {
                throw ExportError.cannotWrite(path: path, reason: "\(error)")
            }
        }
    }

    /// `target` relative to the folder `base` (both absolute), e.g. `images` or
    /// `../build/images`.
    static func relativePath(from base: String, to target: String) -> String {
        let from = URL(fileURLWithPath: base).standardizedFileURL.pathComponents
        let to = URL(fileURLWithPath: target).standardizedFileURL.pathComponents
        var shared = 0
        while shared < min(from.count, to.count) && from[shared] == to[shared] { shared += 1 }
        let parts = Array(repeating: "..", count: from.count - shared) + to[shared...]
        return parts.isEmpty ? "." : parts.joined(separator: "/")
    }

    /// How many of the layout's records have a remote image, exported as given.
    ///
    /// - Throws: `SQLiteError`.
    static func remoteImages(database: Database, layout: Layout) throws -> Int {
        guard !layout.renditionNames.isEmpty else { return 0 }
        let sql =
            layout.records == .treasures
            ? "SELECT count(*) FROM treasures WHERE image LIKE 'http://%' OR image LIKE 'https://%'"
            : "SELECT count(*) FROM posts WHERE status = 'approved'"
                + " AND (photo LIKE 'http://%' OR photo LIKE 'https://%')"
        return Int(try database.scalar(sql)?.int64 ?? 0)
    }
}
