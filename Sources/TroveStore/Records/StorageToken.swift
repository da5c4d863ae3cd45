/// The Firebase Storage download token of one stored object: a random UUID, made when a
/// rendition first names the object's path and kept until rotated.
package struct StorageToken: Sendable, Equatable {
    /// The object path, as the rendition's path.
    package var path: String
    package var token: String
}
