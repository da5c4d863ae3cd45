import TroveBase

/// What one `review sheet` run is: a fresh id, the secret its page signs decisions with,
/// and the moderator it was made for. All three are kept in the workspace; the page
/// holds the id, the secret and the name.
///
/// What a valid signature proves is that the file was made by a page of that sheet and
/// carries the versions that sheet showed: the secret is in the page, so whoever holds
/// the page can sign, and the moderator is whoever the sheet was made for, not someone
/// the file declares.
public struct SheetCredentials: Equatable, Sendable {
    /// 16 random hex digits: two sheets of the same queue never share one, so their
    /// downloads never collide.
    public var id: String
    /// 32 random bytes as hex.
    public var secret: String
    /// The moderator the sheet was made for.
    public var moderator: String

    /// Creates the value from its parts.
    public init(id: String, secret: String, moderator: String) {
        self.id = id
        self.secret = secret
        self.moderator = moderator
    }

    /// Fresh random credentials for `moderator`, from the system's generator.
    public static func fresh(for moderator: String) -> SheetCredentials {
        var generator = SystemRandomNumberGenerator()
        func random(_ count: Int) -> [UInt8] {
            (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
        }
        return SheetCredentials(
            id: HMACSHA256.hexText(random(8)), secret: HMACSHA256.hexText(random(32)),
            moderator: moderator)
    }
}
