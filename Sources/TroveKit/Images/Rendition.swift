import TroveBase

/// A rendition as recorded in the workspace: one named output image of a treasure's image
/// or a post's photo, with what it was made from and with.
struct Rendition: Sendable, Equatable {
    var kind: Renditions.OwnerKind
    var key: String
    var name: String
    var source: String
    var sourceHash: String
    var settings: String
    var path: String
    var width: Int
    var height: Int
    var bytes: Int
    var hash: String
}
