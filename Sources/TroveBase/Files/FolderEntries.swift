import Foundation

/// The entries of a folder and what each is, read in one pass: a million records'
/// folders are listed without a `stat` per entry where the file system says what each
/// entry is (ext4, XFS, Btrfs and tmpfs do).
package enum FolderEntries {
    /// What an entry is, not following symbolic links.
    package enum Kind: Sendable, Equatable {
        case folder
        case file
        /// A symbolic link, a socket, a device…
        case other
    }

    /// The entries of `folder` (not `.` and `..`), in the order the file system gives
    /// them; nil when it cannot be opened.
    package static func list(_ folder: String) -> [(name: String, kind: Kind)]? {
        guard let stream = opendir(folder) else { return nil }
        defer { closedir(stream) }
        var entries: [(name: String, kind: Kind)] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(cString: $0.bindMemory(to: CChar.self).baseAddress!)
            }
            if name == "." || name == ".." { continue }
            let type = Int(entry.pointee.d_type)
            let kind: Kind
            if type == Int(DT_DIR) {
                kind = .folder
            } else if type == Int(DT_REG) {
                kind = .file
            } else if type == Int(DT_UNKNOWN) {
                kind = Self.kind(of: (folder as NSString).appendingPathComponent(name))
            } else {
                kind = .other
            }
            entries.append((name, kind))
        }
        return entries
    }

    /// What `path` is, not following a symbolic link; `.other` when it cannot be read.
    package static func kind(of path: String) -> Kind {
        var status = stat()
        guard lstat(path, &status) == 0 else { return .other }
        switch status.st_mode & S_IFMT {
        case S_IFDIR: return .folder
        case S_IFREG: return .file
        default: return .other
        }
    }
}
