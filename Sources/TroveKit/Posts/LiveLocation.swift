import Foundation
import TroveBase
import TroveStore

/// A Realtime Database location the litter app writes its posts to, read through the
/// REST API (https://firebase.google.com/docs/reference/rest/database): the flat
/// `…/Locations` (`Locations/{id}`, the user a field of each record) or the nested
/// `…/Users` (`Users/{uid}/TaggedLocations/{id}`), on the database's host or an
/// emulator's or stand-in's (`http://127.0.0.1:9000/Locations?ns=NAME`).
public struct LiveLocation: Sendable, Equatable {
    /// How the location holds posts.
    public enum Shape: Sendable, Equatable {
        /// `{id}: {record}`.
        case flat
        /// `{uid}: {…, TaggedLocations: {id: {record}}}`.
        case nested
    }

    /// `scheme://host[:port]`, lowercased.
    let base: String
    /// The location's path segments, as given (paths are case-sensitive).
    public let segments: [String]
    /// The query items every request carries (an emulator's `ns=NAME`).
    let query: [URLQueryItem]
    public let shape: Shape

    /// The location's identity, which the workspace matches its pulls and posts by: the
    /// URL without credentials or a trailing `.json` (`https://demo-default-rtdb.firebaseio.com/Locations`,
    /// an emulator's with its `?ns=`). Moving or cloning the project folder keeps it.
    public let origin: String

    /// What messages call a record's source: the URL above the location, so that a post's
    /// source reads `https://demo-default-rtdb.firebaseio.com: Locations/p1`.
    var parentName: String { url(of: Array(segments.dropLast()), extension: false) }

    /// The location's last segment: `Locations`, `Users`.
    public var name: String { segments.last ?? "" }

    /// Reads `text`: an `http` or `https` URL naming a location under the database's
    /// root; `.json` at its end is dropped, and of its query only `ns` is kept (an
    /// `auth=` secret would otherwise end up in the workspace).
    ///
    /// - Throws: `LiveLocationError`.
    public init(_ text: String) throws(LiveLocationError) {
        guard let url = URLComponents(string: text.trimmingCharacters(in: .whitespaces)),
            let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = url.host, !host.isEmpty
        else {
            throw LiveLocationError(
                "\(printable(text)) is not a database URL (like "
                    + "https://PROJECT-default-rtdb.firebaseio.com/Locations)")
        }
        var path = url.path
        if path.hasSuffix(".json") { path.removeLast(".json".count) }
        let segments = path.split(separator: "/").map(String.init)
        guard !segments.isEmpty else {
            throw LiveLocationError(
                "\(printable(text)) names the database's root: name the location the app "
                    + "writes its posts to, like \(scheme)://\(host)/Locations or …/Users")
        }
        for segment in segments {
            if let problem = FirebaseKey.problem(segment) {
                throw LiveLocationError(
                    "\(printable(text)): the path segment '\(printable(segment))' \(problem)")
            }
        }
        let hostText = host.contains(":") ? "[\(host.lowercased())]" : host.lowercased()
        base = "\(scheme)://\(hostText)" + (url.port.map { ":\($0)" } ?? "")
        self.segments = segments
        query = (url.queryItems ?? []).filter { $0.name == "ns" }
        shape = segments.last?.lowercased() == "users" ? .nested : .flat
        origin = Self.url(base: base, query: query, of: segments, extension: false)
    }

    /// The REST URL of `relative` (path segments under the location) with `items` in its
    /// query.
    func restURL(_ relative: [String] = [], _ items: [URLQueryItem] = []) -> String {
        var text = url(of: segments + relative, extension: true)
        let pairs = (query + items).map {
            Self.encodeSegment($0.name) + "=" + Self.encodeSegment($0.value ?? "")
        }
        if !pairs.isEmpty { text += "?" + pairs.joined(separator: "&") }
        return text
    }

    private func url(of path: [String], extension: Bool) -> String {
        Self.url(base: base, query: query, of: path, extension: `extension`)
    }

    private static func url(
        base: String, query: [URLQueryItem], of path: [String], extension: Bool
    ) -> String {
        var text = base
        if !path.isEmpty || `extension` {
            text += "/" + path.map(Self.encodeSegment).joined(separator: "/")
        }
        if `extension` { text += ".json" }
        if !`extension`, let ns = query.first?.value {
            text += "?ns=" + Self.encodeSegment(ns)
        }
        return text
    }

    /// A path segment percent-encoded: only unreserved characters stay as they are.
    static func encodeSegment(_ segment: String) -> String {
        segment.addingPercentEncoding(withAllowedCharacters: unreserved) ?? segment
    }

    private static let unreserved: CharacterSet = {
        var allowed = CharacterSet()
        allowed.insert(
            charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        return allowed
    }()
}

/// A database URL that cannot be pulled from, in words that read well after `Error: `.
public struct LiveLocationError: Error, CustomStringConvertible, Sendable {
    public var description: String
    init(_ description: String) { self.description = description }
}
