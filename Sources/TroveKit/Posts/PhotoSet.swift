import Foundation
import TroveBase
import TroveStore

/// The photo files of one import's posts, each read at most once: posts that share a
/// reference share its resolution, references that reach one file (the same device,
/// inode, size and modification time) share one read, hash and decode, and a file whose
/// stamp is as when an earlier import read it (`photo_files`) is not read at all.
struct PhotoSet: Sendable {
    /// Per post: how its reference turned out.
    private(set) var resolution: [PhotoResolution] = []
    /// Per post: the number of its file, when it has one.
    private(set) var file: [Int?] = []
    /// Per file: its real path.
    private var paths: [String] = []
    /// Per file: its stamp as `photo_files` keeps it, nil when it is not to be kept.
    private var stamps: [String?] = []
    /// Per file: what reading it gave, nil until it is read.
    private(set) var outcome: [Result<PhotoFacts, ImageFile.Failure>?] = []

    /// Resolves the photo references of `posts` with `resolver` (none without one), and
    /// takes the stored facts of the files unchanged since they were read.
    ///
    /// - Throws: `WorkspaceError` or `SQLiteError` from the workspace.
    init(_ posts: [PostInput], resolver: PhotoResolver?, workspace: Workspace) throws {
        // Per reference: its resolution and file number, so a file is looked at once per
        // reference, not once per post.
        var resolutions: [String: (PhotoResolution, Int?)] = [:]
        var numbers: [PhotoFile: Int] = [:]
        resolution.reserveCapacity(posts.count)
        file.reserveCapacity(posts.count)
        for post in posts {
            if let reference = post.photo, let (resolved, number) = resolutions[reference] {
                resolution.append(resolved)
                file.append(number)
                continue
            }
            let resolved = resolver?.resolve(post.photo) ?? .none
            var number: Int?
            if case .file(let path) = resolved {
                let key = PhotoFile(path)
                if let known = numbers[key] {
                    number = known
                } else {
                    number = paths.count
                    numbers[key] = paths.count
                    paths.append(path)
                }
            }
            if let reference = post.photo { resolutions[reference] = (resolved, number) }
            resolution.append(resolved)
            file.append(number)
        }
        stamps = paths.map(Self.stamp)
        outcome = Array(repeating: nil, count: paths.count)
        guard stamps.contains(where: { $0 != nil }) else { return }
        let store = PostStore(workspace)
        try workspace.read {
            let lookup = try store.photoFileLookup()
            for number in paths.indices {
                guard let stamp = stamps[number], let stored = try lookup(paths[number]),
                    stored.stamp == stamp
                else { continue }
                outcome[number] = .success(stored.facts)
            }
        }
    }

    /// Reads and inspects files `numbers`, on every core (the slow part of an import).
    ///
    /// - Returns: the numbers of the files that could be read, for `save`.
    mutating func read(_ numbers: [Int], inspector: any PhotoInspecting) -> [Int] {
        let paths = numbers.map { self.paths[$0] }
        let results = parallelMap(
            count: paths.count, threads: ProcessInfo.processInfo.activeProcessorCount
        ) { index -> Result<PhotoFacts, ImageFile.Failure> in
            PhotoResolver.read(paths[index]).map { inspector.inspect($0) }
        }
        var read: [Int] = []
        for (number, result) in zip(numbers, results) {
            outcome[number] = result
            if case .success = result { read.append(number) }
        }
        return read
    }

    /// Records what files `numbers` held, for the next import. Call inside
    /// `Workspace.write`.
    ///
    /// - Throws: `SQLiteError`.
    func save(_ numbers: [Int], in workspace: Workspace) throws {
        let kept = numbers.filter { stamps[$0] != nil }
        guard !kept.isEmpty else { return }
        let save = try PostStore(workspace).photoFileWriter()
        for number in kept {
            guard let stamp = stamps[number], case .success(let facts)? = outcome[number]
            else { continue }
            try save(paths[number], stamp, facts)
        }
    }

    /// The file's device, inode, size, and modification and status-change times to the
    /// nanosecond; nil when it cannot be had, or when the file was modified in the last
    /// two seconds: a file rewritten within one tick of the file system's clock keeps its
    /// times, so only facts read well after the last write are kept (git's "racily
    /// clean" rule).
    static func stamp(_ path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        #if os(Linux)
            let modified = status.st_mtim, changed = status.st_ctim
        #else
            let modified = status.st_mtimespec, changed = status.st_ctimespec
        #endif
        guard Int(modified.tv_sec) < Int(Date().timeIntervalSince1970) - 2 else { return nil }
        return "\(status.st_dev):\(status.st_ino):\(status.st_size):"
            + "\(modified.tv_sec).\(modified.tv_nsec):\(changed.tv_sec).\(changed.tv_nsec)"
    }
}
