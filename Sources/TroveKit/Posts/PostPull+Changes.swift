import Foundation
import TroveBase
import TroveStore

extension PostPull {
    /// Reads again what `changes` touched (a follow's events), stores the posts as a pull
    /// does and withdraws the ones deleted upstream; `.everything` reads the whole
    /// location (`run`).
    ///
    /// - Returns: what was done.
    /// - Throws: `PullError`, `WorkspaceError`, `SQLiteError`.
    @discardableResult
    func refresh(_ changes: [LocationChange]) throws -> PostImportSummary {
        if changes.contains(.everything) { return try run() }
        summary = PostImportSummary()
        rejects = []
        notes = []
        committed = false
        try folder.prepare()
        let origin = location.origin
        let store = PostStore(workspace)
        var gone: [PostStore.LivePost] = []
        var flat: [JSONMember] = []
        for change in changes {
            switch change {
            case .everything: break
            case .post(let id):
                switch try reader.get([id]) {
                case .tooLarge: skip(id, "the record is larger than trove reads (32 MiB)")
                case .value(let bytes):
                    var parser = JSONParser(bytes)
                    let value = (try? parser.parseValue()) ?? .null
                    if value == .null {
                        if let stored = try store.post(id, from: origin) { gone.append(stored) }
                    } else {
                        flat.append(JSONMember(name: id, value: value))
                    }
                }
            case .taggedPost(let user, let field, let id):
                try refreshTagged(user: user, field: field, id: id, gone: &gone)
            case .user(let user):
                try refreshUser(user, gone: &gone)
            }
        }
        if !flat.isEmpty {
            try ingest(try posts(in: .object(flat), wrapper: "Locations"), pull: nil)
        }
        let stored = summary.new + summary.updated + summary.returned.count
        if !gone.isEmpty || stored > 0 {
            let importer = PostImporter(
                workspace: workspace, photos: nil, inspector: inspector, now: now())
            try workspace.write {
                try importer.withdraw(
                    gone, note: "deleted from \(origin)", summary: &summary)
                try SignalScanner(workspace: workspace, now: now()).scan()
            }
            committed = true
        }
        return summary
    }

    /// Reads one tagged post of a nested location again: stored as a pull does, or
    /// counted as gone when it was deleted from its user.
    private func refreshTagged(
        user: String, field: String, id: String, gone: inout [PostStore.LivePost]
    ) throws {
        let origin = location.origin
        let store = PostStore(workspace)
        switch try reader.get([user, field, id]) {
        case .tooLarge: skip(id, "the record is larger than trove reads (32 MiB)")
        case .value(let bytes):
            var parser = JSONParser(bytes)
            let value = (try? parser.parseValue()) ?? .null
            if value == .null {
                let owner = Privacy.pseudonymizeUser(user).user
                if let stored = try store.post(id, from: origin),
                    try store.posts(from: origin, user: owner).contains(where: {
                        $0.id == id
                    })
                {
                    gone.append(stored)
                }
            } else {
                let node = JSONValue.object([
                    JSONMember(
                        name: user,
                        value: .object([
                            JSONMember(
                                name: field,
                                value: .object([JSONMember(name: id, value: value)]))
                        ]))
                ])
                try ingest(try posts(in: node, wrapper: "Users"), pull: nil)
            }
        }
    }

    /// Reads one user of a nested location again, whole or in parts: their posts stored
    /// as a pull does, and those no longer there counted as gone.
    private func refreshUser(_ user: String, gone: inout [PostStore.LivePost]) throws {
        let origin = location.origin
        let store = PostStore(workspace)
        var present: Set<String> = []
        let take: (PostFile) throws -> Void = { file in
            for post in file.posts { present.insert(post.id) }
            for reject in file.rejects { if let id = reject.id { present.insert(id) } }
            try self.ingest(file, pull: nil)
        }
        switch try reader.get([user]) {
        case .tooLarge: try readUserInParts(user, take)
        case .value(let bytes):
            var parser = JSONParser(bytes)
            let value = (try? parser.parseValue()) ?? .null
            if value != .null {
                try take(
                    try posts(
                        in: .object([JSONMember(name: user, value: value)]),
                        wrapper: "Users"))
            }
        }
        let owner = Privacy.pseudonymizeUser(user).user
        gone += try store.posts(from: origin, user: owner).filter {
            !present.contains($0.id)
        }
    }
}
