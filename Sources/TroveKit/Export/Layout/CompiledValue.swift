/// A value template flattened for rendering a million records: nodes in one array and
/// every constant byte (keys, punctuation, literals) in one pool, so that walking it copies
/// no arrays and touches no reference counts.
struct CompiledValue: Sendable {
    /// Where a whole-string placeholder's value comes from.
    enum Slot: Sendable {
        case key, name, user, description, date, geohash, lat, lon
        /// The download URL of `Layout.renditionNames[index]`.
        case renditionURL(Int)
        /// Any other field, by index into `fields`, through `Renderer.value(of:in:)`.
        case other(Int)
    }

    struct Node: Sendable {
        enum Kind: UInt8, Sendable {
            case absent, literal, field, text, object, array
        }
        var kind: Kind
        /// A literal's bytes; for an object or array, its closing bytes.
        var start: Int32 = 0
        var end: Int32 = 0
        /// Children in `members`.
        package var first: Int32 = 0
        package var count: Int32 = 0
        var slot: Slot = .key
        /// For `.text`, the index into `texts`.
        package var text: Int32 = 0
    }

    /// A child of an object or array: the bytes written before it (an object member's
    /// key) and its node.
    struct Member: Sendable {
        var start: Int32
        var end: Int32
        var node: Int32
    }

    private(set) var nodes: [Node] = []
    private(set) var members: [Member] = []
    private(set) var pool: [UInt8] = []
    private(set) var fields: [Field] = []
    private(set) var texts: [TextTemplate] = []

    package init(_ template: ValueTemplate, renditionNames: [String]) {
        _ = add(template, renditionNames: renditionNames)
    }

    /// The root node's index.
    static let root: Int32 = 0

    private mutating func bytes(_ content: [UInt8]) -> (Int32, Int32) {
        let start = Int32(pool.count)
        pool += content
        return (start, Int32(pool.count))
    }

    private mutating func add(_ template: ValueTemplate, renditionNames: [String]) -> Int32 {
        let index = Int32(nodes.count)
        nodes.append(Node(kind: .absent))
        var node = Node(kind: .absent)
        switch template {
        case .absent:
            break
        case .literal(let literal):
            node.kind = .literal
            (node.start, node.end) = bytes(literal)
        case .text(.whole(let field)):
            node.kind = .field
            node.slot = slot(field, renditionNames: renditionNames)
        case .text(let text):
            node.kind = .text
            node.text = Int32(texts.count)
            texts.append(text)
        case .object(let objectMembers):
            node.kind = .object
            var children: [Member] = []
            for member in objectMembers {
                let (start, end) = bytes(member.key + Array(": ".utf8))
                let child = add(member.value, renditionNames: renditionNames)
                children.append(Member(start: start, end: end, node: child))
            }
            (node.first, node.count) = (Int32(members.count), Int32(children.count))
            members += children
            (node.start, node.end) = bytes(Array("}".utf8))
        case .array(let elements):
            node.kind = .array
            var children: [Member] = []
            for element in elements {
                let child = add(element, renditionNames: renditionNames)
                children.append(Member(start: 0, end: 0, node: child))
            }
            (node.first, node.count) = (Int32(members.count), Int32(children.count))
            members += children
            (node.start, node.end) = bytes(Array("]".utf8))
        }
        nodes[Int(index)] = node
        return index
    }

    private mutating func slot(_ field: Field, renditionNames: [String]) -> Slot {
        switch field {
        case .key: return .key
        case .name: return .name
        case .user: return .user
        case .description: return .description
        case .date: return .date
        case .geohash: return .geohash
        case .lat: return .lat
        case .lon: return .lon
        case .rendition(let name, .url):
            if let index = renditionNames.firstIndex(of: name) { return .renditionURL(index) }
        default:
            break
        }
        fields.append(field)
        return .other(fields.count - 1)
    }
}

/// A path template flattened like `CompiledValue`.
struct CompiledPath: Sendable {
    enum Segment: Sendable {
        /// Bytes in `pool`.
        case literal(Int32, Int32)
        /// The record's key, the usual last segment.
        case key
        /// Any other segment, by index into `texts`.
        case text(Int32)
    }

    private(set) var segments: [Segment] = []
    private(set) var pool: [UInt8] = []
    private(set) var texts: [TextTemplate] = []

    package init(_ templates: [TextTemplate]) {
        for template in templates {
            switch template {
            case .literal(let text):
                let start = Int32(pool.count)
                pool += Array(text.utf8)
                segments.append(.literal(start, Int32(pool.count)))
            case .whole(.key):
                segments.append(.key)
            default:
                segments.append(.text(Int32(texts.count)))
                texts.append(template)
            }
        }
    }
}
