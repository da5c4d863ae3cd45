import Foundation
import TroveBase

extension Exporter {
    /// A complete `database.rules.json` for `layout`: every GeoFire node indexed on `g`,
    /// the layout's top-level nodes readable by the apps, nothing else readable, and no
    /// client writes (publishing goes through the Firebase CLI, which the rules do not
    /// bind).
    public static func rules(for layout: Layout) -> String {
        let root = RulesNode()
        root.rules = [(".read", "false"), (".write", "false")]
        root.add(layout)
        return root.document
    }

    /// The rules file an earlier export wrote (byte for byte as this function renders it),
    /// with what `layout` adds: its top-level nodes readable and its GeoFire nodes indexed.
    /// Nothing is taken away, and a `.read` already there keeps its value. Nil when
    /// `existing` is not such a file: someone's own rules, which are left alone.
    static func rules(updating existing: Data, for layout: Layout) -> String? {
        guard let document = try? JSONValue(parsingStrictly: Array(existing)),
            case .object(let members) = document, members.count == 1,
            let rules = document["rules"], let root = RulesNode(rules),
            Data(root.document.utf8) == existing
        else { return nil }
        root.add(layout)
        return root.document
    }

    /// One level of a rules file trove writes: `.read`/`.write` booleans, an index on `g`,
    /// and child nodes.
    private final class RulesNode {
        var children: [String: RulesNode] = [:]
        var indexed = false
        var rules: [(String, String)] = []

        init() {}

        /// The node `value` holds, or nil when it holds anything trove does not write.
        init?(_ value: JSONValue) {
            guard case .object(let members) = value else { return nil }
            for member in members {
                switch (member.name, member.value) {
                case (".read", .bool(let flag)), (".write", .bool(let flag)):
                    rules.append((member.name, flag ? "true" : "false"))
                case (".indexOn", .array([.string("g")])):
                    indexed = true
                default:
                    guard !member.name.hasPrefix("."), let child = RulesNode(member.value)
                    else { return nil }
                    children[member.name] = child
                }
            }
        }

        func child(_ name: String) -> RulesNode {
            if let node = children[name] { return node }
            let node = RulesNode()
            children[name] = node
            return node
        }

        /// Makes `layout`'s top-level nodes readable (where they say nothing of `.read`)
        /// and indexes its GeoFire nodes on `g`.
        func add(_ layout: Layout) {
            for template in layout.paths {
                guard case .literal(let name) = template.segments.first else { continue }
                let node = child(name)
                if !node.rules.contains(where: { $0.0 == ".read" }) {
                    node.rules.append((".read", "true"))
                }
            }
            for template in layout.paths where template.isGeoFireNode {
                var node = self
                for segment in template.segments.dropLast() {
                    switch segment {
                    case .literal(let text): node = node.child(text)
                    case .whole(let field): node = node.child("$" + Exporter.wildcardName(field))
                    case .interpolated: node = node.child("$segment")
                    }
                }
                node.indexed = true
            }
        }

        /// The whole file, `{"rules": ...}`, keys sorted, two-space indented.
        var document: String {
            var output = Array("{\n  \"rules\": ".utf8)
            render(level: 1, into: &output)
            output.append(contentsOf: "\n}\n".utf8)
            return String(decoding: output, as: UTF8.self)
        }

        private func render(level: Int, into output: inout [UInt8]) {
            var members: [([UInt8], (inout [UInt8]) -> Void)] = []
            if indexed {
                members.append((Array(".indexOn".utf8), { $0.append(contentsOf: "[\"g\"]".utf8) }))
            }
            for (key, value) in rules {
                members.append((Array(key.utf8), { $0.append(contentsOf: value.utf8) }))
            }
            for (key, child) in children {
                members.append((Array(key.utf8), { child.render(level: level + 1, into: &$0) }))
            }
            members.sort { $0.0.lexicographicallyPrecedes($1.0) }
            var object = JSONLineWriter(
                .object, indent: String(repeating: "  ", count: level + 1),
                closingIndent: String(repeating: "  ", count: level))
            output.append(contentsOf: object.opening.utf8)
            for member in members {
                object.appendNext(to: &output)
                JSONText.appendString(String(decoding: member.0, as: UTF8.self), to: &output)
                output.append(contentsOf: ": ".utf8)
                member.1(&output)
            }
            object.appendClosing(to: &output)
        }
    }

    fileprivate static func wildcardName(_ field: Field) -> String {
        switch field {
        case .key: return "key"
        case .name: return "name"
        case .user: return "user"
        case .description: return "description"
        case .date: return "date"
        case .lat: return "lat"
        case .lon: return "lon"
        case .geohash: return "geohash"
        case .extra(let name, _): return "extra_" + name.filter { $0.isLetter || $0.isNumber }
        case .rendition(let name, let part): return "\(name)_\(part.rawValue)"
        }
    }
}
