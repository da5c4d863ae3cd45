import Foundation

/// A file written in pieces that appears whole or not at all, like `AtomicFile` for
/// output too large to hold in memory.
///
/// Bytes go to a temporary file beside the destination (`TemporaryFiles` names it and
/// removes those killed runs left); `commit` renames it into place, unless the destination
/// already holds exactly these bytes, in which case it is left untouched (its modification
/// time stays, so `make` rebuilds nothing downstream).
final class OutputFile {
    /// Where the file is meant to appear; may change until `commit` (a name that carries
    /// the content's hash is known only at the end).
    var path: String
    private let temporaryPath: String
    /// A spill file has no name: it is unlinked at once and read back through its
    /// descriptor, so a killed run leaves nothing behind.
    private let isSpill: Bool
    private var descriptor: Int32
    private var buffer: [UInt8] = []
    private(set) var byteCount = 0
    private var finished = false
    private var hashState: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// Opens a temporary file beside `path`, creating the folder when needed.
    ///
    /// - Throws: `FileWriteError`.
    init(path: String) throws {
        self.path = path
        isSpill = false
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
    init(spillIn folder: String) throws {
        isSpill = true
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
    func write(_ bytes: [UInt8]) throws {
        bytes.withUnsafeBufferPointer { buffer.append(contentsOf: $0) }
        if buffer.count >= Self.bufferSize { try flush() }
    }

    /// Appends bytes.
    ///
    /// - Throws: `FileWriteError`.
    func write(_ bytes: some Sequence<UInt8>) throws {
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.bufferSize { try flush() }
    }

    /// Appends the bytes of `text`.
    ///
    /// - Throws: `FileWriteError`.
    func write(_ text: String) throws {
        try write(text.utf8)
    }

    /// A stable 64-bit hash of the bytes written so far (whole once `close` ran), for
    /// names that change exactly when the content does.
    var contentHash: UInt64 { hashState }

    private func flush() throws {
        if buffer.isEmpty { return }
        byteCount += buffer.count
        let chunkHash = buffer.withUnsafeBufferPointer { valueHash($0) }
        hashState = (hashState ^ chunkHash) &* 0xBF58_476D_1CE4_E5B9
        hashState ^= hashState >> 31
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
        let code = errno
        buffer.removeAll(keepingCapacity: true)
        if failed { throw FileWriteError(path: path, errno: code) }
    }

    /// Finishes writing; the file is not yet in place.
    ///
    /// - Throws: `FileWriteError`.
    func close() throws {
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
    func commit() throws -> Bool {
        precondition(!isSpill, "a spill file is drained, not committed")
        try close()
        finished = true
        if Self.sameContents(temporaryPath, path) {
            unlink(temporaryPath)
            return false
        }
        if rename(temporaryPath, path) != 0 {
            let code = errno
            unlink(temporaryPath)
            throw FileWriteError(path: path, errno: code)
        }
        return true
    }

    /// Why `commit` would fail, checked before any file of a set is renamed: the
    /// destination must not be a folder.
    func checkDestination() throws {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue
        {
            throw FileWriteError(path: path, reason: "it is a folder", code: EISDIR)
        }
    }

    /// Removes the temporary file; the destination is untouched.
    func discard() {
        if descriptor >= 0 {
            Foundation.close(descriptor)
            descriptor = -1
        }
        if !isSpill { unlink(temporaryPath) }
        finished = true
    }

    /// Reads the finished spill file in chunks that end at line breaks, so each chunk is
    /// whole UTF-8, then closes it (it has no name to remove).
    ///
    /// - Throws: `FileWriteError`.
    func drain(_ body: (ArraySlice<UInt8>) -> Void) throws {
        precondition(isSpill, "only a spill file is drained")
        try flush()
        finished = true
        defer {
            Foundation.close(descriptor)
            descriptor = -1
        }
        guard lseek(descriptor, 0, SEEK_SET) == 0 else {
            throw FileWriteError(path: path, errno: errno)
        }
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: Self.bufferSize)
        while true {
            let count = chunk.withUnsafeMutableBytes {
                Foundation.read(descriptor, $0.baseAddress!, $0.count)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw FileWriteError(path: path, errno: errno)
            }
            if count == 0 { break }
            pending.append(contentsOf: chunk[..<count])
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

// MARK: - Output sets

/// Output files that appear together or not at all: every file is staged beside its
/// destination first (so an unwritable folder fails before any work, and before any file
/// changes), then all are renamed into place in the order staged.
///
/// Adding an output to a command is one `stage` call. The renames follow each other in
/// microseconds after every check passed; the remaining window (a kill between two
/// renames) leaves each file old or new, never partial. A reader that must see one
/// consistent set (the `--max-bytes` parts) goes through a manifest written last, whose
/// parts carry their content's hash in their names, so old and new parts never share a
/// name.
final class OutputSet {
    /// The staged files, in commit order.
    private(set) var files: [OutputFile] = []

    /// Stages a file that will be written in pieces and become `path`.
    ///
    /// - Throws: `FileWriteError` when its folder cannot take a file.
    func stage(_ path: String) throws -> OutputFile {
        let file = try OutputFile(path: path)
        files.append(file)
        return file
    }

    /// Adds a file staged elsewhere (e.g. a writer's parts), after those staged so far.
    func adopt(_ file: OutputFile) {
        files.append(file)
    }

    /// Takes `file` out of the set and removes its temporary file: it will not be written.
    func withdraw(_ file: OutputFile) {
        file.discard()
        files.removeAll { $0 === file }
    }

    /// Moves `file` to the end of the commit order (a manifest renamed last).
    func moveToEnd(_ file: OutputFile) {
        files.removeAll { $0 === file }
        files.append(file)
    }

    /// Renames every staged file into place, in order, after checking every destination.
    ///
    /// - Returns: each destination and whether it changed (false: it already held exactly
    ///   these bytes and was left alone).
    /// - Throws: `FileWriteError`; then no file changed unless a rename failed midway.
    /// - Parameter beforeRename: called with each destination before its rename; tests
    ///   throw from it to stand for a kill between two renames.
    func commit(beforeRename: ((String) throws -> Void)? = nil) throws -> [(
        path: String, changed: Bool
    )] {
        for file in files { try file.close() }
        for file in files { try file.checkDestination() }
        var results: [(path: String, changed: Bool)] = []
        for file in files {
            try beforeRename?(file.path)
            results.append((file.path, try file.commit()))
        }
        return results
    }

    /// Removes every staged temporary file; no destination changes.
    func discard() {
        for file in files { file.discard() }
    }
}
