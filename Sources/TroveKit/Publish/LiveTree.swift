import Foundation
import TroveBase

/// What a Realtime Database really holds, from `firebase database:get /`, for a publish
/// that plans against it (`--against`) instead of against the target's recorded state.
///
/// Values compare as the database stores them: numbers by value, objects whatever their
/// member order, arrays as the objects of index keys they are stored as, nulls and empty
/// objects as nothing, and priorities (which `database:get` leaves out without
/// `--export`) ignored.
public struct LiveTree: Sendable {
    /// A value as the database stores it.
    indirect enum Node: Equatable, Sendable {
        case bool(Bool)
        case number(Double)
        case string(String)
        case object([String: Node])
    }

    let root: Node?

    /// Reads the download at `path`.
    ///
    /// - Throws: `PublishError.input` naming the file and where it stops being JSON.
    public init(contentsOf path: String) throws {
        guard let bytes = FileManager.default.contents(atPath: path) else {
            throw PublishError.input("\(path): cannot read it")
        }
        var parser = JSONParser(Array(bytes))
        do {
            root = Self.node(try parser.parseValue())
        } catch {
            throw PublishError.input(
                "\(path):\(error.line):\(error.column): \(error.message) (expected the output "
                    + "of 'firebase database:get /')")
        }
    }

    init(root: Node?) {
        self.root = root
    }

    /// `value` as the database would store it; nil for nothing.
    static func node(_ value: JSONValue) -> Node? {
        switch value {
        case .null: return nil
        case .bool(let value): return .bool(value)
        case .number(let text): return Double(text).map(Node.number)
        case .string(let text): return .string(text)
        case .array(let elements):
            var members: [String: Node] = [:]
            for (index, element) in elements.enumerated() {
                members[String(index)] = node(element)
            }
            return members.isEmpty ? nil : .object(members)
        case .object(let list):
            // An exported leaf with a priority: {".value": V, ".priority": P}.
            if let value = list.last(where: { $0.name == ".value" }) {
                return node(value.value)
            }
            var members: [String: Node] = [:]
            for member in list where member.name != ".priority" {
                members[member.name] = node(member.value)
            }
            return members.isEmpty ? nil : .object(members)
        }
    }

    /// The node at `path` (segments joined by `/`).
    func node(at path: some StringProtocol) -> Node? {
        var node = root
        for segment in path.split(separator: "/") {
            guard case .object(let members)? = node else { return nil }
            node = members[String(segment)]
        }
        return node
    }

    /// The paths holding a value whose shape is one of `shapes`: per shape its segments,
    /// nil for a segment any key fills. In no particular order.
    func paths(shapedLike shapes: [[String?]]) -> [String] {
        var found: [String] = []
        func walk(_ node: Node, _ shape: ArraySlice<String?>, _ prefix: String) {
            guard let segment = shape.first else {
                found.append(prefix)
                return
            }
            guard case .object(let members) = node else { return }
            let keys = segment.map { [$0] } ?? Array(members.keys)
            for key in keys {
                guard let child = members[key] else { continue }
                walk(child, shape.dropFirst(), prefix.isEmpty ? key : prefix + "/" + key)
            }
        }
        if let root {
            for shape in shapes { walk(root, shape[...], "") }
        }
        return found
    }
}
