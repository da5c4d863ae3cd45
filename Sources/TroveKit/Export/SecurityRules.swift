import Foundation

extension Exporter {
    /// A complete `database.rules.json` for `layout`: every GeoFire node indexed on `g`,
    /// the layout's top-level nodes readable by the apps, nothing else readable, and no
    /// client writes (publishing goes through the Firebase CLI, which the rules do not
    /// bind).
    public static func rules(for layout: Layout) -> String {
        // Nested dictionary of rule paths; placeholders become `$name` wildcards.
        final class Node {
            var children: [String: Node] = [:]
            var indexed = false
            var rules: [(String, String)] = []
        }
        let root = Node()
        root.rules = [(".read", "false"), (".write", "false")]
        for template in layout.paths {
            guard case .literal(let name) = template.segments.first else { continue }
            if root.children[name] == nil { root.children[name] = Node() }
            root.children[name]!.rules = [(".read", "true")]
        }
        for template in layout.paths where template.isGeoFireNode {
            var node = root
            for segment in template.segments.dropLast() {
                let name: String
                switch segment {
                case .literal(let text): name = text
                case .whole(let field): name = "$" + wildcardName(field)
                case .interpolated: name = "$segment"
                }
                if node.children[name] == nil { node.children[name] = Node() }
                node = node.children[name]!
            }
            node.indexed = true
        }
        func render(_ node: Node, level: Int, into output: inout [UInt8]) {
            var members: [([UInt8], (inout [UInt8]) -> Void)] = []
            if node.indexed {
                members.append((Array(".indexOn".utf8), { $0.append(contentsOf: "[\"g\"]".utf8) }))
            }
            for (key, value) in node.rules {
                members.append((Array(key.utf8), { $0.append(contentsOf: value.utf8) }))
            }
            for (key, child) in node.children {
                members.append((Array(key.utf8), { render(child, level: level + 1, into: &$0) }))
            }
            members.sort { $0.0.lexicographicallyPrecedes($1.0) }
            output.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                output.append(0x0A)
                Renderer.indent(level + 1, into: &output)
                JSONText.appendString(String(decoding: member.0, as: UTF8.self), to: &output)
                output.append(contentsOf: ": ".utf8)
                member.1(&output)
            }
            if !members.isEmpty {
                output.append(0x0A)
                Renderer.indent(level, into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
        var output = Array("{\n  \"rules\": ".utf8)
        render(root, level: 1, into: &output)
        output.append(contentsOf: "\n}\n".utf8)
        return String(decoding: output, as: UTF8.self)
    }

    private static func wildcardName(_ field: Field) -> String {
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
