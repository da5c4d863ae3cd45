import Foundation
import TroveBase
import TroveSQLite
import TroveStore

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
}

// MARK: - Objects as state entries

extension StoragePlan {
    /// An object's token as a state keeps it after the path: its length plus one (0 for
    /// none), then its bytes.
    static func payload(token: [UInt8]?) -> [UInt8] {
        var block = FrontCodedBlock(entriesPerBlock: 1)
        if let token {
            block.writeVarint(token.count + 1)
            block.write(token)
        } else {
            block.writeVarint(0)
        }
        return block.bytes
    }

    /// The token of a `payload(token:)`.
    package static func token(inPayload payload: [UInt8]) -> [UInt8]? {
        var start = 0
        while start < payload.count {
            start += 1
            if payload[start - 1] < 0x80 { break }
        }
        return payload.count > start ? Array(payload[start...]) : nil
    }

    /// Reads the payload of the reader's current object.
    static func readPayload(_ reader: inout FrontCodedReader) throws -> [UInt8] {
        let length = try reader.readVarint()
        let token = length > 0 ? Array(try reader.readBytes(length - 1)) : nil
        return payload(token: token)
    }

    /// Merges the objects the records of `layout` changed after clock value `seq` (`keys`)
    /// reference now into the objects state `index`: the blocks they fall in are rewritten
    /// and the others shared. Objects in the folders `skipping` (records left out) are
    /// not taken. A record's objects all lie in its own folder, so what it
    /// referenced before lies under that prefix. `changed` hears every object whose token
    /// differs now (nil: absent), in path order; `store` receives the new state's blocks.
    ///
    /// - Throws: `SQLiteError`, `ExportError.damagedState`, what the closures throw.
    static func mergeChangedObjects(
        layout: Layout, tokens: Bool, bucket: String? = nil, since seq: Int64, keys: [String],
        skipping: Set<[UInt8]> = [], into index: [StateBlockReference], database: Database,
        store: @escaping (Int64, StateBlockReference) throws -> Void,
        changed: (_ path: [UInt8], _ old: [UInt8]?, _ new: [UInt8]?) throws -> Void
    ) throws {
        var fresh: [StateEntry] = []
        if !layout.renditionNames.isEmpty {
            let objects = try ExportStore(database).objects(
                of: layout.recordKind, renditionNames: layout.renditionNames, tokens: tokens,
                changedSince: seq, bucket: bucket)
            let pathColumn = objects.column("path")
            let tokenColumn = objects.column("token")
            while let row = try objects.next() {
                let path = row.withUTF8(pathColumn) { Array($0) } ?? []
                // A path shared by several renditions is one object.
                if fresh.last?.path == path { continue }
                // A record left out keeps what it had (its key is not among `keys` either).
                if !skipping.isEmpty, let folder = folder(of: path), skipping.contains(folder) {
                    continue
                }
                fresh.append(
                    StateEntry(
                        path: path, payload: payload(token: row.withUTF8(tokenColumn) { Array($0) })
                    ))
            }
        }
        let kind: RenditionOwner = layout.records == .treasures ? .treasure : .post
        let prefixes = Set(
            keys.map { Array("\(kind.folder)/\(Renditions.safePathComponent($0))/".utf8) })
        try StatePatcher.patch(
            index: index, fresh: fresh, affected: blocks(holding: prefixes, in: index),
            isGone: { folder(of: $0).map(prefixes.contains) ?? false }, compare: compareBytes,
            entriesPerBlock: PlannedObjectEncoder.entriesPerBlock, readPayload: readPayload,
            database: database, store: store, changed: changed)
    }

    /// `folder/key/` of an object path: where a record's renditions all lie.
    static func folder(of path: [UInt8]) -> [UInt8]? {
        var slashes = 0
        for (offset, byte) in path.enumerated() where byte == UInt8(ascii: "/") {
            slashes += 1
            if slashes == 2 { return Array(path[...offset]) }
        }
        return nil
    }

    /// The blocks of `index` that objects under any of `prefixes` can lie in.
    static func blocks(holding prefixes: Set<[UInt8]>, in index: [StateBlockReference])
        -> Set<Int>
    {
        var affected = Set<Int>()
        for prefix in prefixes {
            let low = StatePatcher.blockIndex(of: prefix, in: index, compare: compareBytes)
            let high = StatePatcher.blockIndex(
                of: prefix + [0xFF], in: index, compare: compareBytes)
            affected.formUnion(low...max(low, high))
        }
        return affected
    }

    /// Byte order, as SQLite's BINARY collation sorts object paths.
    static func compareBytes(_ a: [UInt8], _ b: [UInt8]) -> Int {
        let common = min(a.count, b.count)
        for index in 0..<common where a[index] != b[index] {
            return a[index] < b[index] ? -1 : 1
        }
        return a.count - b.count
    }
}
