import Foundation
import TroveStore

/// Why an export wrote nothing.
public enum ExportError: Error, CustomStringConvertible {
    /// Records or paths that cannot be exported, grouped by problem; exit status 1.
    case refused([ExportProblemGroup])
    /// An output file could not be written; exit status 1.
    case cannotWrite(path: String, reason: String)
    /// The stored export state cannot be decoded.
    case damagedState
    /// `--since` names no export of this layout whose state is kept; exit status 2.
    case unknownBase(String)
    /// Image URLs are needed but no storage location is configured; exit status 1.
    case missingBucket(MissingBucket)
    /// `storage.url-template` or its companions cannot build URLs; exit status 2.
    case storageSetting(String)
    /// The files went into place but the workspace could not record the export (the disk
    /// filled at the commit); exit status 4.
    case notRecorded(written: [String], cause: Error)

    /// The problem in words that read well after `error: `.
    public var description: String {
        switch self {
        case .refused(let groups):
            let total = groups.reduce(0) { $0 + $1.count }
            var lines = [
                "cannot export: \(total) problem\(total == 1 ? "" : "s"); nothing was written"
            ]
            for group in groups {
                lines.append("\(group.title):")
                lines += group.examples.map { "  \($0)" }
                if group.count > group.examples.count {
                    lines.append("  ... and \(group.count - group.examples.count) more")
                }
            }
            return lines.joined(separator: "\n")
        case .cannotWrite(let path, let reason):
            return "cannot write \(path): \(reason)"
        case .damagedState:
            return "the recorded export state is damaged; run a full export without --update"
        case .unknownBase(let reason):
            return reason
        case .missingBucket(let missing):
            return "cannot export: \(missing.message); nothing was written\n"
                + "hint: \(MissingBucket.hint) (or NAME.appspot.com, NAME.firebasestorage.app)"
        case .storageSetting(let problem):
            return "cannot build image URLs: \(problem)"
        case .notRecorded(let written, let cause):
            let reason: String
            if case WorkspaceError.diskFull(let path) = cause {
                reason = "the disk is full: cannot write to \(path)"
            } else {
                reason = "\(cause)"
            }
            let files =
                written.isEmpty
                ? "no file changed" : "already replaced: \(written.joined(separator: ", "))"
            return
                "\(reason); the export's files are in place (\(files)) but the export was not"
                + " recorded, so the next --update repeats its changes. Free some space and run"
                + " the export again"
        }
    }
}

/// Problems of one kind found by an export, with the first few records named.
public struct ExportProblemGroup: Sendable, Equatable {
    /// What is wrong and what to run about it.
    public let title: String
    /// How many records or paths have this problem.
    public var count = 0
    /// The first few, each naming its record.
    public var examples: [String] = []

    /// How many records each group names; the rest are counted.
    static let shown = 20
}

/// Collects what stops an export, by kind, in the order met.
final class ExportProblems {
    private(set) var groups: [ExportProblemGroup] = []
    /// How many of each kind are named; the rest are counted.
    let shown: Int

    init(shown: Int = ExportProblemGroup.shown) {
        self.shown = shown
    }

    package func add(_ title: String, _ example: String) {
        if let index = groups.firstIndex(where: { $0.title == title }) {
            groups[index].count += 1
            if groups[index].examples.count < shown {
                groups[index].examples.append(example)
            }
        } else {
            groups.append(ExportProblemGroup(title: title, count: 1, examples: [example]))
        }
    }

    package var isEmpty: Bool { groups.isEmpty }

    /// Adds every problem of `other` after these.
    func absorb(_ other: ExportProblems) {
        for group in other.groups {
            if let index = groups.firstIndex(where: { $0.title == group.title }) {
                groups[index].count += group.count
                let room = shown - groups[index].examples.count
                groups[index].examples += group.examples.prefix(max(0, room))
            } else {
                groups.append(group)
            }
        }
    }

    func replace(with other: ExportProblems) {
        groups = other.groups
    }
}
