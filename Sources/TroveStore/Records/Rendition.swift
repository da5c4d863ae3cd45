/// A rendition as recorded in the workspace: one named output image of a treasure's image
/// or a post's photo, with what it was made from and with.
package struct Rendition: Sendable, Equatable {
    package var kind: RenditionOwner
    package var key: String
    package var name: String
    package var source: String
    package var sourceHash: String
    package var settings: String
    package var path: String
    package var width: Int
    package var height: Int
    package var bytes: Int
    package var hash: String
    package init(
        kind: RenditionOwner, key: String, name: String, source: String, sourceHash: String,
        settings: String, path: String, width: Int, height: Int, bytes: Int, hash: String
    ) {
        self.kind = kind
        self.key = key
        self.name = name
        self.source = source
        self.sourceHash = sourceHash
        self.settings = settings
        self.path = path
        self.width = width
        self.height = height
        self.bytes = bytes
        self.hash = hash
    }
}

/// Whose images to process.
public enum RenditionOwner: String, Sendable {
    case treasure
    case post

    /// The output subfolder.
    package var folder: String { self == .treasure ? "treasures" : "posts" }

    /// The kind of record whose changes are tracked.
    package var record: RecordKind { self == .treasure ? .treasure : .post }
}

/// An image that could not be processed; the others still were.
public struct RenditionFailure: Sendable, Equatable {
    public var kind: RenditionOwner
    public var key: String
    public var source: String
    public var reason: String
    package init(kind: RenditionOwner, key: String, source: String, reason: String) {
        self.kind = kind
        self.key = key
        self.source = source
        self.reason = reason
    }
}
