import Foundation
import TroveBase

/// Treasures ready to store, their text packed into one buffer: a batch crosses from the
/// reading thread to the writing one as two allocations, and SQLite binds the text in
/// place.
public struct PackedTreasures: Sendable {
    /// Where a text lies in `bytes`; a negative count means NULL.
    public struct Slice: Sendable {
        package var start: Int32
        package var count: Int32
        static let null = Slice(start: 0, count: -1)
    }

    public struct Row: Sendable {
        package var key: Slice
        var name: Slice
        var description: Slice
        package var image: Slice
        /// The extra columns as a JSON object.
        var extra: Slice
        var latitude: Double
        var longitude: Double
        var line: Int64?
        /// The key's first use in this import, so no earlier row of it can conflict.
        package var firstUse: Bool
    }

    /// The file every row came from, as messages name it.
    public var file: String?
    /// The file's identity in the workspace (its absolute path), when not `file`.
    public var sourcePath: String?
    package var bytes: [UInt8] = []
    package var rows: [Row] = []

    public init(file: String?, sourcePath: String? = nil) {
        self.file = file
        self.sourcePath = sourcePath
    }

    public var isEmpty: Bool { rows.isEmpty }
    public var count: Int { rows.count }

    /// Adds one treasure under `key`, storing `image` as its image reference;
    /// `firstUse` says that no earlier row of this import had the key.
    public mutating func append(
        key: String, input: TreasureInput, image: String?, firstUse: Bool = false
    ) {
        let row = Row(
            key: add(key), name: add(input.name), description: add(input.description),
            image: add(image), extra: addExtra(input.extra), latitude: input.latitude,
            longitude: input.longitude,
            line: SourceLine.stored(input.location), firstUse: firstUse)
        rows.append(row)
    }

    private mutating func add(_ text: String?) -> Slice {
        guard let text else { return .null }
        let start = bytes.count
        bytes.append(contentsOf: text.utf8)
        return Slice(start: Int32(start), count: Int32(bytes.count - start))
    }

    /// The extra columns as a JSON object, written straight into the buffer.
    ///
    /// This is the format of the `extra` column of `treasures`: one member per extra column
    /// or property, in file order, named as the (de-duplicated) header or property names
    /// it; a string for text (every CSV value), the JSON value itself for a GeoJSON number,
    /// boolean, array or object (numbers exactly as written). Values without content —
    /// empty text, JSON `null` — are not stored: an export writes nothing for them either.
    /// No extras at all is SQL NULL. `ExportRecord.extra(_:)` reads it back.
    private mutating func addExtra(_ fields: [ExtraField]) -> Slice {
        let start = bytes.count
        var first = true
        for field in fields where !field.value.isEmpty && field.json != "null" {
            bytes.append(UInt8(ascii: first ? "{" : ","))
            first = false
            JSONText.appendString(field.name, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            if let json = field.json {
                bytes.append(contentsOf: json.utf8)
            } else {
                JSONText.appendString(field.value, to: &bytes)
            }
        }
        if first { return .null }
        bytes.append(UInt8(ascii: "}"))
        return Slice(start: Int32(start), count: Int32(bytes.count - start))
    }
}
