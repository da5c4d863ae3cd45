@testable import TroveBase

/// An exported tree as the Realtime Database holds it, for comparing exports: numbers as
/// the doubles they read as, object members unordered. Read with the export's own
/// strict JSON reading (`JSONValue(parsingStrictly:)`).
enum ExportJSON: Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([ExportJSON])
    case object([String: ExportJSON])

    /// Parses one JSON text.
    ///
    /// - Throws: `ExportJSONError`.
    init(parsing bytes: some Collection<UInt8>) throws {
        self.init(try JSONValue(parsingStrictly: bytes))
    }

    /// Parses one JSON text given as a string.
    ///
    /// - Throws: `ExportJSONError`.
    init(parsing text: String) throws {
        try self.init(parsing: Array(text.utf8))
    }

    private init(_ value: JSONValue) {
        switch value {
        case .null: self = .null
        case .bool(let bool): self = .bool(bool)
        case .string(let string): self = .string(string)
        // Strict reading checked that every number reads as a finite double.
        case .number(let text): self = .number(Double(text) ?? .nan)
        case .array(let elements): self = .array(elements.map(ExportJSON.init))
        case .object(let members):
            self = .object(
                Dictionary(members.map { ($0.name, ExportJSON($0.value)) }) { _, last in last })
        }
    }

    /// The members of an object, or nil.
    var objectValue: [String: ExportJSON]? {
        if case .object(let members) = self { return members }
        return nil
    }
}
