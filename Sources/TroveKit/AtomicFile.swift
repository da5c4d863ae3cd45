import Foundation

/// Writes files so they appear whole or not at all, and leaves unchanged files alone.
public enum AtomicFile {
    /// Writes `data` to `path` through a temporary file and a rename. When the file already
    /// holds exactly these bytes it is not touched, so its modification time stays.
    ///
    /// - Returns: whether the file was written.
    /// - Throws: `CocoaError` from Foundation when the folder is not writable.
    @discardableResult
    public static func write(_ data: Data, to path: String) throws -> Bool {
        if let existing = FileManager.default.contents(atPath: path), existing == data {
            return false
        }
        let url = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url, options: .atomic)
        return true
    }
}
