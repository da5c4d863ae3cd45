import Foundation

/// What tells one file from another without reading it: device, inode, size and the time
/// of the last change, as `stat` gives them. Two paths with one stamp (a hard link, the
/// same file reached twice) are one file; a file rewritten in place gets another stamp.
package struct FileStamp: Hashable, Sendable {
    package let device: UInt64
    package let inode: UInt64
    package let size: Int64
    package let modified: Int64
    package let modifiedNanoseconds: Int64

    /// The stamp of the file at `path`, following links; nil when it cannot be had.
    package init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        size = Int64(status.st_size)
        #if os(Linux)
            modified = Int64(status.st_mtim.tv_sec)
            modifiedNanoseconds = Int64(status.st_mtim.tv_nsec)
        #else
            modified = Int64(status.st_mtimespec.tv_sec)
            modifiedNanoseconds = Int64(status.st_mtimespec.tv_nsec)
        #endif
    }
}
