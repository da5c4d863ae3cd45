import Foundation
import TroveBase

/// Turns a record and a template into database path and JSON bytes.
///
/// A value is written on one line (`{"g": "dr5r", "l": [40.7, -74]}`), so an export holds
/// one line per path and a changed record changes one line of a diff. A placeholder
/// without a value removes its member, and an object or array left empty disappears,
/// because the Realtime Database stores no nulls and no empty containers.
struct Renderer {
    let storage: StorageURL
    let renditionNames: [String]

    /// The first problem met while rendering the current value (a string over the size
    /// limit, a URL that cannot be built), for the caller to report with the record.
    var problem: String?

    // MARK: - Fields

    /// A field's value.
    enum Scalar {
        case string(String)
        case number(Double)
        case integer(Int64)
        case bool(Bool)
        /// A GeoJSON array or object, written as JSON.
        case json(JSONValue)
    }

    /// The value of `field` for `record`, or nil when it has none (empty text counts as
    /// none).
    package mutating func value(of field: Field, in record: inout ExportRecord) -> Scalar? {
        func text(_ value: String?) -> Scalar? {
            guard let value, !value.isEmpty else { return nil }
            return .string(value)
        }
        switch field {
        case .key: return text(record.key)
        case .name: return text(record.name)
        case .user: return text(record.user)
        case .description: return text(record.description)
        case .date: return text(record.date)
        case .geohash: return text(record.geohash)
        case .lat:
            guard let latitude = record.latitude, latitude.isFinite else { return nil }
            return .number(latitude)
        case .lon:
            guard let longitude = record.longitude, longitude.isFinite else { return nil }
            return .number(longitude)
        case .extra(let name, let type): return extra(name, as: type, in: &record)
        case .rendition(let name, let part):
            if record.imageIsRemote {
                // A remote image is not ours to resize: its URL is exported as it is.
                return part == .url ? text(record.image) : nil
            }
            guard let index = renditionNames.firstIndex(of: name),
                let rendition = record.renditions[index]
            else { return nil }
            switch part {
            case .path: return text(rendition.path)
            case .width: return .integer(rendition.width)
            case .height: return .integer(rendition.height)
            case .url:
                guard let url = storage.url(for: rendition.path, token: rendition.token) else {
                    noteMissingStorage()
                    return nil
                }
                return .string(url)
            }
        }
    }

    private mutating func noteMissingStorage() {
        guard problem == nil else { return }
        if storage.isConfigured {
            // Tokens are made with every rendition row; one can be missing only when the
            // row was written behind trove's back.
            problem =
                "an image has no download token (run 'trove storage rotate OBJECT' to make one)"
        } else {
            problem =
                "no storage location for image URLs "
                + "(run 'trove config set storage.bucket BUCKET')"
        }
    }

    /// A field as text, for interpolation into a longer string.
    package mutating func text(of field: Field, in record: inout ExportRecord) -> String? {
        switch value(of: field, in: &record) {
        case nil: return nil
        case .string(let text): return text
        case .number(let number): return JSONText.number(number)
        case .integer(let integer): return String(integer)
        case .bool(let bool): return bool ? "true" : "false"
        case .json(let json): return json.jsonText
        }
    }

    /// Text with its placeholders filled in, or nil when one has no value.
    package mutating func text(of template: TextTemplate, in record: inout ExportRecord) -> String?
    {
        switch template {
        case .literal(let text): return text
        case .whole(let field): return text(of: field, in: &record)
        case .interpolated(let parts):
            var result = ""
            for part in parts {
                switch part {
                case .text(let text): result += text
                case .field(let field):
                    guard let text = text(of: field, in: &record) else { return nil }
                    result += text
                }
            }
            return result
        }
    }

    // MARK: - Paths

    /// Appends the path for `segments` joined by `/`; returns nil when a segment has no
    /// value (the record writes nothing there) or a problem when a key breaks a limit.
    mutating func renderPath(
        _ path: CompiledPath, record: inout ExportRecord, into output: inout RenderBuffer
    ) -> PathOutcome {
        for (index, segment) in path.segments.enumerated() {
            if index > 0 { output.append(UInt8(ascii: "/")) }
            var key: String
            switch segment {
            case .literal(let start, let end):
                path.pool.withUnsafeBufferPointer {
                    output.append(
                        contentsOf: UnsafeBufferPointer(rebasing: $0[Int(start)..<Int(end)]))
                }
                continue
            case .key:
                key = record.key
            case .text(let text):
                guard let text = self.text(of: path.texts[Int(text)], in: &record) else {
                    return .absent
                }
                key = text
            }
            if key.isEmpty { return .absent }
            let reason = key.withUTF8 { bytes -> String? in
                output.append(contentsOf: bytes)
                return FirebaseKey.problem(bytes: bytes)
            }
            if let reason {
                return .illegal("key \"\(Self.shortened(key))\" \(reason)")
            }
        }
        return .written
    }

    enum PathOutcome: Equatable {
        case written
        case absent
        case illegal(String)
    }

    /// At most 80 characters of `text`, for messages.
    static func shortened(_ text: String) -> String {
        text.count > 80 ? String(text.prefix(77)) + "..." : text
    }

    // MARK: - Values

    /// Appends `value` rendered for `record`; returns false (and appends nothing) when it
    /// has no value.
    package mutating func render(
        _ value: CompiledValue, record: inout ExportRecord, into output: inout RenderBuffer
    ) -> Bool {
        value.nodes.withUnsafeBufferPointer { nodes in
            value.members.withUnsafeBufferPointer { members in
                value.pool.withUnsafeBufferPointer { pool in
                    render(
                        CompiledValue.root, of: value, nodes: nodes, members: members, pool: pool,
                        record: &record, into: &output)
                }
            }
        }
    }

    private mutating func render(
        _ index: Int32, of value: CompiledValue, nodes: UnsafeBufferPointer<CompiledValue.Node>,
        members: UnsafeBufferPointer<CompiledValue.Member>, pool: UnsafeBufferPointer<UInt8>,
        record: inout ExportRecord, into output: inout RenderBuffer
    ) -> Bool {
        func append(_ start: Int32, _ end: Int32) {
            output.append(contentsOf: UnsafeBufferPointer(rebasing: pool[Int(start)..<Int(end)]))
        }
        let node = nodes[Int(index)]
        switch node.kind {
        case .absent:
            return false
        case .literal:
            append(node.start, node.end)
            return true
        case .field:
            return render(node.slot, of: value, record: &record, into: &output)
        case .text:
            guard let text = self.text(of: value.texts[Int(node.text)], in: &record) else {
                return false
            }
            return appendString(text, into: &output)
        case .object:
            let start = output.count
            output.append(UInt8(ascii: "{"))
            var written = false
            for member in members[Int(node.first)..<Int(node.first + node.count)] {
                let mark = output.count
                if written { output.append(", ") }
                append(member.start, member.end)
                if render(
                    member.node, of: value, nodes: nodes, members: members, pool: pool,
                    record: &record, into: &output)
                {
                    written = true
                } else {
                    output.removeLast(output.count - mark)
                }
            }
            guard written else {
                output.removeLast(output.count - start)
                return false
            }
            append(node.start, node.end)
            return true
        case .array:
            // Array positions carry meaning (`l` is [lat, lon]), so a missing element
            // removes the whole array rather than shifting the others.
            let start = output.count
            output.append(UInt8(ascii: "["))
            for position in Int(node.first)..<Int(node.first + node.count) {
                let member = members[position]
                if position > Int(node.first) {
                    output.append(", ")
                }
                guard
                    render(
                        member.node, of: value, nodes: nodes, members: members, pool: pool,
                        record: &record, into: &output)
                else {
                    output.removeLast(output.count - start)
                    return false
                }
            }
            append(node.start, node.end)
            return true
        }
    }

    /// Appends the value of a whole-string placeholder; false when it has none.
    private mutating func render(
        _ slot: CompiledValue.Slot, of value: CompiledValue, record: inout ExportRecord,
        into output: inout RenderBuffer
    ) -> Bool {
        func number(_ number: Double?) -> Bool {
            guard let number, number.isFinite else { return false }
            JSONText.appendNumber(number, to: &output)
            return true
        }
        switch slot {
        case .key: return appendString(record.key, into: &output)
        case .name: return appendString(record.name, into: &output)
        case .user: return appendString(record.user, into: &output)
        case .description: return appendString(record.description, into: &output)
        case .date: return appendString(record.date, into: &output)
        case .geohash: return appendString(record.geohash, into: &output)
        case .lat: return number(record.latitude)
        case .lon: return number(record.longitude)
        case .renditionURL(let index):
            // A remote image is not ours to resize: its URL is exported as it is.
            if record.imageIsRemote { return appendString(record.image, into: &output) }
            guard let rendition = record.renditions[index] else { return false }
            output.append(UInt8(ascii: "\""))
            guard
                storage.appendURL(
                    for: rendition.pathBytes,
                    token: rendition.hasToken ? rendition.tokenBytes : nil,
                    to: &output)
            else {
                output.removeLast()
                noteMissingStorage()
                return false
            }
            output.append(UInt8(ascii: "\""))
            return true
        case .other(let index):
            switch self.value(of: value.fields[index], in: &record) {
            case nil: return false
            case .string(let text): return appendString(text, into: &output)
            case .number(let number): JSONText.appendNumber(number, to: &output)
            case .integer(let integer): JSONText.appendInteger(integer, to: &output)
            case .bool(let bool): output.append(bool ? "true" : "false")
            case .json(let json): return appendJSON(json, into: &output)
            }
            return true
        }
    }

    mutating func appendString(_ text: String?, into output: inout RenderBuffer) -> Bool {
        guard let text else { return false }
        return appendString(text, into: &output)
    }

    mutating func appendString(_ text: String, into output: inout RenderBuffer) -> Bool {
        if text.isEmpty { return false }
        if text.utf8.count > FirebaseLimits.maximumStringBytes {
            if problem == nil {
                problem =
                    "a string of \(text.utf8.count) bytes exceeds the "
                    + "\(FirebaseLimits.maximumStringBytes)-byte limit"
            }
            return false
        }
        JSONText.appendString(text, to: &output)
        return true
    }

    static func indent(_ level: Int, into output: inout [UInt8]) {
        output.append(contentsOf: repeatElement(0x20, count: level * 2))
    }
}
