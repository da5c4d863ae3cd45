import Foundation

/// A file written in pieces that appears whole or not at all, like `AtomicFile` for
/// output too large to hold in memory.
///
/// Bytes go to a temporary file beside the destination (`TemporaryFiles` names it and
/// removes those killed runs left); `commit` renames it into place, unless the destination
/// already holds exactly these bytes, in which case it is left untouched (its modification
/// time stays, so `make` rebuilds nothing downstream).
package final class OutputFile {
    /// Where the file is meant to appear; may change until `commit` (a name that carries
    /// the content's hash is known only at the end).
    package var path: String
    private let temporaryPath: String
    /// A spill file has no name: it is unlinked at once and read back through its
    /// descriptor, so a killed run leaves nothing behind.
    private let isSpill: Bool
    private var descriptor: Int32
    private var buffer: [UInt8] = []
    private(set) var byteCount = 0
    private var finished = false
    /// Whether `contentHash` is kept: only files named by their content need it, and
    /// hashing every byte of a large output again costs a pass over it.
    private let hashesContent: Bool
    private var hashState: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// Opens a temporary file beside `path`, creating the folder when needed;
    /// `hashesContent` keeps `contentHash` for a name known only at the end.
    ///
    /// - Throws: `FileWriteError`.
    package init(path: String, hashesContent: Bool = false) throws {
        self.path = path
        isSpill = false
        self.hashesContent = hashesContent
        let folder = (path as NSString).deletingLastPathComponent
        try Self.makeFolders(folder.isEmpty ? "." : folder, for: path)
        TemporaryFiles.sweep(folder: folder.isEmpty ? "." : folder)
        var template = Array(TemporaryFiles.template(for: path).utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw FileWriteError(path: path, errno: errno) }
        fchmod(descriptor, 0o644)
        self.descriptor = descriptor
        temporaryPath = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        buffer.reserveCapacity(Self.bufferSize)
    }

    /// Opens a nameless spill file in `folder` (the system's temporary folder), for output
    /// that goes to standard output only once everything succeeded.
    ///
    /// - Throws: `FileWriteError`.
    package init(spillIn folder: String) throws {
        isSpill = true
        hashesContent = false
        var template = Array(
            ((folder as NSString).appendingPathComponent("trove-spill-XXXXXX")).utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        let name = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        guard descriptor >= 0 else { throw FileWriteError(path: name, errno: errno) }
        unlink(name)
        self.descriptor = descriptor
        path = name
        temporaryPath = name
        buffer.reserveCapacity(Self.bufferSize)
    }

    /// Creates `folder` and its parents, reporting the first that cannot be made.
    static func makeFolders(_ folder: String, for path: String) throws {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) {
            if isFolder.boolValue { return }
            throw FileWriteError(path: path, reason: "\(folder) is not a folder", code: ENOTDIR)
        }
        let parent = (folder as NSString).deletingLastPathComponent
        if !parent.isEmpty && parent != folder { try makeFolders(parent, for: path) }
        if mkdir(folder, 0o755) != 0 && errno != EEXIST {
            let code = errno
            throw FileWriteError(
                path: path, reason: "cannot create \(folder): \(String(cString: strerror(code)))",
                code: code)
        }
    }

    deinit {
        if !finished { discard() }
    }

    private static let bufferSize = 1 << 20

    /// Appends bytes.
    ///
    /// - Throws: `FileWriteError`.
    package func write(_ bytes: [UInt8]) throws {
        bytes.withUnsafeBufferPointer { buffer.append(contentsOf: $0) }
        if buffer.count >= Self.bufferSize { try flush() }
    }

    /// Appends bytes; a large piece with nothing buffered before it goes to the file
    /// as it is, without a copy.
    ///
    /// - Throws: `FileWriteError`.
    package func write(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        if buffer.isEmpty && bytes.count >= Self.bufferSize / 8 { return try writeThrough(bytes) }
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.bufferSize { try flush() }
    }

    /// Appends bytes.
    ///
    /// - Throws: `FileWriteError`.
    package func write(_ bytes: some Sequence<UInt8>) throws {
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.bufferSize { try flush() }
    }

    /// Appends the bytes of `text`.
    ///
    /// - Throws: `FileWriteError`.
    package func write(_ text: String) throws {
        try write(text.utf8)
    }

    /// A stable 64-bit hash of the bytes written so far (whole once `close` ran), for
    /// names that change exactly when the content does; kept only for a file opened with
    /// `hashesContent`.
    package var contentHash: UInt64 {
        precondition(hashesContent, "only a file opened with hashesContent keeps its hash")
        return hashState
    }

    private func flush() throws {
        if buffer.isEmpty { return }
        defer { buffer.removeAll(keepingCapacity: true) }
        try buffer.withUnsafeBufferPointer { try writeThrough($0) }
    }

    /// Writes `bytes` to the file now, past the buffer (which must be empty).
    private func writeThrough(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        byteCount += bytes.count
        if hashesContent {
            let chunkHash = valueHash(bytes)
            hashState = (hashState ^ chunkHash) &* 0xBF58_476D_1CE4_E5B9
            hashState ^= hashState >> 31
        }
        guard FileIO.writeAll(descriptor, UnsafeRawBufferPointer(bytes)) else {
            throw FileWriteError(path: path, errno: errno)
        }
    }

    /// Writes `count` spaces, room for bytes known only later (`patch`); returns where the
    /// room starts. Patched bytes are not in `contentHash`: use it only in files not named
    /// by their hash.
    ///
    /// - Throws: `FileWriteError`.
    package func reserve(_ count: Int) throws -> Int {
        let offset = byteCount + buffer.count
        try write([UInt8](repeating: 0x20, count: count))
        return offset
    }

    /// Overwrites bytes written before (room `reserve` kept) from `offset` on, wherever
    /// they are now: still in the buffer, or in the file.
    ///
    /// - Throws: `FileWriteError`.
    package func patch(at offset: Int, _ bytes: [UInt8]) throws {
        let flushed = byteCount
        let end = offset + bytes.count
        precondition(offset >= 0 && end <= flushed + buffer.count, "patch beyond the file")
        if offset < flushed {
            let count = min(end, flushed) - offset
            let written = bytes.withUnsafeBytes {
                FileIO.writeAll(
                    descriptor, UnsafeRawBufferPointer(rebasing: $0[..<count]), at: off_t(offset))
            }
            guard written else { throw FileWriteError(path: path, errno: errno) }
        }
        if end > flushed {
            let start = max(offset, flushed)
            buffer.replaceSubrange(
                (start - flushed)..<(end - flushed), with: bytes[(start - offset)...])
        }
    }

    /// Finishes writing; the file is not yet in place.
    ///
    /// - Throws: `FileWriteError`.
    package func close() throws {
        try flush()
        if descriptor >= 0 && !isSpill {
            Foundation.close(descriptor)
            descriptor = -1
        }
    }

    /// Moves the finished file into place, unless the destination already holds the same
    /// bytes. Returns whether the destination changed.
    ///
    /// - Throws: `FileWriteError`.
    @discardableResult
    package func commit() throws -> Bool {
        if try !needsRename() { return false }
        try rename()
        return true
    }

    /// Closes the file and compares it with the destination: false when the destination
    /// already holds exactly these bytes (the temporary file is then removed).
    ///
    /// - Throws: `FileWriteError`.
    package func needsRename() throws -> Bool {
        precondition(!isSpill, "a spill file is drained, not committed")
        try close()
        if Self.sameContents(temporaryPath, path) {
            finished = true
            unlink(temporaryPath)
            return false
        }
        return true
    }

    /// Renames the closed file into place.
    ///
    /// - Throws: `FileWriteError`.
    package func rename() throws {
        finished = true
        if Foundation.rename(temporaryPath, path) != 0 {
            let code = errno
            unlink(temporaryPath)
            throw FileWriteError(path: path, errno: code)
        }
    }

    /// Leaves the temporary file for a commit journal's recovery.
    package func keepForRecovery() {
        finished = true
    }

    /// The temporary file's path, for a commit journal.
    package var stagedPath: String { temporaryPath }

    /// Why `commit` would fail, checked before any file of a set is renamed: the
    /// destination must not be a folder.
    package func checkDestination() throws {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue
        {
            throw FileWriteError(path: path, reason: "it is a folder", code: EISDIR)
        }
    }

    /// Removes the temporary file; the destination is untouched.
    package func discard() {
        if descriptor >= 0 {
            Foundation.close(descriptor)
            descriptor = -1
        }
        // A finished file is in place, gone, or kept for a commit journal.
        if !isSpill && !finished { unlink(temporaryPath) }
        finished = true
    }

    /// Reads the finished spill file in chunks that end at line breaks, so each chunk is
    /// whole UTF-8, then closes it (it has no name to remove).
    ///
    /// - Throws: `FileWriteError`.
    package func drain(_ body: (ArraySlice<UInt8>) -> Void) throws {
        try finishSpill()
        defer { closeSpill() }
        guard lseek(descriptor, 0, SEEK_SET) == 0 else {
            throw FileWriteError(path: path, errno: errno)
        }
        // Read straight into one buffer; the bytes after its last line break move to its
        // front for the next read.
        var chunk = [UInt8](repeating: 0, count: Self.bufferSize)
        var kept = 0
        while true {
            if kept == chunk.count { chunk += [UInt8](repeating: 0, count: chunk.count) }
            let count = chunk.withUnsafeMutableBytes {
                FileIO.read(descriptor, into: $0.baseAddress! + kept, count: $0.count - kept)
            }
            if count < 0 { throw FileWriteError(path: path, errno: errno) }
            if count == 0 { break }
            let filled = kept + count
            let lastBreak = chunk.withUnsafeBufferPointer {
                UnsafeBufferPointer(rebasing: $0[..<filled]).lastIndex(of: 0x0A)
            }
            guard let lastBreak else {
                kept = filled
                continue
            }
            body(chunk[...lastBreak])
            kept = filled - (lastBreak + 1)
            chunk.withUnsafeMutableBufferPointer {
                $0.baseAddress!.update(from: $0.baseAddress! + lastBreak + 1, count: kept)
            }
        }
        if kept > 0 { body(chunk[..<kept]) }
    }

    /// Sends the finished spill file to `target` (standard output) and closes it.
    ///
    /// `sendfile(2)` copies in the kernel, so the bytes never pass through the process
    /// again; where it cannot serve the descriptor (one opened for appending, `>>`), they
    /// are read back and written. A non-blocking `target` is waited on rather than dropped.
    ///
    /// - Throws: `FileWriteError` when `target` fails (the disk behind it is full, say);
    ///   part of the output may have been sent by then.
    package func drain(to target: Int32) throws {
        try finishSpill()
        defer { closeSpill() }
        var offset: off_t = 0
        while offset < off_t(byteCount) {
            let remaining = Int(off_t(byteCount) - offset)
            let sent = sendfile(target, descriptor, &offset, min(remaining, 1 << 30))
            if sent > 0 || (sent < 0 && errno == EINTR) { continue }
            if sent < 0 && (errno == EINVAL || errno == ENOSYS) && offset == 0 {
                return try drainThroughProcess(to: target)
            }
            if sent < 0 && FileIO.waitUntilWritable(target) { continue }
            // sendfile sends nothing only when the spill file ends early.
            guard sent < 0 else { throw FileWriteError(path: path, reason: "it ended early") }
            throw Self.cannotWriteStandardOutput(errno)
        }
    }

    /// `drain(to:)` for a descriptor `sendfile` cannot write to.
    private func drainThroughProcess(to target: Int32) throws {
        var failure: Int32 = 0
        try drain { chunk in
            guard failure == 0 else { return }
            if !chunk.withUnsafeBytes({ FileIO.writeAll(target, $0) }) { failure = errno }
        }
        if failure != 0 { throw Self.cannotWriteStandardOutput(failure) }
    }

    private static func cannotWriteStandardOutput(_ code: Int32) -> FileWriteError {
        // No errno: the message names what happened without a hint about folders.
        FileWriteError(
            path: "standard output",
            reason: String(cString: strerror(code)) + " (part of the output was written)")
    }

    /// Writes out what is buffered before the spill file is read back.
    private func finishSpill() throws {
        precondition(isSpill, "only a spill file is drained")
        try flush()
        finished = true
    }

    /// Closes a drained spill file (it has no name to remove); once is enough.
    private func closeSpill() {
        guard descriptor >= 0 else { return }
        Foundation.close(descriptor)
        descriptor = -1
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
