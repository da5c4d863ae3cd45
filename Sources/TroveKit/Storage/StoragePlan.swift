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
/// at a missing image. `StoragePlanWriter` streams both files.
public enum StoragePlan {
    public enum State: String, Sendable {
        /// Not in the layout's previous plan: uploaded.
        case new
        /// In the previous plan with another token: its metadata is updated.
        case rotated
        /// In the previous plan as it is: left alone (uploaded again with `upload --all`).
        case unchanged

        /// Its place in `[.new, .rotated, .unchanged]`.
        var index: Int {
            switch self {
            case .new: 0
            case .rotated: 1
            case .unchanged: 2
            }
        }
    }

    /// What a written plan holds, in counts.
    public struct Summary: Equatable, Sendable {
        /// Every object the export references.
        public var objects = 0
        public var new = 0
        public var rotated = 0
        /// Objects of the previous plan that nothing references now.
        public var deletions = 0

        /// Objects the upload step touches.
        public var toUpload: Int { new + rotated }
    }

    /// `Cache-Control` of every object: names carry a content hash, so they never change.
    public static let cacheControl = "public, max-age=31536000, immutable"
    /// The object metadata key Firebase reads download tokens from.
    public static let tokenMetadataKey = "firebaseStorageDownloadTokens"

    /// The manifest and script paths for an export written to `output`:
    /// `OUT.storage.json` and `OUT.storage.sh`, OUT without `.json`.
    public static func paths(output: String) -> (manifest: String, script: String) {
        let base = output.hasSuffix(".json") ? String(output.dropLast(5)) : output
        return (base + ".storage.json", base + ".storage.sh")
    }

    /// `image/jpeg`, `image/png`, from the object's name, as UTF-8.
    static func contentType(of path: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        func hasSuffix(_ suffix: [UInt8]) -> Bool {
            guard path.count >= suffix.count else { return false }
            var index = 0
            let start = path.count - suffix.count
            while index < suffix.count {
                if path[start + index] | 0x20 != suffix[index] { return false }
                index += 1
            }
            return true
        }
        if hasSuffix(png) { return pngType }
        if hasSuffix(jpg) || hasSuffix(jpeg) { return jpegType }
        return otherType
    }

    private static let png = Array(".png".utf8)
    private static let jpg = Array(".jpg".utf8)
    private static let jpeg = Array(".jpeg".utf8)
    private static let pngType = Array("image/png".utf8)
    private static let jpegType = Array("image/jpeg".utf8)
    private static let otherType = Array("application/octet-stream".utf8)

    /// The objects `layout` exported now references, with their tokens (NULL when tokens
    /// are off), sorted by path; a path several renditions share comes once per rendition,
    /// in consecutive rows.
    static func objectsQuery(layout: Layout, tokens: Bool) -> String {
        let names = layout.renditionNames.map {
            "'" + $0.replacingOccurrences(of: "'", with: "''") + "'"
        }
        let owner =
            layout.records == .treasures
            ? "JOIN treasures AS o ON r.owner_kind = 'treasure' AND o.key = r.owner_key"
                + " AND o.image = r.source"
            : "JOIN posts AS o ON r.owner_kind = 'post' AND o.id = r.owner_key"
                + " AND o.photo = r.source AND o.status = 'approved'"
        let token = tokens ? "t.token" : "NULL"
        let join = tokens ? "LEFT JOIN storage_tokens AS t ON t.path = r.path" : ""
        // Read in the order of the path index: nothing is sorted (DISTINCT and ORDER BY
        // over the table built two temporary B-trees of every object).
        return """
            SELECT r.path, \(token) FROM renditions AS r INDEXED BY renditions_path \(owner) \(join)
            WHERE r.name IN (\(names.joined(separator: ", ")))
            ORDER BY r.path
            """
    }
}

extension StoragePlan {
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
        // 'http%' first: a local path fails it at its first byte, and only what passes
        // is matched against the two schemes.
        let sql =
            layout.records == .treasures
            ? "SELECT count(*) FROM treasures WHERE image LIKE 'http%'"
                + " AND (image LIKE 'http://%' OR image LIKE 'https://%')"
            : "SELECT count(*) FROM posts WHERE status = 'approved' AND photo LIKE 'http%'"
                + " AND (photo LIKE 'http://%' OR photo LIKE 'https://%')"
        return Int(try database.scalar(sql)?.int64 ?? 0)
    }
}
