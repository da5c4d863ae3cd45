import TroveBase

/// A Storage object downloaded as a post's photo (`import posts --from URL`), and the
/// file in the workspace's photo folder that holds its bytes.
package struct PhotoObject: Sendable, Equatable {
    package var bucket: String
    /// The object's name in the bucket (`images/p1.jpg`).
    package var name: String
    /// Cloud Storage's generation of the object downloaded (an int64, as text).
    package var generation: String?
    /// Its `md5Hash` (base64), when the object has one.
    package var md5: String?
    /// `ContentHash` of the bytes: what `posts.photo_hash` holds for this photo.
    package var fingerprint: String
    /// The file's name in the photo folder: the SHA-256 of the bytes, with an extension.
    package var file: String
    package var bytes: Int
    /// A listing of the bucket found it changed or gone: its metadata is to be read again
    /// before the file is used.
    package var stale: Bool

    package init(
        bucket: String, name: String, generation: String?, md5: String?, fingerprint: String,
        file: String, bytes: Int, stale: Bool = false
    ) {
        self.bucket = bucket
        self.name = name
        self.generation = generation
        self.md5 = md5
        self.fingerprint = fingerprint
        self.file = file
        self.bytes = bytes
        self.stale = stale
    }
}

/// A location posts are pulled from, as the workspace records it.
package struct PulledLocation: Sendable, Equatable {
    package var id: Int64
    /// The location's URL: the source's identity.
    package var origin: String
    package var startedAt: String?
    /// When the whole location was last read (and the posts gone from it withdrawn).
    package var completedAt: String?
    /// Posts were stored since the signals were last computed.
    package var signalsDue: Bool
}

/// A page of a location's last whole read: what the database answered and what the
/// workspace stored from it, so that a page that comes back the same is passed over.
package struct PulledPage: Sendable, Equatable {
    /// The key the page starts after (`""` for the first).
    package var start: String
    /// SHA-256 of the number of records asked for and the answer's bytes.
    package var hash: String
    /// SHA-256 of the ids and content hashes stored from it.
    package var digest: String
    /// Private fields the page held, dropped.
    package var passwords: Int
    package var emails: Int
    package var names: Int
    /// `post_pull_clock` when its posts were last seen stored so.
    package var clock: Int64

    package init(
        start: String, hash: String, digest: String, passwords: Int, emails: Int, names: Int,
        clock: Int64
    ) {
        self.clock = clock
        self.start = start
        self.hash = hash
        self.digest = digest
        self.passwords = passwords
        self.emails = emails
        self.names = names
    }
}
