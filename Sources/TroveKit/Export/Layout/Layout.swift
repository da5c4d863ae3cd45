import Foundation
import TroveBase
import TroveStore

/// An export layout: which records it iterates and the database paths each one writes.
///
/// Read from JSON of the form
/// `{"records": "treasures", "paths": {"treasureLocations/{key}": {"g": "{geohash}"}}}`.
/// Everything that can be checked without data is checked when the layout is read, so
/// that a broken layout fails before any record is looked at.
public struct Layout: Sendable {
    /// What a layout iterates.
    public enum Records: String, Sendable {
        /// Every treasure.
        case treasures
        /// Approved posts only, always.
        case posts
    }

    /// A short name for messages and for the export state: the built-in name, or the path.
    public let name: String
    /// What the layout iterates.
    public let records: Records

    /// The kind of record the workspace tracks for what the layout iterates.
    var recordKind: RecordKind { records == .treasures ? .treasure : .post }
    /// The path templates, sorted by their text so that runs are repeatable.
    let paths: [PathTemplate]

    /// Rendition names the layout refers to (`image.full.url` → `full`), sorted.
    let renditionNames: [String]
    /// Whether some placeholder reads an extra column.
    let usesExtra: Bool
    /// A hash of the layout's text: a different one means every record renders anew.
    let fingerprint: UInt64

    /// Reads a layout from JSON text.
    ///
    /// - Parameter name: how messages and the export state refer to this layout.
    /// - Throws: `LayoutError`.
    public init(name: String, json: some Collection<UInt8>) throws(LayoutError) {
        self.name = name
        fingerprint = Array(json).withUnsafeBufferPointer(valueHash)
        let document: JSONValue
        do {
            document = try JSONValue(parsingStrictly: json)
        } catch {
            throw LayoutError(layout: name, problem: .unreadable(error.description))
        }
        guard case .object(let members) = document else {
            throw LayoutError(layout: name, problem: .shape("a layout is a JSON object"))
        }
        for member in members where member.name != "records" && member.name != "paths" {
            throw LayoutError(
                layout: name,
                problem: .shape("unknown member \"\(member.name)\" (expected records, paths)"))
        }
        guard case .string(let recordsText) = document["records"] ?? .null,
            let records = Records(rawValue: recordsText)
        else {
            throw LayoutError(
                layout: name, problem: .shape("\"records\" must be \"treasures\" or \"posts\""))
        }
        self.records = records
        guard case .object(let pathMembers)? = document["paths"], !pathMembers.isEmpty else {
            throw LayoutError(
                layout: name, problem: .shape("\"paths\" must be an object with at least one path"))
        }
        var compiled: [PathTemplate] = []
        var fields: [Field] = []
        for member in pathMembers.sorted(by: {
            $0.name.utf8.lexicographicallyPrecedes($1.name.utf8)
        }) {
            let template = try PathTemplate(
                path: member.name, value: member.value, records: records, layout: name)
            compiled.append(template)
            fields += template.fields
        }
        paths = compiled
        renditionNames = Set(fields.compactMap(\.renditionName)).sorted()
        usesExtra = fields.contains { if case .extra = $0 { return true } else { return false } }
    }

    /// Reads a layout file.
    ///
    /// - Throws: `InputError` when the file cannot be read, `LayoutError` when it is not
    ///   a valid layout.
    public init(contentsOf url: URL, name: String? = nil) throws {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw InputError(url.path, "cannot read the layout file")
        }
        try self.init(name: name ?? url.path, json: Array(data))
    }

    /// The database paths written as GeoFire indexes (their value has `g` and `l`), as
    /// templates such as `treasureLocations/{key}`.
    public var geoFireNodes: [String] {
        paths.filter(\.isGeoFireNode).map(\.text)
    }

    /// The placeholders a record kind offers, for messages.
    public static func placeholderNames(for records: Records) -> [String] {
        switch records {
        case .treasures:
            return [
                "key", "name", "description", "lat", "lon", "alt", "geohash",
                "extra.COLUMN[:text|int|number|bool]",
                "image.RENDITION.url|path|width|height",
            ]
        case .posts:
            return [
                "key", "user", "lat", "lon", "geohash", "description", "date",
                "photo.RENDITION.url|path|width|height",
            ]
        }
    }
}

/// Why a layout cannot be used; the CLI maps it to exit status 2.
public struct LayoutError: Error, CustomStringConvertible, Sendable {
    /// What is wrong.
    public enum Problem: Sendable, Equatable {
        /// The file is not JSON.
        case unreadable(String)
        /// The JSON is not shaped like a layout.
        case shape(String)
        /// A `{placeholder}` the records do not offer.
        case unknownPlaceholder(String, path: String, known: [String])
        /// A literal key the Realtime Database would refuse.
        case illegalKey(String, path: String, reason: String)
        /// A path and value nested deeper than the Realtime Database allows.
        case tooDeep(path: String, depth: Int)
    }

    /// The layout's name or path.
    public let layout: String
    /// What is wrong with it.
    public let problem: Problem

    /// The problem in words that read well after `error: `.
    public var description: String {
        switch problem {
        case .unreadable(let message):
            return "layout \(layout) is not valid JSON: \(message)"
        case .shape(let message):
            return "layout \(layout): \(message)"
        case .unknownPlaceholder(let placeholder, let path, let known):
            return "layout \(layout): unknown placeholder '{\(placeholder)}' in \"\(path)\""
                + " (known: \(known.joined(separator: ", ")))"
        case .illegalKey(let key, let path, let reason):
            return "layout \(layout): key \"\(key)\" in \"\(path)\" \(reason)"
        case .tooDeep(let path, let depth):
            return "layout \(layout): \"\(path)\" nests \(depth) levels deep; "
                + "the Realtime Database allows 31"
        }
    }
}
