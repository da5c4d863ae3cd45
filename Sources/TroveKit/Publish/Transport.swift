import Foundation

// The two ways a publish reaches the outside: objects into a Storage bucket and one
// multi-path update into the Realtime Database. Publishing decides what to send and
// records what is done; a transport only sends, so tests can put a recording one in its
// place and the real ones can be measured on their own.

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
    /// sending their bytes again.
    ///
    /// - Throws: `TransportError` after reporting the objects that were finished.
    func setTokens(
        _ tokens: [(name: String, token: String?)], bucket: String, done: (String) -> Void
    ) throws

    /// Deletes the named objects; one that is already gone counts as deleted.
    ///
    /// - Throws: `TransportError` after reporting the objects that were finished.
    func delete(_ names: [String], bucket: String, done: (String) -> Void) throws
}

/// Applies multi-path updates to one Realtime Database.
public protocol DatabaseTransport: Sendable {
    /// Applies one multi-path update: `body` is a JSON object whose members are paths
    /// from the root (`treasureLocations/hairy-harry`) and whose `null` values delete.
    /// The Realtime Database applies one such request atomically.
    ///
    /// - Throws: `TransportError`.
    func update(_ body: [UInt8], databaseURL: String) throws
}

/// A transfer that did not complete, in words that read well after `Error: `.
public struct TransportError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
