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
        defer { buffer.removeAll(keepingCapacity: true) }
        try buffer.withUnsafeBufferPointer { try writeThrough($0) }
    }

    /// Writes `bytes` to the file now, past the buffer (which must be empty).
    private func writeThrough(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        byteCount += bytes.count
        let chunkHash = valueHash(bytes)
        hashState = (hashState ^ chunkHash) &* 0xBF58_476D_1CE4_E5B9
        hashState ^= hashState >> 31
        var offset = 0
        while offset < bytes.count {
            let written = Foundation.write(
                descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw FileWriteError(path: path, errno: errno)
            }
            offset += written
        }
    }

    /// Writes `count` spaces, room for bytes known only later (`patch`); returns where the
    /// room starts. Patched bytes are not in `contentHash`: use it only in files not named
    /// by their hash.
    ///
    /// - Throws: `FileWriteError`.
    func reserve(_ count: Int) throws -> Int {
        let offset = byteCount + buffer.count
        try write([UInt8](repeating: 0x20, count: count))
        return offset
    }

    /// Overwrites bytes written before (room `reserve` kept) from `offset` on, wherever
    /// they are now: still in the buffer, or in the file.
    ///
    /// - Throws: `FileWriteError`.
    func patch(at offset: Int, _ bytes: [UInt8]) throws {
        let flushed = byteCount
        let end = offset + bytes.count
        precondition(offset >= 0 && end <= flushed + buffer.count, "patch beyond the file")
        if offset < flushed {
            let count = min(end, flushed) - offset
            var done = 0
            while done < count {
                let written = bytes.withUnsafeBytes {
                    pwrite(descriptor, $0.baseAddress! + done, count - done, off_t(offset + done))
                }
                if written < 0 {
                    if errno == EINTR { continue }
                    throw FileWriteError(path: path, errno: errno)
                }
                done += written
            }
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
        if try !needsRename() { return false }
        try rename()
        return true
    }

    /// Closes the file and compares it with the destination: false when the destination
    /// already holds exactly these bytes (the temporary file is then removed).
    ///
    /// - Throws: `FileWriteError`.
    func needsRename() throws -> Bool {
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
    func rename() throws {
        finished = true
        if Foundation.rename(temporaryPath, path) != 0 {
            let code = errno
            unlink(temporaryPath)
            throw FileWriteError(path: path, errno: code)
        }
    }

    /// Leaves the temporary file for a commit journal's recovery.
    func keepForRecovery() {
        finished = true
    }

    /// The temporary file's path, for a commit journal.
    var stagedPath: String { temporaryPath }

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
        // A finished file is in place, gone, or kept for a commit journal.
        if !isSpill && !finished { unlink(temporaryPath) }
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
/// microseconds after every check passed. For the window that remains (a kill between two
/// renames) a commit journal is in place first (`CommitJournal`): it lists every rename,
/// the next run that writes into the folder completes them, and the Storage plan's script
/// refuses to run while one is there. A reader that must see one consistent set without
/// trove (the `--max-bytes` parts) goes through a manifest renamed last, whose parts carry
/// their content's hash in their names, so old and new parts never share a name.
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
    /// - Throws: `FileWriteError`; then no file changed unless a rename failed midway, in
    ///   which case the journal stays for the next run to complete the set.
    /// - Parameters:
    ///   - journal: where the commit journal goes when more than one file changes; nil
    ///     for none.
    ///   - beforeRename: called with each destination before its rename; tests throw from
    ///     it to stand for a kill between two renames.
    func commit(journal: String? = nil, beforeRename: ((String) throws -> Void)? = nil) throws
        -> [(path: String, changed: Bool)]
    {
        for file in files { try file.close() }
        for file in files { try file.checkDestination() }
        // Comparisons first (they read whole files), so the renames follow each other.
        let changed = try files.map { try $0.needsRename() }
        let renamed = zip(files, changed).filter(\.1).map(\.0)
        let entry =
            try journal.flatMap { path in
                renamed.count > 1
                    ? try CommitJournal.begin(
                        path, renames: renamed.map { ($0.stagedPath, $0.path) }) : nil
            }
        var done = 0
        do {
            for file in renamed {
                try beforeRename?(file.path)
                try file.rename()
                done += 1
            }
        } catch {
            // The journal stays and lists the rest: kept for the next run to put in place.
            if entry != nil { for file in renamed[done...] { file.keepForRecovery() } }
            throw error
        }
        entry?.end()
        return zip(files, changed).map { ($0.path, $1) }
    }

    /// Removes every staged temporary file; no destination changes.
    func discard() {
        for file in files { file.discard() }
    }
}

// MARK: - Commit journal

/// The renames of one output set, written before the first of them, so a run killed
/// between two renames leaves a record of the set it was putting in place.
///
/// The journal (`.NAME.trove-commit`, beside the export) appears whole by a rename of its
/// own and is locked (`flock`) by its writer while the renames run; a later run that finds
/// it unlocked knows its writer is gone and completes the renames whose temporary files
/// are still there, then removes it (`TemporaryFiles.sweep`). Entries are NUL-separated
/// pairs of absolute paths: the temporary file and its destination.
final class CommitJournal {
    private let path: String
    private var descriptor: Int32

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    /// A journal not ended stays for the next run, unlocked.
    deinit {
        if descriptor >= 0 { Foundation.close(descriptor) }
    }

    /// The journal's name for an export written to `output`.
    static func path(for output: String) -> String {
        let url = URL(fileURLWithPath: output)
        return url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).trove-commit").path
    }

    static let suffix = ".trove-commit"

    /// Writes and locks the journal at `path`, listing `renames` in order.
    ///
    /// - Throws: `FileWriteError`.
    static func begin(_ path: String, renames: [(from: String, to: String)]) throws
        -> CommitJournal
    {
        var bytes: [UInt8] = []
        for rename in renames {
            bytes += Array(absolute(rename.from).utf8) + [0] + Array(absolute(rename.to).utf8) + [0]
        }
        var template = Array(TemporaryFiles.template(for: path).utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw FileWriteError(path: path, errno: errno) }
        let staged = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        let written = bytes.withUnsafeBytes {
            Foundation.write(descriptor, $0.baseAddress!, $0.count)
        }
        if written != bytes.count || flock(descriptor, LOCK_EX) != 0
            || Foundation.rename(staged, path) != 0
        {
            let code = errno
            Foundation.close(descriptor)
            unlink(staged)
            throw FileWriteError(path: path, errno: code)
        }
        return CommitJournal(path: path, descriptor: descriptor)
    }

    /// Removes the journal: every rename is done.
    func end() {
        unlink(path)
        Foundation.close(descriptor)
        descriptor = -1
    }

    private static func absolute(_ path: String) -> String {
        path.hasPrefix("/")
            ? path
            : (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(path)
    }

    /// Completes the renames of the journal at `path` if its writer is gone, then removes
    /// it. Returns whether it did (false: a running trove holds it, or it is unreadable).
    @discardableResult
    static func recover(_ path: String) -> Bool {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return false }
        defer { Foundation.close(descriptor) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return false }
        guard let data = FileManager.default.contents(atPath: path) else { return false }
        let fields = data.split(separator: 0, omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
        var index = 0
        while index + 1 < fields.count {
            let (from, to) = (fields[index], fields[index + 1])
            if access(from, F_OK) == 0 { _ = Foundation.rename(from, to) }
            index += 2
        }
        unlink(path)
        return true
    }
}
