import Foundation

/// Second names for files already written: a hard link costs no data write, so many
/// outputs with the same bytes cost one write and one name each.
public enum SharedFile {
    /// Gives the file at `existing` the name `path` as well (a hard link), creating the
    /// folder of `path` when needed; true when `path` now names that file.
    ///
    /// False, leaving the caller to write the bytes itself, when the link cannot be made:
    /// `existing` is gone, the file system has no hard links or the file has as many as
    /// it allows (ext4: 65,000), or `path` already names another file (it may hold other
    /// bytes).
    public static func link(_ existing: String, to path: String) -> Bool {
        if Foundation.link(existing, path) == 0 { return true }
        switch errno {
        case ENOENT:
            // The folder of `path` is new (or `existing` is gone, and the link fails
            // again); its parent is there already but for the first record of a run.
            let folder = (path as NSString).deletingLastPathComponent
            if mkdir(folder, 0o755) != 0 && errno != EEXIST {
                guard (try? OutputFile.makeFolders(folder.isEmpty ? "." : folder, for: path)) != nil
                else { return false }
            }
            return Foundation.link(existing, path) == 0
        case EEXIST:
            return isSameFile(existing, path)
        default:
            return false
        }
    }

    /// Whether both paths name one file (one device, one inode).
    static func isSameFile(_ first: String, _ second: String) -> Bool {
        var a = stat()
        var b = stat()
        guard stat(first, &a) == 0, stat(second, &b) == 0 else { return false }
        return a.st_dev == b.st_dev && a.st_ino == b.st_ino
    }
}
