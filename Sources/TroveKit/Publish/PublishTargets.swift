import Foundation
import TroveBase
import TroveStore

/// Why a publish command cannot go on; nothing was changed unless it says so.
public enum PublishError: Error, CustomStringConvertible, Sendable {
    /// A bad target name, URL or bucket, an unknown target: a usage error.
    case usage(String)
    /// A plan file or live tree that cannot be read: an input error.
    case input(String)
    /// The renditions an upload needs are not in the images folder.
    case missingFiles([String], folder: String)
    /// A transfer failed; what was done before it is recorded and the next run resumes.
    case transfer(String, step: String)
    /// Another publish holds the workspace.
    case busy(String)

    public var description: String {
        switch self {
        case .usage(let message), .input(let message), .busy(let message): return message
        case .missingFiles(let names, let folder):
            let shown = names.prefix(3).map { "'\($0)'" }.joined(separator: ", ")
            let more = names.count > 3 ? " and \(names.count - 3) more" : ""
            return "\(names.count) object\(names.count == 1 ? "" : "s") to upload "
                + "\(names.count == 1 ? "is" : "are") not in \(folder): \(shown)\(more) "
                + "(run 'trove images', or give --images DIR)"
        case .transfer(let message, let step):
            return "\(step): \(message); what was done is recorded, and the next "
                + "'trove publish' resumes from there"
        }
    }
}

/// The publish targets of a workspace.
public enum PublishTargets {
    /// Every target, by name.
    ///
    /// - Throws: `SQLiteError`.
    public static func all(in workspace: Workspace) throws -> [PublishTarget] {
        try PublishStore(workspace.database).targets()
    }

    /// The target named `name`, or the default one when `name` is nil.
    ///
    /// - Throws: `PublishError.usage` when there is no such target, `SQLiteError`.
    public static func find(_ name: String?, in workspace: Workspace) throws -> PublishTarget {
        let targets = try all(in: workspace)
        if let name {
            guard let target = targets.first(where: { $0.name == name }) else {
                let known = targets.map(\.name)
                throw PublishError.usage(
                    "no publish target '\(name)'"
                        + (known.isEmpty
                            ? "; add one with 'trove publish target add'"
                            : " (targets: \(known.joined(separator: ", ")))"))
            }
            return target
        }
        guard let target = targets.first(where: \.isDefault) ?? targets.first else {
            throw PublishError.usage(
                "no publish target yet; add one with 'trove publish target add NAME "
                    + "--database URL --bucket NAME --layout LAYOUT'")
        }
        return target
    }

    /// Checks and normalises a target's fields.
    ///
    /// - Throws: `PublishError.usage` naming the field.
    public static func checked(_ target: PublishTarget) throws -> PublishTarget {
        var target = target
        let nameBytes = Array(target.name.utf8)
        let allowed = nameBytes.allSatisfy {
            (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
                || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".")
        }
        guard (1...64).contains(nameBytes.count), allowed, nameBytes.first != UInt8(ascii: "-")
        else {
            throw PublishError.usage(
                "target name '\(target.name)': use 1 to 64 letters, digits, '.', '-' or '_'")
        }
        let text = target.databaseURL.trimmingCharacters(in: .whitespaces)
        guard var url = URLComponents(string: text),
            url.scheme == "https" || url.scheme == "http", let host = url.host, !host.isEmpty,
            url.fragment == nil, (url.queryItems ?? []).allSatisfy({ $0.name == "ns" })
        else {
            throw PublishError.usage(
                "--database \(target.databaseURL): give the database's root URL, e.g. "
                    + "https://PROJECT-default-rtdb.firebaseio.com (an emulator's with ?ns=NAME)")
        }
        var path = url.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        if path.hasSuffix(".json") {
            throw PublishError.usage(
                "--database \(target.databaseURL): give the database's root URL, without .json")
        }
        url.percentEncodedPath = path
        if url.queryItems?.isEmpty == true { url.query = nil }
        let normalized = url.string ?? text
        target.databaseURL = normalized
        guard let bucket = StorageBucket.normalize(target.bucket) else {
            throw PublishError.usage(
                "--bucket \(target.bucket): not a bucket name; give "
                    + StorageBucket.acceptedForms)
        }
        target.bucket = bucket
        return target
    }

    /// Adds `target` (checked first), the default one when asked or when it is the first.
    ///
    /// - Throws: `PublishError.usage` when the name is taken or a field is bad,
    ///   `SQLiteError`.
    public static func add(_ target: PublishTarget, in workspace: Workspace, now: Date = Date())
        throws -> PublishTarget
    {
        var target = try checked(target)
        return try workspace.write {
            let store = PublishStore(workspace.database)
            if try store.hasTarget(target.name) {
                throw PublishError.usage(
                    "a publish target named '\(target.name)' exists; remove it first with "
                        + "'trove publish target rm \(target.name)'")
            }
            let count = try store.targetCount()
            target.isDefault = target.isDefault || count == 0
            try store.insert(target, addedAt: timestamp(now))
            return target
        }
    }

    /// Removes a target and everything recorded of it; the earliest added of the others
    /// becomes the default when it was. Returns the new default's name, if it changed.
    ///
    /// - Throws: `PublishError.usage` for an unknown target, `SQLiteError`.
    @discardableResult
    public static func remove(_ name: String, in workspace: Workspace) throws -> String? {
        try workspace.write {
            let store = PublishStore(workspace.database)
            let target = try find(name, in: workspace)
            try store.deleteTarget(name)
            guard target.isDefault else { return nil }
            return try store.makeEarliestDefault()
        }
    }
}

/// What `trove status` says of a target: read from the records alone, without
/// rendering the tree, so it costs milliseconds at any size.
public struct PublishTargetStatus: Equatable, Sendable {
    public var target: PublishTarget
    /// The steps left of an interrupted publish, if one is.
    public var interrupted: PublishPlanSummary?

    /// Every target's status.
    ///
    /// - Throws: `SQLiteError`.
    public static func all(in workspace: Workspace) throws -> [PublishTargetStatus] {
        try PublishTargets.all(in: workspace).map { target in
            PublishTargetStatus(
                target: target,
                interrupted: try Publisher.pendingSummary(target: target.name, in: workspace))
        }
    }

    /// The command that publishes this target, as it runs.
    public var command: String {
        target.isDefault ? "trove publish" : "trove publish --target \(target.name)"
    }
}
