import Foundation
import TroveBase
import TroveSQLite

/// The SQL of what a publish target really holds, as `publish --refresh` reads it from the
/// database and the bucket: its paths with a hash of each value, and its objects with
/// their download tokens. They are kept for the run in a scratch database attached to the
/// workspace's connection as `live`, a file of its own in the temporary folder, removed as
/// soon as it is open: the workspace keeps temporary tables in memory, and a million paths
/// would not stay flat there. Nothing of it outlives the run, however the run ends.
package final class LiveStateStore {
    private let database: Database
    private var insertPath: Statement?
    private var insertObject: Statement?
    private var attached = false

    /// Attaches an empty scratch database in `folder`.
    ///
    /// - Throws: `SQLiteError`, `FileWriteError` when `folder` takes no file.
    package init(_ workspace: Workspace, folder: String) throws {
        database = workspace.database
        var template = Array("\(folder)/trove-live-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw FileWriteError(path: folder, errno: errno) }
        close(descriptor)
        let path = String(
            decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        defer { unlink(path) }
        _ = try database.execute("ATTACH DATABASE ? AS live", [.text(path)])
        attached = true
        // Scratch: nothing to recover after a crash, and a few megabytes of cache.
        try database.execute(
            """
            PRAGMA live.journal_mode = OFF;
            PRAGMA live.synchronous = OFF;
            PRAGMA live.cache_size = -8000;
            -- sort: the path with '/' as 0x00, so that its bytes order as the tree's paths
            -- do (segment by segment); hash: the value's canonical hash.
            CREATE TABLE live.paths (
                sort BLOB PRIMARY KEY NOT NULL,
                path TEXT NOT NULL,
                hash INTEGER NOT NULL
            ) WITHOUT ROWID;
            -- tokens: the object's firebaseStorageDownloadTokens, comma-separated, or NULL.
            CREATE TABLE live.objects (
                name   TEXT PRIMARY KEY NOT NULL,
                tokens TEXT
            ) WITHOUT ROWID;
            """)
    }

    deinit { detach() }

    /// Detaches the scratch database; its file is already gone.
    package func detach() {
        guard attached else { return }
        insertPath = nil
        insertObject = nil
        try? database.execute("DETACH DATABASE live")
        attached = false
    }

    /// Runs `body` in one transaction of the scratch database alone: the workspace's own
    /// tables are neither read nor locked.
    ///
    /// - Throws: `SQLiteError`, or what `body` throws.
    package func batch(_ body: () throws -> Void) throws {
        try database.execute("BEGIN")
        do {
            try body()
            try database.execute("COMMIT")
        } catch {
            try? database.execute("ROLLBACK")
            throw error
        }
    }

    /// Records a path the database holds at one of the layout's shapes and its value's
    /// hash; a path read twice keeps its last hash.
    ///
    /// - Throws: `SQLiteError`.
    package func addPath(_ path: String, hash: UInt64) throws {
        if insertPath == nil {
            insertPath = try database.prepare(
                "INSERT OR REPLACE INTO live.paths (sort, path, hash) VALUES (?, ?, ?)")
        }
        let sort = path.utf8.map { $0 == UInt8(ascii: "/") ? 0 : $0 }
        try insertPath?.run([
            .blob(sort), .text(path), .integer(Int64(bitPattern: hash)),
        ])
    }

    /// Records an object the bucket holds and its tokens.
    ///
    /// - Throws: `SQLiteError`.
    package func addObject(_ name: String, tokens: String?) throws {
        if insertObject == nil {
            insertObject = try database.prepare(
                "INSERT OR REPLACE INTO live.objects (name, tokens) VALUES (?, ?)")
        }
        try insertObject?.run([.text(name), tokens.map { .text($0) }])
    }

    /// How many paths and objects were recorded.
    ///
    /// - Throws: `SQLiteError`.
    package func counts() throws -> (paths: Int, objects: Int) {
        let paths = try database.scalar("SELECT count(*) FROM live.paths")?.int64 ?? 0
        let objects = try database.scalar("SELECT count(*) FROM live.objects")?.int64 ?? 0
        return (Int(paths), Int(objects))
    }

    /// The recorded paths in the tree's order: columns `path` and `hash`.
    ///
    /// - Throws: `SQLiteError`.
    package func paths() throws -> Statement {
        try database.prepare("SELECT path, hash FROM live.paths ORDER BY sort")
    }

    /// The recorded objects in path order (bytes): columns `name` and `tokens`.
    ///
    /// - Throws: `SQLiteError`.
    package func objects() throws -> Statement {
        try database.prepare("SELECT name, tokens FROM live.objects ORDER BY name")
    }
}
