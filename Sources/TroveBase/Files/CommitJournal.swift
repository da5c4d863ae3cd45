import Foundation

/// The renames of one output set, written before the first of them, so a run killed
/// between two renames leaves a record of the set it was putting in place.
///
/// The journal (`.NAME.trove-commit`, beside the export) appears whole by a rename of its
/// own and is locked (`flock`) by its writer while the renames run; a later run that finds
/// it unlocked knows its writer is gone and completes the renames whose temporary files
/// are still there, then removes it (`TemporaryFiles.sweep`). Entries are NUL-separated
/// pairs of absolute paths: the temporary file and its destination.
package final class CommitJournal {
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
    package static func path(for output: String) -> String {
        let url = URL(fileURLWithPath: output)
        return url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).trove-commit").path
    }

    package static let suffix = ".trove-commit"

    /// Writes and locks the journal at `path`, listing `renames` in order.
    ///
    /// - Throws: `FileWriteError`.
    package static func begin(_ path: String, renames: [(from: String, to: String)]) throws
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
        let written = bytes.withUnsafeBytes { FileIO.writeAll(descriptor, $0) }
        if !written || flock(descriptor, LOCK_EX) != 0
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
    package func end() {
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
