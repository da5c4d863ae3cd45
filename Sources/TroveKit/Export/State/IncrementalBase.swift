import Foundation
import TroveBase
import TroveSQLite
import TroveStore

/// What a layout's output depends on besides the records: the layout's text, the settings
/// that go into values and the way trove renders them. Recorded with every state; a
/// different one means every record is rendered again.
enum ExportInputs {
    /// Raised when rendering changes in a way that alters exported bytes.
    static let renderRevision = 1

    static func fingerprint(layout: Layout, storage: StorageURL, precision: Int) -> String {
        let parts = [
            "layout=" + String(layout.fingerprint, radix: 16),
            "bucket=" + (storage.bucket ?? ""),
            "template=" + (storage.template ?? ""),
            "tokens=" + (storage.tokens ? "on" : "off"),
            "precision=\(precision)",
            "render=\(renderRevision)",
        ]
        return parts.joined(separator: " ")
    }
}

/// The base of an export or publish that renders only the records changed since it: the
/// base state's blocks and the changed records. An incremental run reads and rewrites only
/// the blocks the changed records' paths fall in; the new state refers to the others.
struct IncrementalBase {
    package var index: [StateBlockReference]
    /// The changed records' keys, sorted.
    package var keys: [String]
    /// Paths in the base state.
    var statePaths: Int
    /// The clock value the base state took in.
    package var seq: Int64

    /// Why a run that could be incremental renders every record, or the base when it
    /// need not.
    package enum Decision {
        case incremental(IncrementalBase)
        case everything(reason: String)
    }

    /// At most this many changed records are rendered one by one; beyond, a full render
    /// reads the tables in order, which is cheaper.
    static let changeLimit = 50_000

    /// Whether `layout`'s paths can be found from a record's key alone (a post's user, too,
    /// which never changes without every post being marked), so that a changed record's
    /// old paths are known without its old values.
    static func pathsFollowKeys(_ layout: Layout) -> Bool {
        layout.paths.allSatisfy { template in
            template.segments.allSatisfy { segment in
                switch segment {
                case .literal, .whole(.key): return true
                case .whole(.user): return layout.records == .posts
                default: return false
                }
            }
        }
    }

    /// Decides for a state recorded with clock value `seq` and fingerprint `inputs`.
    ///
    /// - Parameter index: reads the base state's block references, in order.
    /// - Throws: `SQLiteError`.
    package static func decide(
        layout: Layout, inputs: String, baseSeq: Int64?, baseInputs: String?,
        statePaths: Int, database: Database, index: () throws -> [StateBlockReference]
    ) throws -> Decision {
        guard let baseSeq else {
            return .everything(reason: "the state it compares with predates change tracking")
        }
        guard baseInputs == inputs else {
            return .everything(reason: "the layout or the settings it uses changed since")
        }
        guard pathsFollowKeys(layout) else {
            return .everything(reason: "the layout's paths hold more than the record's key")
        }
        let kind: RecordKind = layout.records == .treasures ? .treasure : .post
        switch try ChangeLog.changes(
            of: kind, since: baseSeq, limit: changeLimit, in: database)
        {
        case .everything(let reason):
            return .everything(reason: reason)
        case .keys(let keys):
            return .incremental(
                IncrementalBase(
                    index: try index(), keys: keys, statePaths: statePaths, seq: baseSeq))
        }
    }

    /// The paths the changed records can have had in the base state, sorted and unique.
    ///
    /// - Throws: `SQLiteError`.
    func candidatePaths(layout: Layout, database: Database) throws -> [[UInt8]] {
        var users: [String: String] = [:]
        let needsUsers = layout.paths.contains { template in
            template.segments.contains {
                if case .whole(.user) = $0 { return true } else { return false }
            }
        }
        if needsUsers { users = try ExportStore(database).postUsers(keys) }
        var paths: [[UInt8]] = []
        for key in keys {
            template: for template in layout.paths {
                var path: [UInt8] = []
                for (index, segment) in template.segments.enumerated() {
                    if index > 0 { path.append(UInt8(ascii: "/")) }
                    switch segment {
                    case .literal(let text): path += Array(text.utf8)
                    case .whole(.key): path += Array(key.utf8)
                    case .whole(.user):
                        guard let user = users[key], !user.isEmpty else { continue template }
                        path += Array(user.utf8)
                    default: continue template
                    }
                }
                paths.append(path)
            }
        }
        paths.sort { comparePaths($0, $1) < 0 }
        return paths
    }

    /// One entry rendered from a changed record.
    package struct Entry {
        package var path: [UInt8]
        var hash: UInt64
        package var value: [UInt8]
    }

    /// What patching found.
    struct Patch {
        package var changed = 0
        var removed = 0
        var statePaths = 0
    }

    /// Writes the new state: the base's blocks, with those the changed records' paths fall
    /// in decoded, merged with `fresh` and stored anew. Calls `emit` for every path set
    /// (with its value) or removed (nil), in database order.
    ///
    /// - Parameters:
    ///   - fresh: the changed records' entries, in database order.
    ///   - candidates: the paths they can have had (`candidatePaths`).
    ///   - store: records block reference `seq` of the new state; nil for a run that
    ///     records nothing.
    /// - Throws: `SQLiteError`, `ExportError.damagedState`, what `emit` throws.
    func patch(
        fresh: [Entry], candidates: [[UInt8]], database: Database,
        store: ((_ seq: Int64, _ reference: StateBlockReference) throws -> Void)?,
        emit: (_ path: [UInt8], _ value: [UInt8]?) throws -> Void
    ) throws -> Patch {
        var values: [[UInt8]: [UInt8]] = [:]
        for entry in fresh { values[entry.path] = entry.value }
        let entries = fresh.map { entry in
            StateEntry(
                path: entry.path, payload: withUnsafeBytes(of: entry.hash.littleEndian, Array.init))
        }
        let gone = Set(candidates)
        var affected = Set<Int>()
        for path in candidates {
            affected.insert(StatePatcher.blockIndex(of: path, in: index, compare: comparePaths))
        }
        var result = Patch()
        result.statePaths = statePaths
        try StatePatcher.patch(
            index: index, fresh: entries, affected: affected, isGone: { gone.contains($0) },
            compare: comparePaths, entriesPerBlock: Self.entriesPerBlock,
            readPayload: { reader in Array(try reader.readBytes(8)) },
            database: database, store: store
        ) { path, old, new in
            if new == nil {
                result.removed += 1
                result.statePaths -= 1
                try emit(path, nil)
            } else {
                result.changed += 1
                if old == nil { result.statePaths += 1 }
                try emit(path, values[path])
            }
        }
        return result
    }

    /// Entries per block, as `ExportStateWriter` writes them.
    static let entriesPerBlock = ExportStateWriter.entriesPerBlock
}

/// A state's entry: its path and the bytes the state keeps after it.
struct StateEntry {
    package var path: [UInt8]
    var payload: [UInt8]
}

/// Rewrites the blocks of a state that a change touches, sharing the others.
enum StatePatcher {
    /// The block a path falls in: the last whose first path is not after it.
    static func blockIndex(
        of path: [UInt8], in index: [StateBlockReference], compare: ([UInt8], [UInt8]) -> Int
    ) -> Int {
        var low = 0
        var high = index.count
        while low < high {
            let middle = (low + high) / 2
            if compare(index[middle].first, path) <= 0 {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return max(low - 1, 0)
    }

    /// Merges `fresh` (sorted by `compare`) into the blocks of `index` they fall in and
    /// the blocks in `affected`, dropping the entries `isGone` names unless `fresh` has
    /// them again. Calls `changed` for each path whose payload differs now (nil: absent),
    /// in order; `store` receives the new state's block references in order.
    ///
    /// - Throws: `SQLiteError`, `ExportError.damagedState`, what the closures throw.
    static func patch(
        index: [StateBlockReference], fresh: [StateEntry], affected: Set<Int>,
        isGone: ([UInt8]) -> Bool, compare: ([UInt8], [UInt8]) -> Int, entriesPerBlock: Int,
        readPayload: (inout FrontCodedReader) throws -> [UInt8], database: Database,
        store: ((_ seq: Int64, _ reference: StateBlockReference) throws -> Void)?,
        changed: (_ path: [UInt8], _ old: [UInt8]?, _ new: [UInt8]?) throws -> Void
    ) throws {
        var freshByBlock: [Int: [StateEntry]] = [:]
        for entry in fresh {
            freshByBlock[blockIndex(of: entry.path, in: index, compare: compare), default: []]
                .append(entry)
        }
        let affected = affected.union(freshByBlock.keys)
        let states = ExportStore(database)
        let read = try states.blockReader()
        var seq: Int64 = 0
        func keep(_ reference: StateBlockReference) throws {
            try store?(seq, reference)
            seq += 1
        }
        // A state that was empty has no block for the first entries to fall in.
        let blocks = index.isEmpty ? [nil] : index.map { Optional($0) }
        for (position, reference) in blocks.enumerated() {
            guard affected.contains(position) else {
                if let reference { try keep(reference) }
                continue
            }
            var old: [StateEntry] = []
            if let reference {
                old = try entries(of: try read(reference.block), readPayload: readPayload)
            }
            let new = freshByBlock[position] ?? []
            let merged = try merge(
                old, new, isGone: isGone, compare: compare, changed: changed)
            guard store != nil else { continue }
            // Blocks stay near their usual size: one that grew to twice it is split.
            let size = merged.count >= 2 * entriesPerBlock ? entriesPerBlock : .max
            var start = 0
            while start < merged.count {
                let end = min(start + size, merged.count)
                var block = FrontCodedBlock(entriesPerBlock: entriesPerBlock)
                for entry in merged[start..<end] {
                    entry.path.withUnsafeBufferPointer { block.begin(path: $0) }
                    block.write(entry.payload)
                }
                let id = try states.insertBlock(block.bytes)
                try keep(StateBlockReference(first: merged[start].path, block: id))
                start = end
            }
        }
    }

    /// The entries of one stored block, in order.
    ///
    /// - Throws: `ExportError.damagedState`, what `readPayload` throws.
    private static func entries(
        of bytes: [UInt8], readPayload: (inout FrontCodedReader) throws -> [UInt8]
    ) throws -> [StateEntry] {
        var old: [StateEntry] = []
        var reader = FrontCodedReader(block: bytes, damaged: ExportError.damagedState)
        try reader.advance()
        while !reader.isAtEnd {
            let path = reader.path
            old.append(StateEntry(path: path, payload: try readPayload(&reader)))
            try reader.advance()
        }
        return old
    }

    /// Merges a block's `old` entries with the `new` ones that fall in it (both sorted by
    /// `compare`), dropping those `isGone` names, and calls `changed` for each difference.
    private static func merge(
        _ old: [StateEntry], _ new: [StateEntry], isGone: ([UInt8]) -> Bool,
        compare: ([UInt8], [UInt8]) -> Int,
        changed: (_ path: [UInt8], _ old: [UInt8]?, _ new: [UInt8]?) throws -> Void
    ) throws -> [StateEntry] {
        var merged: [StateEntry] = []
        merged.reserveCapacity(old.count + new.count)
        var oldIndex = 0
        var newIndex = 0
        while oldIndex < old.count || newIndex < new.count {
            let order =
                oldIndex == old.count
                ? 1
                : newIndex == new.count
                    ? -1 : compare(old[oldIndex].path, new[newIndex].path)
            if order < 0 {
                let entry = old[oldIndex]
                oldIndex += 1
                if isGone(entry.path) {
                    try changed(entry.path, entry.payload, nil)
                } else {
                    merged.append(entry)
                }
            } else {
                let entry = new[newIndex]
                newIndex += 1
                var previous: [UInt8]?
                if order == 0 {
                    previous = old[oldIndex].payload
                    oldIndex += 1
                }
                if previous != entry.payload {
                    try changed(entry.path, previous, entry.payload)
                }
                merged.append(entry)
            }
        }
        return merged
    }
}
