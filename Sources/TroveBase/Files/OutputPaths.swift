import Foundation

/// What an output file holds, so that an existing file at its path is replaced only when
/// it is one trove writes there.
///
/// An existing file is recognised by its first bytes: trove's outputs have fixed openings
/// (an export's JSON object, the Storage plan script's header, the review sheet's doctype,
/// the rejects file's header line) that a workspace (`SQLite format 3`), a photo or a
/// spreadsheet never has. An empty file holds nothing to lose and is always replaced.
public enum OutputKind: Sendable, Equatable {
    /// A JSON document: an export's tree or update, a parts manifest, a Storage plan.
    case json
    /// The Storage plan's `gcloud storage` script.
    case storageScript
    /// `review sheet`'s HTML page.
    case reviewSheet
    /// `--rejects`: the skipped rows as CSV.
    case rejects
    /// Written only when nothing is there (`export --rules`), so never replaces a file.
    case writtenIfMissing
    /// A folder trove writes files into (`images --out`).
    case folder

    /// How the kind reads in a message.
    var noun: String {
        switch self {
        case .json: "a JSON file trove wrote"
        case .storageScript: "a Storage plan script trove wrote"
        case .reviewSheet: "a review sheet trove wrote"
        case .rejects: "a rejects file trove wrote"
        case .writtenIfMissing, .folder: "trove's"
        }
    }

    /// Whether `head`, the first bytes of an existing regular file, are this kind's.
    func recognises(_ head: [UInt8]) -> Bool {
        var bytes = head[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        if bytes.isEmpty { return true }
        func startsWith(_ text: String, ignoringCase: Bool = false) -> Bool {
            let prefix = bytes.prefix(text.utf8.count)
            let read = String(decoding: prefix, as: UTF8.self)
            return ignoringCase ? read.lowercased() == text.lowercased() : read == text
        }
        switch self {
        case .json:
            let first = bytes.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
            return first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
        case .storageScript: return startsWith("#!/bin/sh\n# Firebase Storage plan")
        case .reviewSheet: return startsWith("<!DOCTYPE html", ignoringCase: true)
        // Treasures' rejects, then posts'.
        case .rejects:
            return startsWith("file,line,feature,code,reason")
                || startsWith("file,line,record,reason")
        case .writtenIfMissing, .folder: return true
        }
    }
}

/// A path a command line names, with how to name it in a message (`--out`, `<file>`).
public struct NamedPath: Sendable {
    public let label: String
    public let path: String

    public init(_ label: String, _ path: String) {
        self.label = label
        self.path = path
    }
}

/// An output path that would destroy what trove reads, or a file trove did not write;
/// a usage error (exit 2).
public struct OutputPathError: Error, CustomStringConvertible, Equatable {
    public let message: String
    public var description: String { message }
}

/// The check every command's outputs pass before anything is written: no output is the
/// workspace (or its `-wal`, `-shm`, `-journal`), an input or another output, and an
/// existing file is replaced only when it is of the output's kind (or with `--force`).
///
/// Paths are compared as the files they name: an existing file by device and inode, so
/// symbolic and hard links to the workspace count as the workspace; a file not yet made
/// by its path with every symbolic link of its folders resolved.
public enum OutputPaths {
    /// - Parameters:
    ///   - outputs: the files (or folders) the command may write, with their kinds.
    ///   - inputs: the files and folders it reads; those that do not exist are ignored.
    ///   - workspace: the workspace's path when the command uses one.
    ///   - force: `--force`: an existing file of another kind may be replaced (never an
    ///     input or the workspace).
    ///   - recorded: what the workspace records at an output's path and kind (a file it
    ///     read, a file it made for the apps), in words that follow "is"; such an output is
    ///     refused, `--force` or not. Asked after the inputs, before the kind.
    /// - Throws: `OutputPathError` naming both paths.
    public static func check(
        outputs: [(NamedPath, OutputKind)], inputs: [NamedPath], workspace: String?,
        force: Bool, recorded: (String, OutputKind) -> String? = { _, _ in nil }
    ) throws(OutputPathError) {
        var protected = inputs
        if let workspace {
            protected.append(NamedPath("the workspace", workspace))
            for suffix in ["-wal", "-shm", "-journal"] {
                protected.append(NamedPath("the workspace's \(suffix) file", workspace + suffix))
                let real = resolved(workspace)
                if real != workspace {
                    protected.append(NamedPath("the workspace's \(suffix) file", real + suffix))
                }
            }
        }
        var seen: [NamedPath] = []
        for (output, kind) in outputs {
            for input in protected where same(output.path, input.path) {
                throw OutputPathError(
                    message:
                        "\(output.label) \(output.path) is "
                        + (input.label.hasPrefix("the ")
                            ? input.label : "the input \(input.label) \(input.path)")
                        + "; writing it would destroy what trove reads: choose another path")
            }
            for other in seen where same(output.path, other.path) {
                throw OutputPathError(
                    message:
                        "\(output.label) \(output.path) and \(other.label) \(other.path) are the"
                        + " same file; give each its own path")
            }
            seen.append(output)
            if let what = recorded(output.path, kind) {
                throw OutputPathError(
                    message:
                        "\(output.label) \(output.path) is \(what); writing it would destroy what"
                        + " trove reads, --force or not: choose another path")
            }
            try checkExisting(output, kind: kind, force: force)
        }
    }

    /// An existing output must be a regular file (a folder for `.folder`) of its kind.
    private static func checkExisting(_ output: NamedPath, kind: OutputKind, force: Bool)
        throws(OutputPathError)
    {
        var status = stat()
        guard stat(output.path, &status) == 0 else { return }
        let type = status.st_mode & S_IFMT
        if kind == .folder {
            if type == S_IFDIR { return }
            throw OutputPathError(
                message:
                    "\(output.label) \(output.path) exists and is not a folder; choose a folder")
        }
        // A folder in a file's place is refused where the file is staged (`OutputFile`).
        if type == S_IFDIR { return }
        guard type == S_IFREG else {
            throw OutputPathError(
                message:
                    "\(output.label) \(output.path) is not a regular file; choose a file's path")
        }
        if force || kind.recognises(head(of: output.path)) { return }
        throw OutputPathError(
            message:
                "\(output.label) \(output.path) exists and is not \(kind.noun); pass --force to"
                + " replace it, or choose another path")
    }

    /// Whether an output of `kind` at `path` would replace a regular file of another kind
    /// (one not empty and not recognised by its first bytes): a file trove did not write,
    /// which only `--force` replaces, and then only when the workspace does not record it
    /// as read.
    public static func replacesAnotherKind(_ path: String, kind: OutputKind) -> Bool {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return false }
        return !kind.recognises(head(of: path))
    }

    /// The first bytes of a regular file (empty when it cannot be read).
    static func head(of path: String, count: Int = 64) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return [] }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: count)
        let got = bytes.withUnsafeMutableBytes {
            FileIO.read(descriptor, into: $0.baseAddress!, count: count)
        }
        return Array(bytes.prefix(max(got, 0)))
    }

    /// Whether two paths name the same file: by device and inode when both exist, else by
    /// their resolved paths.
    public static func same(_ first: String, _ second: String) -> Bool {
        var a = stat()
        var b = stat()
        if stat(first, &a) == 0 && stat(second, &b) == 0 {
            return a.st_dev == b.st_dev && a.st_ino == b.st_ino
        }
        return resolved(first) == resolved(second)
    }

    /// `path` with every symbolic link resolved; for a path not yet made, its nearest
    /// existing folder resolved and the rest appended.
    public static func resolved(_ path: String) -> String {
        if let real = realpath(path, nil) {
            defer { free(real) }
            return String(cString: real)
        }
        let parent = (path as NSString).deletingLastPathComponent
        if parent.isEmpty || parent == path { return path }
        return (resolved(parent) as NSString).appendingPathComponent(
            (path as NSString).lastPathComponent)
    }
}
