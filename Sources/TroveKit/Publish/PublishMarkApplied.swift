import Foundation
import TroveSQLite

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
            let database = workspace.database
            let target = try PublishTargets.find(name, in: workspace)
            if try pendingSummary(target: target.name, in: workspace) != nil {
                throw PublishError.usage(
                    "a publish to \(target.name) was interrupted; complete it with "
                        + "'trove publish --target \(target.name)' first")
            }
            let logged = try database.query(
                """
                SELECT id, layout, generation, paths, changed, removed FROM export_log
                WHERE out = ? ORDER BY id DESC LIMIT 1
                """, [.text(plan)]
            ) { row in
                (
                    id: row.int64(0) ?? 0, layout: row.text(1) ?? "", generation: row.int64(2) ?? 0,
                    paths: row.int64(3) ?? 0, changed: row.int64(4) ?? 0,
                    removed: row.int64(5) ?? 0
                )
            }
            guard let export = logged.first else {
                throw PublishError.input(
                    "no recorded export wrote \(plan); --mark-applied takes the file of "
                        + "'trove export --update --out FILE' ('trove export log' lists them)")
            }
            guard export.layout == target.layout else {
                throw PublishError.usage(
                    "\(plan) was exported with layout \(export.layout), but target "
                        + "\(target.name) publishes \(target.layout)")
            }
            let kept =
                try database.scalar(
                    "SELECT count(*) FROM export_state WHERE layout = ? AND generation = ?",
                    [.text(export.layout), .integer(export.generation)])?.int64 ?? 0
            if kept == 0 && export.paths > 0 {
                throw PublishError.input(
                    "the state of export \(export.id) (\(plan)) is no longer kept; export "
                        + "again with --update --out and apply that")
            }
            guard let manifest = FileManager.default.contents(atPath: manifestPath) else {
                throw PublishError.input(
                    "\(manifestPath): cannot read the Storage plan written beside \(plan)")
            }
            let objects = try storagePlanObjects(Array(manifest), path: manifestPath)
            let targetName = SQLiteValue.text(target.name)
            try database.execute(
                "DELETE FROM publish_state WHERE target = ? AND planned = 1", [targetName])
            try database.execute(
                """
                INSERT INTO publish_state (target, kind, planned, seq, first, block)
                SELECT ?, 'paths', 1, seq, first, block FROM export_state
                WHERE layout = ? AND generation = ?
                """, [targetName, .text(export.layout), .integer(export.generation)])
            // The objects the export referenced, as it recorded them: its plan file may list
            // only those that changed.
            try database.execute(
                """
                INSERT INTO publish_state (target, kind, planned, seq, first, block)
                SELECT ?, 'objects', 1, seq, first, block FROM export_objects
                WHERE layout = ? AND generation = ?
                """, [targetName, .text(export.layout), .integer(export.generation)])
            let objectCount =
                try database.scalar(
                    "SELECT objects FROM export_log WHERE id = ?", [.integer(export.id)])?.int64
                ?? 0
            try PublishState.promotePlanned(target: target.name, database: database)
            // The target now holds what that export took in.
            try database.execute(
                """
                UPDATE publish_targets SET change_seq = l.change_seq, inputs = l.inputs,
                    paths = l.paths, objects = l.objects
                FROM export_log AS l WHERE l.id = ? AND publish_targets.name = ?
                """, [.integer(export.id), targetName])
            let at = SQLiteValue.text(timestamp(now))
            try database.execute(
                """
                INSERT INTO publish_log
                    (target, at, kind, paths, changed, removed, uploaded, retokened, deleted,
                     source)
                VALUES (?, ?, 'mark-applied', ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    targetName, at, .integer(export.paths), .integer(export.changed),
                    .integer(export.removed), .integer(Int64(objects.uploaded)),
                    .integer(Int64(objects.retokened)), .integer(Int64(objects.deleted)),
                    .text(plan),
                ])
            try database.execute(
                "UPDATE publish_targets SET published_at = ? WHERE name = ?", [at, targetName])
            var marked = MarkedPlan(target: target.name, export: export.id)
            marked.paths = Int(export.paths)
            marked.objects = Int(objectCount)
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
