import Foundation

/// A file written in pieces that appears whole or not at all, like `AtomicFile` for
/// output too large to hold in memory.
///
/// Bytes go to a temporary file beside the destination; `commit` renames it into place,
/// unless the destination already holds exactly these bytes, in which case it is left
/// untouched (its modification time stays, so `make` rebuilds nothing downstream).
final class OutputFile {
    /// Where the file is meant to appear.
    let path: String
    private let temporaryPath: String
    private var descriptor: Int32
    private var buffer: [UInt8] = []
    private(set) var byteCount = 0
    private var finished = false

    /// Opens a temporary file beside `path`, creating the folder when needed.
    ///
    /// - Throws: `ExportError.cannotWrite`.
    init(path: String) throws {
        self.path = path
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw ExportError.cannotWrite(path: path, reason: error.localizedDescription)
        }
        var template = Array(
            folder.appendingPathComponent(".\(url.lastPathComponent).trove-XXXXXX").path.utf8CString
        )
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            throw ExportError.cannotWrite(path: path, reason: String(cString: strerror(errno)))
        }
        fchmod(descriptor, 0o644)
        self.descriptor = descriptor
        temporaryPath = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        buffer.reserveCapacity(Self.bufferSize)
    }

    deinit {
        if !finished { discard() }
    }

    private static let bufferSize = 1 << 20

    /// Appends bytes.
    ///
    /// - Throws: `ExportError.cannotWrite`.
    func write(_ bytes: [UInt8]) throws {
        bytes.withUnsafeBufferPointer { buffer.append(contentsOf: $0) }
        if buffer.count >= Self.bufferSize { try flush() }
    }

    /// Appends bytes.
    ///
    /// - Throws: `ExportError.cannotWrite`.
    func write(_ bytes: some Sequence<UInt8>) throws {
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.bufferSize { try flush() }
    }

    /// Appends the bytes of `text`.
    ///
    /// - Throws: `ExportError.cannotWrite`.
    func write(_ text: String) throws {
        try write(text.utf8)
    }

    private func flush() throws {
        byteCount += buffer.count
        let failed = buffer.withUnsafeBytes { raw -> Bool in
            var offset = 0
            while offset < raw.count {
                let written = Foundation.write(
                    descriptor, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return true
                }
                offset += written
            }
            return false
        }
        buffer.removeAll(keepingCapacity: true)
        if failed {
            throw ExportError.cannotWrite(path: path, reason: String(cString: strerror(errno)))
        }
    }

    /// Finishes writing; the file is not yet in place.
    ///
    /// - Throws: `ExportError.cannotWrite`.
    func close() throws {
        try flush()
        if descriptor >= 0 {
            Foundation.close(descriptor)
            descriptor = -1
        }
    }

    /// Moves the finished file into place, unless the destination already holds the same
    /// bytes. Returns whether the destination changed.
    ///
    /// - Throws: `ExportError.cannotWrite`.
    @discardableResult
    func commit() throws -> Bool {
        try close()
        finished = true
        if Self.sameContents(temporaryPath, path) {
            unlink(temporaryPath)
            return false
        }
        if rename(temporaryPath, path) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(temporaryPath)
            throw ExportError.cannotWrite(path: path, reason: reason)
        }
        return true
    }

    /// Removes the temporary file; the destination is untouched.
    func discard() {
        if descriptor >= 0 {
            Foundation.close(descriptor)
            descriptor = -1
        }
        unlink(temporaryPath)
        finished = true
    }

    /// Reads the finished (uncommitted) file in chunks that end at line breaks, so each
    /// chunk is whole UTF-8, then removes it.
    ///
    /// - Throws: `ExportError.cannotWrite`.
    func drain(_ body: (ArraySlice<UInt8>) -> Void) throws {
        try close()
        finished = true
        defer { unlink(temporaryPath) }
        guard let handle = FileHandle(forReadingAtPath: temporaryPath) else {
            throw ExportError.cannotWrite(path: temporaryPath, reason: "cannot read it back")
        }
        defer { try? handle.close() }
        var pending: [UInt8] = []
        while true {
            let data = handle.readData(ofLength: Self.bufferSize)
            if data.isEmpty { break }
            pending.append(contentsOf: data)
            if let lastBreak = pending.lastIndex(of: 0x0A) {
                body(pending[...lastBreak])
                pending.removeFirst(lastBreak + 1)
            }
        }
        if !pending.isEmpty { body(pending[...]) }
    }

    /// Whether two files hold the same bytes (false when either cannot be read).
    private static func sameContents(_ first: String, _ second: String) -> Bool {
        guard let firstAttributes = try? FileManager.default.attributesOfItem(atPath: first),
            let secondAttributes = try? FileManager.default.attributesOfItem(atPath: second),
            (firstAttributes[.size] as? NSNumber)?.int64Value
                == (secondAttributes[.size] as? NSNumber)?.int64Value,
            let a = FileHandle(forReadingAtPath: first),
            let b = FileHandle(forReadingAtPath: second)
        else { return false }
        defer {
            try? a.close()
            try? b.close()
        }
        while true {
            let left = a.readData(ofLength: bufferSize)
            let right = b.readData(ofLength: bufferSize)
            if left != right { return false }
            if left.isEmpty { return true }
        }
    }
}
