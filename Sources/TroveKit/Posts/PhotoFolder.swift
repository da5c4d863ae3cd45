import Foundation
import TroveBase
import TroveStore

/// Where the photos `import posts --from` downloads are kept: a folder beside the
/// workspace, named after it (`trove.sqlite.photos/`), each photo in a file named by the
/// SHA-256 of its bytes.
///
/// Beside the workspace, so it goes where the workspace goes and two workspaces never
/// share one; named by content, so a photo two posts share is kept once, a file never
/// changes under a name the workspace recorded, and a photo replaced upstream gets a new
/// file while the old one stays for the versions that showed it. The photos are the
/// users' own, with their EXIF positions: the folder is private (0700, files 0600) and
/// holds a `.gitignore` of everything, and nothing in it is ever published: exports,
/// publishes and the review server send renditions re-encoded without metadata.
struct PhotoFolder: Sendable {
    /// The folder's absolute path.
    let path: String

    /// The folder of the workspace at `workspacePath`.
    init(workspacePath: String) {
        var absolute = workspacePath
        if !absolute.hasPrefix("/") {
            absolute = FileManager.default.currentDirectoryPath + "/" + absolute
        }
        path = (absolute as NSString).standardizingPath + ".photos"
    }

    /// Makes the folder when it is missing.
    ///
    /// - Throws: `PullError` when it cannot be made.
    func prepare() throws(PullError) {
        var status = stat()
        if stat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFDIR else {
                throw PullError("cannot keep photos in \(path): it is not a folder")
            }
            return
        }
        guard mkdir(path, 0o700) == 0 || errno == EEXIST else {
            throw PullError(
                "cannot make the photo folder \(path): \(String(cString: strerror(errno)))")
        }
        // Users' photos with their positions: never committed by a `git add -A`.
        let ignore =
            "# Photos downloaded by trove import posts --from: users' own, with their\n"
            + "# GPS positions. Never commit or publish them.\n*\n"
        _ = FileManager.default.createFile(
            atPath: path + "/.gitignore", contents: Data(ignore.utf8),
            attributes: [.posixPermissions: 0o600])
    }

    /// The absolute path of a file in the folder.
    func path(of file: String) -> String { path + "/" + file }

    /// Whether the folder holds `file` with `bytes` bytes (a file cut short by a crash, or
    /// removed by hand, is not there).
    func holds(_ file: String, bytes: Int) -> Bool {
        var status = stat()
        return stat(path(of: file), &status) == 0 && status.st_mode & S_IFMT == S_IFREG
            && Int(status.st_size) == bytes
    }

    /// A new private file to download into, open for writing.
    ///
    /// - Throws: `PullError`.
    func temporaryFile() throws(PullError) -> (path: String, descriptor: Int32) {
        let name = path(of: ".download-\(UUID().uuidString)")
        let descriptor = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw PullError("cannot write in \(path): \(String(cString: strerror(errno)))")
        }
        return (name, descriptor)
    }

    /// The file name for bytes of this SHA-256 and first bytes: the hash and an extension
    /// from the format (`.jpg`, `.png`, else `.bin`).
    static func fileName(sha256: String, start: [UInt8]) -> String {
        if start.starts(with: [0xFF, 0xD8, 0xFF]) { return sha256 + ".jpg" }
        if start.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return sha256 + ".png" }
        return sha256 + ".bin"
    }
}
