/// A problem found in the data: not thrown, but collected, printed compiler-style and
/// counted.
public struct Diagnostic: Equatable, Sendable {
    public enum Severity: String, Sendable, Comparable {
        case warning
        case error

        public static func < (lhs: Severity, rhs: Severity) -> Bool {
            lhs == .warning && rhs == .error
        }
    }

    /// Where a problem is: a file and line (and column), a GeoJSON feature, or a
    /// workspace record.
    public struct Location: Equatable, Sendable {
        public var file: String?
        public var line: Int?
        public var column: Int?
        /// GeoJSON: the 0-based feature index, and the JSON path inside it.
        public var feature: Int?
        public var jsonPath: String?
        /// The record's key, when known.
        public var key: String?

        public init(
            file: String? = nil, line: Int? = nil, column: Int? = nil, feature: Int? = nil,
            jsonPath: String? = nil, key: String? = nil
        ) {
            self.file = file
            self.line = line
            self.column = column
            self.feature = feature
            self.jsonPath = jsonPath
            self.key = key
        }

        /// `file:line:column`, `file:feature 7`, or `key`.
        public var text: String {
            var parts: [String] = []
            if let file { parts.append(file) }
            if let line { parts.append(String(line)) }
            if line != nil, let column { parts.append(String(column)) }
            if line == nil, let feature {
                parts.append("feature \(feature)" + (jsonPath.map { " \($0)" } ?? ""))
            }
            if parts.isEmpty, let key { parts.append(key) }
            if parts.isEmpty { parts.append("workspace") }
            return parts.joined(separator: ":")
        }
    }

    public var severity: Severity
    /// A stable code such as `T101`.
    public var code: String
    public var message: String
    public var location: Location
    /// What to do about it, when there is something to say.
    public var hint: String?

    public init(
        _ severity: Severity, _ code: String, _ message: String, at location: Location,
        hint: String? = nil
    ) {
        self.severity = severity
        self.code = code
        self.message = message
        self.location = location
        self.hint = hint
    }

    /// `treasures.csv:14:3: error[T101]: latitude 140.2 is outside [-90, 90]`
    public var compilerStyle: String {
        var text = "\(location.text): \(severity.rawValue)[\(code)]: \(message)"
        if let hint { text += " (\(hint))" }
        return text
    }
}
