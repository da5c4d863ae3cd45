import Foundation
import TroveBase
import TroveHTTP
import TroveStore

/// What an event of a location's REST stream changed, as far as posts go
/// (https://firebase.google.com/docs/reference/rest/database#section-streaming): a
/// `put` replaces the value at its path, a `patch` sets each of its members under its
/// path. The data itself is not used: the posts it touched are read again, so a change
/// is always taken from the database as it is, whatever the events said in between.
enum LocationChange: Hashable, Sendable {
    /// The location was replaced (the first `put` of every stream, or a write above
    /// it): read it all again.
    case everything
    /// One child of a flat location.
    case post(String)
    /// One tagged location of a nested one: `Users/{user}/{field}/{id}`.
    case taggedPost(user: String, field: String, id: String)
    /// One user of a nested location, whole or their tagged locations together.
    case user(String)

    /// The changes a `put` or `patch` event makes to a location of `shape`; none for
    /// other events and for fields that hold no posts (a user's e-mail).
    static func of(_ event: ServerSentEvent, shape: LiveLocation.Shape) -> [LocationChange] {
        guard event.name == "put" || event.name == "patch" else { return [] }
        if event.isTruncated {
            // Too large to keep: its path, at the start, still says where.
            guard let path = leadingPath(event.data) else { return [.everything] }
            return at(segments(path), shape: shape)
        }
        var parser = JSONParser(event.data)
        guard let value = try? parser.parseValue(), let path = value["path"]?.stringValue else {
            return [.everything]
        }
        let base = segments(path)
        guard event.name == "patch", case .object(let members)? = value["data"] else {
            return at(base, shape: shape)
        }
        var changes: [LocationChange] = []
        for member in members {
            for change in at(base + segments(member.name), shape: shape)
            where !changes.contains(change) {
                changes.append(change)
            }
        }
        return changes
    }

    /// What a write at `path` (segments under the location) touched.
    static func at(_ path: [String], shape: LiveLocation.Shape) -> [LocationChange] {
        guard let first = path.first else { return [.everything] }
        switch shape {
        case .flat:
            return [.post(first)]
        case .nested:
            guard path.count > 1 else { return [.user(first)] }
            guard path[1].lowercased() == "taggedlocations" else { return [] }
            guard path.count > 2 else { return [.user(first)] }
            return [.taggedPost(user: first, field: path[1], id: path[2])]
        }
    }

    private static func segments(_ path: String) -> [String] {
        path.split(separator: "/").map(String.init)
    }

    /// The `path` of an event's data from its start, `{"path":"/p1",…`, when the rest
    /// was too large to keep.
    static func leadingPath(_ data: [UInt8]) -> String? {
        let marker = Array(#"{"path":"#.utf8)
        guard data.starts(with: marker) else { return nil }
        let start = marker.count
        guard start < data.count, data[start] == 0x22 else { return nil }
        var end = start + 1
        var escaped = false
        while end < data.count {
            if escaped {
                escaped = false
            } else if data[end] == 0x5C {
                escaped = true
            } else if data[end] == 0x22 {
                break
            }
            end += 1
        }
        guard end < data.count else { return nil }
        var parser = JSONParser(Array(data[start...end]))
        return (try? parser.parseValue())?.stringValue
    }
}
