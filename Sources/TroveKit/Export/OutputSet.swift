import Foundation
import TroveBase

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
