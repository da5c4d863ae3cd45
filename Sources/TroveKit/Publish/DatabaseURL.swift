import Foundation
import TroveBase

/// A Realtime Database URL (`https://PROJECT-default-rtdb.firebaseio.com`,
/// `https://NAME.europe-west1.firebasedatabase.app`, or an emulator's
/// `http://127.0.0.1:9000/?ns=NAME`), and what the REST API and firebase-tools need
/// from it.
struct DatabaseURL {
    /// Scheme, host and port, with the location's path, without a trailing slash.
    let root: String
    /// The URL's query items (an emulator's `ns=NAME`), kept on every request.
    package let query: [URLQueryItem]
    /// The database instance: the `ns` query item when there is one, else the host's
    /// first label.
    let instance: String

    /// - Throws: `TransportError` for anything but an `http` or `https` URL with a host.
    package init(_ text: String) throws(TransportError) {
        guard var url = URLComponents(string: text), let scheme = url.scheme?.lowercased(),
            ["http", "https"].contains(scheme), let host = url.host, !host.isEmpty
        else {
            throw TransportError(
                "the database URL \(printable(text)) is not an https:// URL "
                    + "(like https://PROJECT-default-rtdb.firebaseio.com)")
        }
        query = url.queryItems ?? []
        instance =
            query.first { $0.name == "ns" }?.value
            ?? String(host.split(separator: ".").first ?? Substring(host))
        var path = url.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        url.percentEncodedPath = path
        url.query = nil
        url.fragment = nil
        root = url.string ?? text
    }

    /// The Firebase project: the instance's name without `-default-rtdb` (a project's
    /// default database is named `PROJECT-default-rtdb`, or `PROJECT` for those made
    /// before 2020).
    package var project: String {
        instance.hasSuffix("-default-rtdb")
            ? String(instance.dropLast("-default-rtdb".count)) : instance
    }

    /// The REST URL of the location `path` (segments joined by `/`, each percent-encoded
    /// here) with query items, every byte but the unreserved ones percent-encoded (a `+`
    /// or `&` in a key reaches the database as written).
    func restURL(path: String, _ items: [(name: String, value: String)]) -> String {
        let segments = path.split(separator: "/").map { StorageURL.percentEncode(String($0)) }
        let location = segments.isEmpty ? "" : "/" + segments.joined(separator: "/")
        let pairs =
            query.map { ($0.name, $0.value ?? "") } + items.map { ($0.name, $0.value) }
        let text = pairs.map {
            StorageURL.percentEncode($0.0) + "=" + StorageURL.percentEncode($0.1)
        }.joined(separator: "&")
        return root + location + ".json" + (text.isEmpty ? "" : "?" + text)
    }

    /// The REST URL of the location with extra query items.
    func restURL(_ extra: [URLQueryItem]) -> String {
        var components = URLComponents()
        components.queryItems = query + extra
        let query = components.percentEncodedQuery.map { "?" + $0 } ?? ""
        return root + "/.json" + query
    }
}
