import Foundation
import TroveBase
import TroveStore

/// What `publish --mark-applied` recorded.
public struct MarkedPlan: Equatable, Sendable {
    public var target: String
    /// The recorded export that wrote the plan.
    public var export: Int64
    public var paths = 0
    public var objects = 0
    /// The bucket the plan's URLs name when it is not the target's.
    public var otherBucket: String?
}

extension Publisher {
    /// Records a plan written by `export --update --out PLAN`, and the Storage plan beside
    /// it, as applied to the target by other means: the target holds that export's tree
    /// and the Storage plan's objects. Nothing changes when anything is wrong.
    ///
    /// - Parameter plan: the export's output path, absolute, as the export recorded it.
    /// - Throws: `PublishError.usage` (another layout, an interrupted publish),
    ///   `PublishError.input` (no recorded export wrote it, an unreadable Storage plan),
    ///   `WorkspaceError`, `SQLiteError`.
    public static func markApplied(
        workspace: Workspace, target name: String?, plan: String, now: Date = Date()
    ) throws -> MarkedPlan {
        let manifestPath = StoragePlan.paths(output: plan).manifest
        return try workspace.write {
            let store = PublishStore(workspace.database)
            let exports = ExportStore(workspace.database)
            let target = try PublishTargets.find(name, in: workspace)
            if try pendingSummary(target: target.name, in: workspace) != nil {
                throw PublishError.usage(
                    "a publish to \(target.name) was interrupted; complete it with "
                        + "'trove publish --target \(target.name)' first")
            }
            guard let export = try exports.lastExport(writtenTo: plan) else {
                throw PublishError.input(
                    "no recorded export wrote \(plan); --mark-applied takes the file of "
                        + "'trove export --update --out FILE' ('trove export log' lists them)")
            }
            guard export.layout == target.layout else {
                throw PublishError.usage(
                    "\(plan) was exported with layout \(export.layout), but target "
                        + "\(target.name) publishes \(target.layout)")
            }
            let kept = try exports.isStateKept(layout: export.layout, generation: export.generation)
            if !kept && export.paths > 0 {
                throw PublishError.input(
                    "the state of export \(export.id) (\(plan)) is no longer kept; export "
                        + "again with --update --out and apply that")
            }
            guard let manifest = FileManager.default.contents(atPath: manifestPath) else {
                throw PublishError.input(
                    "\(manifestPath): cannot read the Storage plan written beside \(plan)")
            }
            let objects = try storagePlanObjects(Array(manifest), path: manifestPath)
            try store.deletePlannedState(target: target.name)
            // The paths and the objects the export referenced, as it recorded them: its plan
            // file may list only the objects that changed.
            try store.planExportState(
                target: target.name, layout: export.layout, generation: export.generation)
            let objectCount = export.objects ?? 0
            try store.promotePlanned(target: target.name)
            // The target now holds what that export took in, its objects with the export's
            // tokens: the target's URLs carry them from now on.
            try store.adoptExport(export.id, target: target.name)
            let tokens = StorageTokenStore(workspace)
            var held = try PublishState.objects(
                target: target.name, planned: false, database: workspace.database)
            while !held.isAtEnd {
                if let token = held.token {
                    try tokens.setToken(
                        String(decoding: token, as: UTF8.self),
                        of: String(decoding: held.path, as: UTF8.self), inBucket: target.bucket)
                }
                try held.advance()
            }
            let at = timestamp(now)
            try store.appendLog(
                PublishLogEntry(
                    target: target.name, at: at, kind: .markApplied, paths: export.paths,
                    changed: export.changed, removed: export.removed, uploaded: objects.uploaded,
                    retokened: objects.retokened, deleted: objects.deleted, source: plan))
            try store.setPublishedAt(at, target: target.name)
            var marked = MarkedPlan(target: target.name, export: export.id)
            marked.paths = export.paths
            marked.objects = objectCount
            if let bucket = objects.bucket, bucket != target.bucket { marked.otherBucket = bucket }
            return marked
        }
    }

    /// The objects of a Storage plan manifest (`OUT.storage.json`), sorted by path bytes.
    private static func storagePlanObjects(_ bytes: [UInt8], path: String) throws -> (
        list: [(path: String, token: String?)], bucket: String?, uploaded: Int, retokened: Int,
        deleted: Int
    ) {
        var parser = JSONParser(bytes)
        let document: JSONValue
        do {
            document = try parser.parseValue()
        } catch {
            throw PublishError.input("\(path):\(error.line):\(error.column): \(error.message)")
        }
        guard case .array(let objects)? = document["objects"] else {
            throw PublishError.input("\(path): not a Storage plan (no \"objects\" list)")
        }
        var list: [(path: String, token: String?)] = []
        var uploaded = 0
        var retokened = 0
        for (index, object) in objects.enumerated() {
            guard let name = object["path"]?.stringValue else {
                throw PublishError.input("\(path): object \(index + 1) has no \"path\"")
            }
            let token = object["metadata"]?[StoragePlan.tokenMetadataKey]?.stringValue
            list.append((name, token))
            switch object["state"]?.stringValue {
            case StoragePlan.State.new.rawValue: uploaded += 1
            case StoragePlan.State.rotated.rawValue: retokened += 1
            default: break
            }
        }
        list.sort { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
        var deleted = 0
        if case .array(let deletions)? = document["delete"] { deleted = deletions.count }
        return (list, document["bucket"]?.stringValue, uploaded, retokened, deleted)
    }
}
