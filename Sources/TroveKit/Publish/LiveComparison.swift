import Foundation
import TroveBase
import TroveSQLite
import TroveStore

/// What `publish --refresh` found where the target differs from its record, each
/// difference named.
public struct RefreshReport: Equatable, Sendable {
    /// Objects the record says the bucket holds, which it does not (deleted by hand): the
    /// publish uploads them again.
    public var missingObjects: [String] = []
    /// Objects that do not carry the token the record says (changed or removed by hand):
    /// the publish sets it again.
    public var tokens: [String] = []
    /// Paths whose value in the database is not the one trove published (edited by hand):
    /// the publish restores them.
    public var differ: [String] = []
    /// Paths trove published that the database lacks: the publish sets them again.
    public var missing: [String] = []
    /// Paths at the layout's shapes and objects under its prefix that trove does not
    /// publish (another tool's, or left from before): named and left alone.
    public var unpublishedPaths: [String] = []
    public var unpublishedObjects: [String] = []
    /// How many paths and objects were read.
    public var pathsRead = 0
    public var objectsRead = 0

    public init() {}

    /// How many differences the publish repairs.
    public var repairs: Int { missingObjects.count + tokens.count + differ.count + missing.count }
}

/// Compares what a target's database holds (read into a `LiveTarget`) with the tree a
/// refresh renders, path by path in the tree's order, as the render writes it: which paths
/// to send, and what differs from the record.
final class LiveComparison {
    private let statement: Statement
    private let pathColumn: Int
    private let hashColumn: Int
    /// The live entry under the cursor.
    private var path: [UInt8] = []
    private var hash: UInt64 = 0
    private var isAtEnd = false
    private(set) var report = RefreshReport()

    /// - Throws: `SQLiteError`.
    init(_ live: LiveTarget) throws {
        statement = try live.store.paths()
        pathColumn = statement.column("path")
        hashColumn = statement.column("hash")
        report.pathsRead = live.paths
        report.objectsRead = live.objects
        try advance()
    }

    private func advance() throws {
        guard let row = try statement.next() else {
            isAtEnd = true
            return
        }
        path.removeAll(keepingCapacity: true)
        row.withUTF8(pathColumn) { path.append(contentsOf: $0) }
        hash = UInt64(bitPattern: row.int64(hashColumn) ?? 0)
    }

    /// The live hash at `target`, after naming every live path before it as one trove does
    /// not publish (the tree and the record are past them).
    private func seek(_ target: UnsafeBufferPointer<UInt8>) throws -> UInt64? {
        while !isAtEnd {
            let order = path.withUnsafeBufferPointer { comparePaths($0, target) }
            if order > 0 { return nil }
            if order == 0 {
                let found = hash
                try advance()
                return found
            }
            report.unpublishedPaths.append(String(decoding: path, as: UTF8.self))
            try advance()
        }
        return nil
    }

    /// A path of the tree with its rendered value: whether the database needs it sent.
    /// `recorded` is the record's hash of the path (nil when the record lacks it), `hash`
    /// the rendered value's: equal, trove published this very value, so a database that
    /// holds another was changed by hand.
    func rendered(
        path target: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, hash: UInt64,
        recorded: UInt64?
    ) throws -> Bool {
        let live = try seek(target)
        let wanted = CanonicalValue.hash(json: value)
        guard live != wanted else { return false }
        if recorded == hash {
            let name = String(decoding: target, as: UTF8.self)
            if live == nil { report.missing.append(name) } else { report.differ.append(name) }
        }
        return true
    }

    /// A path the record holds and the tree no longer has: whether the database still
    /// holds it, so that the removal is to be sent.
    func removed(path target: UnsafeBufferPointer<UInt8>) throws -> Bool {
        try seek(target) != nil
    }

    /// A path kept as recorded (its record is left out of this publish): what the database
    /// holds there is not compared.
    func kept(path target: UnsafeBufferPointer<UInt8>) throws {
        _ = try seek(target)
    }

    /// Names the live paths after the tree's last one.
    func finish() throws {
        while !isAtEnd {
            report.unpublishedPaths.append(String(decoding: path, as: UTF8.self))
            try advance()
        }
    }

    // MARK: - Objects

    func missingObject(_ name: String) { report.missingObjects.append(name) }
    func missingToken(_ name: String) { report.tokens.append(name) }
    func unpublishedObject(_ name: String) { report.unpublishedObjects.append(name) }
}

/// The records a publish leaves out: their renditions are missing and cannot be made (the
/// image is gone or unreadable). What the target holds of them stays as it is, and the
/// next publish tries them again.
struct HeldBack: Sendable {
    /// One record left out, and why.
    struct Record: Sendable, Equatable {
        var kind: RenditionOwner
        var key: String
        var reason: String
    }

    let records: [Record]
    let keys: Set<String>
    /// The object folders of their renditions (`treasures/KEY/`).
    private let folders: Set<[UInt8]>
    /// Per path template: its segments' literal text, or nil where the key goes, or
    /// `other` where anything else goes (such a template's paths are not attributed).
    private let shapes: [(segments: [String?], keyIndex: Int)]

    init(_ records: [Record], layout: Layout) {
        self.records = records
        keys = Set(records.map(\.key))
        folders = Set(
            records.map { Array("\($0.kind.folder)/\(Renditions.safePathComponent($0.key))/".utf8) }
        )
        shapes = layout.paths.compactMap { template in
            var segments: [String?] = []
            var keyIndex: Int?
            for (index, segment) in template.segments.enumerated() {
                switch segment {
                case .literal(let text): segments.append(text)
                case .whole(.key):
                    segments.append(nil)
                    keyIndex = keyIndex ?? index
                default: segments.append(nil)
                }
            }
            return keyIndex.map { (segments, $0) }
        }
    }

    var isEmpty: Bool { records.isEmpty }

    /// Whether a database path is one a left-out record wrote: a template's literals
    /// match it and its key segment holds that record's key.
    func owns(path: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !keys.isEmpty else { return false }
        let segments = path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        for shape in shapes where shape.segments.count == segments.count {
            var matches = true
            for (index, literal) in shape.segments.enumerated() {
                if let literal, !segments[index].elementsEqual(literal.utf8) {
                    matches = false
                    break
                }
            }
            if matches,
                keys.contains(String(decoding: segments[shape.keyIndex], as: UTF8.self))
            {
                return true
            }
        }
        return false
    }

    /// Whether an object lies in a left-out record's folder.
    func owns(object path: [UInt8]) -> Bool {
        guard !folders.isEmpty, let folder = StoragePlan.folder(of: path) else { return false }
        return folders.contains(folder)
    }

    /// The folders, for the objects of an incremental plan.
    var objectFolders: Set<[UInt8]> { folders }
}
