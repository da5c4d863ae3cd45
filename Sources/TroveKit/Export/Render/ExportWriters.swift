import Foundation
import TroveBase

// The two shapes an export takes on disk: the nested tree for `firebase database:set`,
// and multi-path update objects for `firebase database:update`. Both receive values
// rendered on one line, in database order, and never hold more than one value at a time;
// each value goes on the line of its key.

// MARK: - Tree

/// Writes entries arriving in database order as one nested JSON object.
struct TreeWriter {
    private let file: OutputFile
    /// The path of the objects currently open below the root, and where each one's key
    /// ends in it.
    private var openPath: [UInt8] = []
    private var openEnds: [Int] = []
    /// Per open level (the root first): whether it has a member yet, and its keys.
    private var hasMembers: [Bool] = [false]
    private var keys: [ArrayLikeKeys] = [ArrayLikeKeys()]
    /// Output collected here and handed to the file in large pieces (a var only so that
    /// JSON text is written into it without taking another reference).
    private var pending = RenderBuffer(capacity: Self.pendingLimit + (1 << 12))
    private var bounds: [Int] = []
    private var started = false
    /// Called with an object path and a message when an object would become an array.
    private let report: (String, String) -> Void
    private static let pendingLimit = 1 << 18

    package init(file: OutputFile, report: @escaping (String, String) -> Void) {
        self.file = file
        self.report = report
    }

    /// Writes `value` at `path` (segments joined by `/`).
    ///
    /// - Throws: `ExportError.cannotWrite`.
    package mutating func add(path: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>)
        throws
    {
        if let leaf = leafUnderOpenPath(path) {
            // The usual case: a sibling of the previous entry, under the same open object.
            memberKey(leaf)
            try append(value)
            return
        }
        bounds.removeAll(keepingCapacity: true)
        for index in 0..<path.count where path[index] == UInt8(ascii: "/") {
            bounds.append(index)
        }
        bounds.append(path.count)
        let parents = bounds.count - 1
        // Levels whose key matches the open path stay open.
        var common = 0
        while common < openEnds.count && common < parents && openEnds[common] == bounds[common] {
            let start = common == 0 ? 0 : bounds[common - 1] + 1
            if !openPath[start..<bounds[common]].elementsEqual(path[start..<bounds[common]]) {
                break
            }
            common += 1
        }
        if !started {
            pending.append(UInt8(ascii: "{"))
            started = true
        }
        while openEnds.count > common { closeLevel() }
        for level in common..<parents {
            let start = level == 0 ? 0 : bounds[level - 1] + 1
            let segment = UnsafeBufferPointer(rebasing: path[start..<bounds[level]])
            memberKey(segment)
            pending.append(UInt8(ascii: "{"))
            if level > 0 { openPath.append(UInt8(ascii: "/")) }
            openPath.append(contentsOf: segment)
            openEnds.append(bounds[level])
            hasMembers.append(false)
            keys.append(ArrayLikeKeys())
        }
        let leafStart = parents == 0 ? 0 : bounds[parents - 1] + 1
        memberKey(UnsafeBufferPointer(rebasing: path[leafStart...]))
        try append(value)
    }

    /// The last segment of `path` when the rest of it is exactly the open path.
    private func leafUnderOpenPath(_ path: UnsafeBufferPointer<UInt8>)
        -> UnsafeBufferPointer<UInt8>?
    {
        let open = openPath.count
        guard started, open > 0, path.count > open + 1, path[open] == UInt8(ascii: "/"),
            openPath.withUnsafeBufferPointer({ memcmp($0.baseAddress!, path.baseAddress!, open) })
                == 0
        else { return nil }
        let leaf = UnsafeBufferPointer(rebasing: path[(open + 1)...])
        guard memchr(leaf.baseAddress!, Int32(UInt8(ascii: "/")), leaf.count) == nil else {
            return nil
        }
        return leaf
    }

    private mutating func append(_ value: UnsafeBufferPointer<UInt8>) throws {
        pending.append(contentsOf: value)
        if pending.count >= Self.pendingLimit { try handOver() }
    }

    private mutating func handOver() throws {
        try pending.withUnsafeBufferPointer { try file.write($0) }
        pending.removeAll()
    }

    /// Closes every open object and ends the file.
    ///
    /// - Throws: `ExportError.cannotWrite`.
    mutating func finish() throws {
        while !openEnds.isEmpty { closeLevel() }
        checkArray(level: 0)
        if started {
            pending.append("\n}\n")
        } else {
            pending.append("{}\n")
        }
        try handOver()
        try file.close()
    }

    private mutating func memberKey(_ segment: UnsafeBufferPointer<UInt8>) {
        let level = openEnds.count
        if hasMembers[level] { pending.append(UInt8(ascii: ",")) }
        hasMembers[level] = true
        pending.append(0x0A)
        pending.appendSpaces((level + 1) * 2)
        keys[level].add(segment)
        JSONText.appendString(bytes: segment, to: &pending)
        pending.append(": ")
    }

    private mutating func closeLevel() {
        checkArray(level: openEnds.count)
        pending.append(0x0A)
        pending.appendSpaces(openEnds.count * 2)
        pending.append(UInt8(ascii: "}"))
        openEnds.removeLast()
        openPath.removeLast(openPath.count - (openEnds.last ?? 0))
        hasMembers.removeLast()
        keys.removeLast()
    }

    private func checkArray(level: Int) {
        guard keys[level].looksLikeArray else { return }
        let path =
            level == 0
            ? "the root" : String(decoding: openPath[..<openEnds[level - 1]], as: UTF8.self)
        report(
            path,
            "every key is an array index (\(keys[level].examples.joined(separator: ", ")), ...), "
                + "so Firebase would turn it into an array; use keys that are not numbers")
    }
}

// MARK: - Multi-path updates

/// Writes (path, value-or-null) entries as multi-path update objects, in one file or in
/// parts each smaller than a byte limit.
final class UpdateWriter {
    private let maxBytes: Int?
    private let makeFile: (Int) throws -> OutputFile
    private var current: OutputFile?
    private var currentBytes = 0
    private var currentEntries = 0
    private(set) var files: [OutputFile] = []
    private var scratch: [UInt8] = []

    /// - Parameters:
    ///   - maxBytes: each part stays below this many bytes; nil writes one file.
    ///   - makeFile: opens part N (1-based).
    package init(maxBytes: Int?, makeFile: @escaping (Int) throws -> OutputFile) {
        self.maxBytes = maxBytes
        self.makeFile = makeFile
    }

    /// The bytes `{` + entry + `\n}\n` take: the smallest part holding this entry.
    package static let frame = 4

    /// Adds `path: value`, or `path: null` when `value` is nil. Returns false when the
    /// entry alone does not fit under the byte limit (nothing is written).
    ///
    /// - Throws: `ExportError.cannotWrite`.
    package func add(path: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>?) throws
        -> Bool
    {
        encode(path: path, value: value)
        if let maxBytes {
            if scratch.count + Self.frame >= maxBytes { return false }
            if current != nil && currentBytes + 1 + scratch.count + 3 >= maxBytes {
                try endPart()
            }
        }
        if current == nil { try startPart() }
        if currentEntries > 0 {
            try current?.write(CollectionOfOne(UInt8(ascii: ",")))
            currentBytes += 1
        }
        try current?.write(scratch)
        currentBytes += scratch.count
        currentEntries += 1
        return true
    }

    /// Whether `path: value` alone fits under the byte limit, as `add` finds it, without
    /// writing it.
    func fits(path: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let maxBytes else { return true }
        encode(path: path, value: value)
        return scratch.count + Self.frame < maxBytes
    }

    /// Puts the entry's line (after the separator) in `scratch`.
    private func encode(path: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>?) {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(0x0A)
        Renderer.indent(1, into: &scratch)
        JSONText.appendString(bytes: path, to: &scratch)
        scratch.append(contentsOf: [UInt8(ascii: ":"), 0x20])
        if let value {
            scratch.append(contentsOf: value)
        } else {
            scratch.append(contentsOf: "null".utf8)
        }
    }

    /// Ends the last part. A single-file update with no entries is `{}`.
    ///
    /// - Throws: `ExportError.cannotWrite`.
    func finish() throws {
        if current == nil && maxBytes == nil {
            try startPart()
        }
        if current != nil { try endPart() }
    }

    private func startPart() throws {
        let file = try makeFile(files.count + 1)
        try file.write(CollectionOfOne(UInt8(ascii: "{")))
        current = file
        currentBytes = 1
        currentEntries = 0
    }

    private func endPart() throws {
        guard let file = current else { return }
        if currentEntries == 0 {
            try file.write([UInt8(ascii: "}"), 0x0A])
        } else {
            try file.write([0x0A, UInt8(ascii: "}"), 0x0A])
        }
        try file.close()
        files.append(file)
        current = nil
    }
}
