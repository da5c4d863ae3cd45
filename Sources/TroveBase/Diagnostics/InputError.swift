/// An input file that cannot be read or parsed at all; exit status 3, nothing changed.
public struct InputError: Error, CustomStringConvertible, Sendable {
    /// Where: `file`, `file:line`, or `file:feature 3`.
    public let location: String
    public let message: String
    /// What to do about it.
    public let hint: String?

    public init(_ location: String, _ message: String, hint: String? = nil) {
        self.location = location
        self.message = message
        self.hint = hint
    }

    public var description: String {
        "\(location): \(message)" + (hint.map { " (\($0))" } ?? "")
    }
}
