import TroveBase

/// The Firebase Storage download token of one stored object: a random UUID, made when a
/// rendition first names the object's path and kept until rotated.
struct StorageToken: Sendable, Equatable {
    /// The object path, as the rendition's path.
    var path: String
    var token: String
}
