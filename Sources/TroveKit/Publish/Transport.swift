import Foundation
import TroveBase

// The two ways a publish reaches the outside: objects into a Storage bucket and one
// multi-path update into the Realtime Database, and for `publish --refresh`, listings of
// what both hold. Publishing decides what to send and records what is done; a transport
// only sends and reads, so tests can put a recording one in its place and the real ones
// can be measured on their own.

/// One object to put into a bucket, with the metadata the apps rely on.
public struct StorageUpload: Sendable, Equatable {
    /// The object's name in the bucket (`treasures/hairy-harry/thumb-3fa2c9e1.png`).
    public var name: String
    /// The local file whose bytes the object gets.
    public var file: String
    public var contentType: String
    public var cacheControl: String
    /// The `firebaseStorageDownloadTokens` metadata value; nil for none.
    public var token: String?

    public init(
        name: String, file: String, contentType: String, cacheControl: String, token: String?
    ) {
        self.name = name
        self.file = file
        self.contentType = contentType
        self.cacheControl = cacheControl
        self.token = token
    }
}

/// Sends objects to, and removes them from, one Storage bucket.
///
/// Every call reports each object it finished through `done`, on the calling thread and
/// one at a time, before it returns or throws, so the caller can record progress and a
/// later run sends only what is left.
public protocol StorageTransport: Sendable {
    /// Creates or replaces each object with its bytes and metadata.
    ///
    /// - Throws: `TransportError` after reporting the objects that were finished.
    func upload(_ objects: [StorageUpload], bucket: String, done: (String) -> Void) throws

    /// Sets the download token of objects that already exist (a rotated token), without
    /// sending their bytes again. An object the bucket does not hold is reported through
    /// `missing` rather than failing the call, so that the caller can upload it.
    ///
    /// - Throws: `TransportError` after reporting the objects that were finished.
    func setTokens(
        _ tokens: [(name: String, token: String?)], bucket: String, done: (String) -> Void,
        missing: (String) -> Void
    ) throws

    /// Deletes the named objects; one that is already gone counts as deleted.
    ///
    /// - Throws: `TransportError` after reporting the objects that were finished.
    func delete(_ names: [String], bucket: String, done: (String) -> Void) throws

    /// Lists the objects whose names start with `prefix`, with their download tokens, in
    /// name order, handing each page of the listing to `page` as it arrives.
    ///
    /// - Throws: `TransportError`, or what `page` throws.
    func list(prefix: String, bucket: String, page: ([StoredObject]) throws -> Void) throws
}

/// One object of a bucket, as a listing shows it.
public struct StoredObject: Sendable, Equatable {
    public var name: String
    /// Its `firebaseStorageDownloadTokens`, comma-separated as Firebase keeps several; nil
    /// for none.
    public var tokens: String?

    public init(name: String, tokens: String?) {
        self.name = name
        self.tokens = tokens
    }
}

/// Applies multi-path updates to one Realtime Database.
public protocol DatabaseTransport: Sendable {
    /// Applies one multi-path update: `body` is a JSON object whose members are paths
    /// from the root (`treasureLocations/hairy-harry`) and whose `null` values delete.
    /// The Realtime Database applies one such request atomically.
    ///
    /// - Throws: `TransportError`.
    func update(_ body: [UInt8], databaseURL: String) throws

    /// Reads one location, with priorities, as the REST API answers `GET PATH.json` with
    /// `format=export`: its whole value, or with `read.limit` its children ordered by key
    /// (`orderBy="$key"`), from `read.startAt` on (inclusive), at most `limit` of them. The
    /// answer is JSON text; `null` when the location holds nothing.
    ///
    /// - Throws: `TransportError`.
    func read(_ read: DatabaseRead, databaseURL: String) throws -> [UInt8]
}

/// One read of the Realtime Database: a location's value, or a page of its children.
public struct DatabaseRead: Sendable, Equatable {
    /// The location, segments joined by `/`; empty for the root.
    public var path: String
    /// The first key of the page (inclusive); nil from the first child.
    public var startAt: String?
    /// How many children at most; nil reads the whole value.
    public var limit: Int?

    public init(path: String, startAt: String? = nil, limit: Int? = nil) {
        self.path = path
        self.startAt = startAt
        self.limit = limit
    }

    /// The query items of the REST API for it: `orderBy`, `startAt` and `limitToFirst`
    /// (their values JSON), and `format=export`.
    public var queryItems: [(name: String, value: String)] {
        var items: [(name: String, value: String)] = []
        if let limit {
            items.append(("orderBy", "\"$key\""))
            if let startAt { items.append(("startAt", JSONText.quoted(startAt))) }
            items.append(("limitToFirst", String(limit)))
        }
        items.append(("format", "export"))
        return items
    }
}

/// A transfer that did not complete, in words that read well after `Error: `.
public struct TransportError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
