import Foundation

/// Writes files so they appear whole or not at all, and leaves unchanged files alone.
public enum AtomicFile {
    /// Writes `data` to `path` through a temporary file and a rename. When the file already
    /// holds exactly these bytes it is not touched, so its modification time stays.
    ///
    /// The temporary file is trove's own (`TemporaryFiles`), so one left by a killed run
    /// is recognised and removed by the next; Foundation's atomic write would leave an
    /// anonymous `.dat.nosync*` file instead.
    /// - Returns: whether the file was written.
    /// - Throws: `FileWriteError` naming the path and the system's reason.
    @discardableResult
    public static func write(_ data: Data, to path: String) throws -> Bool {
        if let existing = FileManager.default.contents(atPath: path), existing == data {
            return false
        }
        let file = try OutputFile(path: path)
        do {
            try file.write(Array(data))
            try file.commit()
        } catch {
            file.discard()
            throw error
        }
        return true
    }
}

/// An output file that could not be written: the path, the system's reason, and what to
/// do about it, in words that read well after `error: `.
public struct FileWriteError: Error, CustomStringConvertible, Equatable {
    /// The file that was to be written.
    public let path: String
    /// The system's reason (`strerror`), e.g. "Permission denied".
    public let reason: String
    /// The `errno` value behind it, 0 when there was none.
    public let code: Int32

    public init(path: String, reason: String, code: Int32 = 0) {
        self.path = path
        self.reason = reason
        self.code = code
    }

    /// From the current `errno`.
    package init(path: String, errno code: Int32) {
        self.init(path: path, reason: String(cString: strerror(code)), code: code)
    }

    public var description: String {
        var text = "cannot write \(path): \(reason)"
        switch code {
        case EACCES, EPERM, EROFS:
            text += "; make its folder writable or choose another path"
        case ENOSPC, EDQUOT:
            text += "; free some space and run again"
        case ENOTDIR, EISDIR:
            text += "; choose a path whose folders are folders and that is not one itself"
        default: break
        }
        return text + " (nothing was written)"
    }
}

// MARK: - Temporary files

/// The temporary files trove writes beside its outputs, and the removal of those that
/// killed runs left behind.
///
/// A temporary file is named `.NAME.trove-PID-XXXXXX`: hidden, beside the file it will
/// become (so the final rename stays on one file system), and carrying the writer's process
/// id, so a later run removes exactly those whose writer is gone and never one that a
/// running trove is still writing.
public enum TemporaryFiles {
    /// The `mkstemp` template for a temporary file that will become `path`.
    static func template(for path: String) -> String {
        let url = URL(fileURLWithPath: path)
        return url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).trove-\(getpid())-XXXXXX").path
    }

    /// Files that earlier trove versions or Foundation left without a process id are
    /// removed only when older than this: no write of trove's takes that long.
    static let anonymousAge: TimeInterval = 15 * 60

    private static let swept = LockedValue(Set<String>())

    /// Removes, once per process and folder, the temporary files in `folder` whose writer
    /// is gone. Failures are ignored: cleaning up is a courtesy, never a reason to fail.
    public static func sweep(folder: String) {
        let first = swept.withLock { $0.insert(folder).inserted }
        if first { sweepNow(folder: folder) }
    }

    /// Removes the stale temporary files in `folder` now; returns the names removed.
    @discardableResult
    static func sweepNow(folder: String, now: Date = Date()) -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else {
            return []
        }
        var removed: [String] = []
        // A set a killed run was putting in place is completed first: its journal lists
        // temporary files that are not stale but the new outputs.
        for name in names where name.hasPrefix(".") && name.hasSuffix(CommitJournal.suffix) {
            if CommitJournal.recover((folder as NSString).appendingPathComponent(name)) {
                removed.append(name)
            }
        }
        for name in names where name.hasPrefix(".") && isStale(name, in: folder, now: now) {
            if unlink((folder as NSString).appendingPathComponent(name)) == 0 {
                removed.append(name)
            }
        }
        return removed
    }

    /// Whether `name` is a temporary file of trove's (or Foundation's atomic write) that
    /// no running process will finish.
    static func isStale(_ name: String, in folder: String, now: Date) -> Bool {
        if name.hasSuffix(CommitJournal.suffix) { return false }
        if let marker = name.range(of: ".trove-", options: .backwards) {
            let rest = name[marker.upperBound...]
            let parts = rest.split(separator: "-", omittingEmptySubsequences: false)
            if parts.count == 2, parts[1].count == 6, let pid = Int32(parts[0]), pid > 0 {
                return !isRunning(pid)
            }
            if parts.count == 1, rest.count == 6 {
                return isOlder(name, in: folder, than: anonymousAge, now: now)
            }
            return false
        }
        if name.hasPrefix(".dat.nosync") {
            return isOlder(name, in: folder, than: anonymousAge, now: now)
        }
        return false
    }

    /// Whether a process with this id exists (a zombie or another user's counts).
    static func isRunning(_ pid: Int32) -> Bool {
        if pid == getpid() { return true }
        return kill(pid, 0) == 0 || errno == EPERM
    }

    private static func isOlder(
        _ name: String, in folder: String, than age: TimeInterval, now: Date
    ) -> Bool {
        let path = (folder as NSString).appendingPathComponent(name)
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let modified = attributes[.modificationDate] as? Date
        else { return false }
        return now.timeIntervalSince(modified) > age
    }
}

/// A value shared between threads behind a lock.
package final class LockedValue<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    package init(_ value: Value) { self.value = value }

    package func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
