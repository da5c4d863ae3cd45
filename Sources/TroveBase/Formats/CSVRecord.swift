/// One CSV record: its fields, and the 1-based physical line it starts on.
public struct CSVRecord: Equatable, Sendable {
    /// The fields in file order, quotes removed, as text.
    public var fields: [String]
    /// The line of the record's first byte; a record with quoted line breaks spans more.
    public var line: Int

    /// A record with its fields and starting line.
    public init(fields: [String], line: Int) {
        self.fields = fields
        self.line = line
    }
}

/// A CSV file that cannot be read on: unreadable, a quote that never ends, or bytes that
/// are not text in the expected encoding.
public struct CSVError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Reason: Equatable, Sendable {
        /// The file could not be opened or read; the system's message.
        case unreadable(String)
        /// A quoted field that is still open at the end of the file.
        case unterminatedQuote
        /// Bytes that are not UTF-8.
        case invalidEncoding
        /// No line break in the first `limit` bytes: no header is that long.
        case headerTooLong(limit: Int)
        /// A record (a row) longer than `limit` bytes (`RecordLimit`).
        case recordTooLong(limit: Int)
    }

    /// What went wrong.
    public var reason: Reason
    /// The file as the user named it.
    public var file: String
    /// The 1-based line: where the open quote is, or where the bad bytes are.
    public var line: Int?

    /// An error about a file, at a line when known.
    public init(_ reason: Reason, file: String, line: Int? = nil) {
        self.reason = reason
        self.file = file
        self.line = line
    }

    /// The stable diagnostic code, when the problem is in the data.
    public var code: String? {
        switch reason {
        case .unreadable: nil
        case .unterminatedQuote: DiagnosticCode.unterminatedQuote
        case .invalidEncoding: DiagnosticCode.invalidEncoding
        case .headerTooLong, .recordTooLong: nil
        }
    }

    /// The problem in words, without the location.
    public var message: String {
        switch reason {
        case .unreadable(let system): "cannot read the file: \(system)"
        case .unterminatedQuote: "the quoted field that starts on this line never ends"
        case .invalidEncoding: "the text is not UTF-8"
        case .headerTooLong(let limit):
            "the header line is longer than \(limit >> 20) MB (no line break in its first"
                + " \(limit) bytes)"
        case .recordTooLong(let limit):
            "the row is longer than \(limit >> 20) MB, the most trove reads as one record"
        }
    }

    /// What to do about it.
    public var hint: String? {
        switch reason {
        case .unreadable: nil
        case .headerTooLong:
            "a CSV file starts with a line naming its columns: is this the right file?"
        case .recordTooLong:
            "a quote that never closes makes the rest of the file one field: look for it"
                + " on this line"
        case .unterminatedQuote: "a field that contains a quote must double it: \"\""
        case .invalidEncoding:
            "if the file was saved by a spreadsheet on Windows, pass --encoding cp1252 (or latin1)"
        }
    }

    /// `treasures.csv:14: the text is not UTF-8 (hint)`
    public var description: String {
        let place = line.map { "\(file):\($0)" } ?? file
        var text = "\(place): \(message)"
        if let hint { text += " (\(hint))" }
        return text
    }
}
