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
    /// What a target holds could not be read (`--refresh`); nothing was planned or sent.
    case unreadable(String)

    public var description: String {
        switch self {
        case .usage(let message), .input(let message), .busy(let message),
            .unreadable(let message):
            return message
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
        if targets.isEmpty {
            throw PublishError.usage(
                "no publish target yet; add one with 'trove publish target add NAME "
                    + "--database URL --bucket NAME --layout LAYOUT'")
        }
        // The default changes only when asked: without one, the command has to be told.
        guard let target = targets.first(where: \.isDefault) else {
            throw PublishError.usage(
                "no default publish target (targets: "
                    + targets.map(\.name).joined(separator: ", ")
                    + "); give --target NAME, or make one the default with 'trove publish "
                    + "target set NAME --default'")
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
                    "a publish target named '\(target.name)' exists; change it with "
                        + "'trove publish target set \(target.name) [--database URL] "
                        + "[--bucket NAME] [--layout L] [--default]'")
            }
            let count = try store.targetCount()
            target.isDefault = target.isDefault || count == 0
            try store.insert(target, addedAt: timestamp(now))
            try StorageTokenStore(workspace).makeMissingTokens(inBucket: target.bucket)
            return target
        }
    }

    /// What `set` changes of a target; nil fields stay as they are.
    public struct Change: Sendable {
        public var databaseURL: String?
        public var bucket: String?
        public var layout: String?
        public var makeDefault = false

        public init(
            databaseURL: String? = nil, bucket: String? = nil, layout: String? = nil,
            makeDefault: Bool = false
        ) {
            self.databaseURL = databaseURL
            self.bucket = bucket
            self.layout = layout
            self.makeDefault = makeDefault
        }
    }

    /// What `set` did, for the command to say.
    public struct Changed: Sendable {
        /// The target before and after.
        public var before: PublishTarget
        public var after: PublishTarget
        /// What the target held before at the place it left: paths in the old database
        /// (when the database moved), objects in the old bucket (when the bucket moved);
        /// nil when it moved none or never recorded a count.
        public var pathsLeft: Int?
        public var objectsLeft: Int?
        /// Whether an interrupted publish was dropped (`force`).
        public var droppedInterrupted = false

        public var movedDatabase: Bool { before.databaseURL != after.databaseURL }
        public var movedBucket: Bool { before.bucket != after.bucket }
        public var changedLayout: Bool { before.layout != after.layout }
        public var becameDefault: Bool { after.isDefault && !before.isDefault }
        public var isEmpty: Bool {
            !movedDatabase && !movedBucket && !changedLayout && !becameDefault
        }
    }

    /// Changes target `name`, checked as `add` checks it, in one transaction. A new
    /// database or bucket is a place the target holds nothing in yet: what it holds there
    /// is forgotten, so the next publish sends the whole tree or every object to it (what
    /// the old place holds stays there). A new layout makes the next publish render every
    /// record with it and remove what only the old one wrote. The default changes only
    /// with `makeDefault`.
    ///
    /// - Throws: `PublishError.usage` for an unknown target, a bad field, or a move while
    ///   a publish is interrupted (unless `force`, which drops it), `SQLiteError`.
    public static func set(
        _ name: String, _ change: Change, force: Bool = false, in workspace: Workspace
    ) throws -> Changed {
        try workspace.write {
            let store = PublishStore(workspace.database)
            let before = try find(name, in: workspace)
            var after = before
            after.databaseURL = change.databaseURL ?? before.databaseURL
            after.bucket = change.bucket ?? before.bucket
            after.layout = change.layout ?? before.layout
            after.isDefault = before.isDefault || change.makeDefault
            after = try checked(after)
            var result = Changed(before: before, after: after)
            guard !result.isEmpty else { return result }
            let moves = result.movedDatabase || result.movedBucket || result.changedLayout
            if moves, try store.plan(target: name) != nil {
                guard force else {
                    throw PublishError.usage(
                        "a publish to \(name) was interrupted; complete it with 'trove "
                            + "publish --target \(name)' first, or give --force to drop what "
                            + "it has not sent")
                }
                try store.deletePlannedState(target: name)
                try store.deletePlan(target: name)
                result.droppedInterrupted = true
            }
            let held = try store.publishedBase(target: name)
            try store.update(after)
            if result.movedDatabase {
                result.pathsLeft = held?.paths
                try store.forgetHeld(.paths, target: name)
            }
            if result.movedBucket {
                result.objectsLeft = held?.objects
                try store.forgetHeld(.objects, target: name)
                try StorageTokenStore(workspace).makeMissingTokens(inBucket: after.bucket)
            }
            result.after = try find(name, in: workspace)
            return result
        }
    }

    /// How many paths and objects the target holds, as its last publish recorded them;
    /// nil where it never recorded a count.
    ///
    /// - Throws: `SQLiteError`.
    public static func held(_ name: String, in workspace: Workspace) throws
        -> (paths: Int?, objects: Int?)
    {
        let base = try PublishStore(workspace.database).publishedBase(target: name)
        return (base?.paths, base?.objects)
    }

    /// Removes a target and everything recorded of it. Its database and bucket keep what
    /// it published; the default is never handed to another target.
    ///
    /// - Throws: `PublishError.usage` for an unknown target, `SQLiteError`.
    public static func remove(_ name: String, in workspace: Workspace) throws {
        try workspace.write {
            let store = PublishStore(workspace.database)
            _ = try find(name, in: workspace)
            try store.deleteTarget(name)
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
    public var command: String { target.publishCommand }
}

extension PublishTarget {
    /// The command that publishes this target, as it runs.
    public var publishCommand: String {
        isDefault ? "trove publish" : "trove publish --target \(name)"
    }
}
