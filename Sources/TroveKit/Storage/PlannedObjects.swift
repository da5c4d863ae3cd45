import Foundation
import TroveBase
import TroveSQLite
import TroveStore

// The objects each output's last Storage plan held, with the token each was planned with,
// kept compactly for the next plan to compare with: in path order (bytes, as SQLite's
// BINARY collation sorts), front-coded in blocks of a few thousand objects. A million
// objects take a few tens of megabytes, written as a few hundred rows and read as a
// stream, where a row per object cost a second to insert.

/// Reads the planned objects of one output in path order, or of every output but one.
struct PlannedObjectReader {
    private var entries: FrontCodedReader
    /// The current object's token, nil when it was planned without one.
    private(set) var token: [UInt8]?

    /// Whether every object has been read.
    var isAtEnd: Bool { entries.isAtEnd }
    /// The current object's path; meaningless once `isAtEnd`.
    package var path: [UInt8] { entries.path }

    /// Opens objects whose blocks `nextBlock` returns in order (nil after the last).
    ///
    /// - Throws: `SQLiteError`, `StoragePlanError.damaged`.
    package init(blocks nextBlock: @escaping () throws -> [UInt8]?) throws {
        entries = FrontCodedReader(damaged: StoragePlanError.damaged, nextBlock: nextBlock)
        try advance()
    }

    /// Opens the objects of one block on its own.
    ///
    /// - Throws: `StoragePlanError.damaged`.
    package init(block: [UInt8]) throws {
        entries = FrontCodedReader(block: block, damaged: StoragePlanError.damaged)
        try advance()
    }

    /// Moves to the next object.
    ///
    /// - Throws: `SQLiteError`, `StoragePlanError.damaged`.
    mutating func advance() throws {
        try entries.advance()
        guard !entries.isAtEnd else { return }
        // The token's length plus one; 0 for none.
        let tokenLength = try entries.readVarint()
        token = tokenLength == 0 ? nil : Array(try entries.readBytes(tokenLength - 1))
    }

    /// Every object the export generation `generation` of `layout` referenced, for tests
    /// and tools.
    ///
    /// - Throws: `SQLiteError`, `StoragePlanError.damaged`.
    package static func all(database: Database, layout: String, generation: Int64? = nil) throws
        -> [(
            path: String, token: String?
        )]
    {
        let store = ExportStore(database)
        let latest = try store.latestObjectGeneration(layout: layout)
        return try PlannedObjectReader(
            blocks: store.blocks(.objects, layout: layout, generation: generation ?? latest)
        ).remaining()
    }

    /// Every object from the current one on, read to the end.
    ///
    /// - Throws: `StoragePlanError.damaged`, or what reading the blocks throws.
    consuming func remaining() throws -> [(path: String, token: String?)] {
        var objects: [(path: String, token: String?)] = []
        while !isAtEnd {
            objects.append(
                (
                    String(decoding: path, as: UTF8.self),
                    token.map { String(decoding: $0, as: UTF8.self) }
                ))
            try advance()
        }
        return objects
    }
}

/// Encodes planned objects, given in path order, into blocks handed to `store`.
struct PlannedObjectEncoder {
    static let entriesPerBlock = 2048
    private var block = FrontCodedBlock(entriesPerBlock: entriesPerBlock)
    private(set) var blocks = 0
    private let store: ([UInt8]) throws -> Void

    package init(store: @escaping ([UInt8]) throws -> Void) {
        self.store = store
    }

    /// Adds one object.
    ///
    /// - Throws: whatever `store` throws.
    package mutating func append(
        path: UnsafeBufferPointer<UInt8>, token: UnsafeBufferPointer<UInt8>?
    )
        throws
    {
        block.begin(path: path)
        if let token {
            block.writeVarint(token.count + 1)
            block.write(token)
        } else {
            block.writeVarint(0)
        }
        if block.isFull { try flush() }
    }

    /// Hands over the last partial block.
    ///
    /// - Throws: whatever `store` throws.
    mutating func finish() throws {
        try flush()
    }

    private mutating func flush() throws {
        guard block.entries > 0 else { return }
        try store(block.bytes)
        blocks += 1
        block.reset()
    }
}

/// Why a recorded plan cannot be used.
enum StoragePlanError: Error, CustomStringConvertible {
    case damaged

    package var description: String {
        "the recorded Storage plan cannot be read (the workspace is damaged)"
    }
}

/// Blocks set aside in an anonymous temporary file until they are recorded, first in
/// first out.
final class BlockSpill {
    private let file = SpillFile()

    /// Appends `block`.
    ///
    /// - Throws: `FileWriteError`.
    func write(_ block: [UInt8]) throws {
        var length = UInt64(block.count).littleEndian
        let written = withUnsafeBytes(of: &length) { length in
            block.withUnsafeBytes { file.append([length, $0]) }
        }
        if !written { throw FileWriteError(path: "a temporary file", errno: errno) }
    }

    /// Calls `body` with each block, in the order written; each is read back once.
    ///
    /// - Throws: `FileWriteError`, or what `body` throws.
    func forEach(_ body: ([UInt8]) throws -> Void) throws {
        while file.hasUnread {
            var length: UInt64 = 0
            var block: [UInt8] = []
            guard withUnsafeMutableBytes(of: &length, file.read) else { throw Self.unreadable }
            block = [UInt8](repeating: 0, count: Int(UInt64(littleEndian: length)))
            guard block.withUnsafeMutableBytes(file.read) else { throw Self.unreadable }
            try body(block)
        }
    }

    private static let unreadable = FileWriteError(
        path: "a temporary file", reason: "cannot read it back")
}
