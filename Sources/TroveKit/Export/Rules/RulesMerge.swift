import Foundation
import TroveBase

/// What an existing `database.rules.json` of someone's own lacks for a layout.
enum RulesMerge {
    /// One line per missing rule, naming where to add it: each top-level node the layout
    /// writes that the apps cannot read (`"rules" > "byCategory": add ".read": true`), then
    /// each GeoFire node whose `.indexOn` lacks `g` (`"rules" > "treasureLocations": add
    /// ".indexOn": ["g"]`). A file that is not plain JSON (rules files may hold comments)
    /// gets every node listed.
    static func missing(in existing: Data, for layout: Layout) -> [String] {
        let document = try? JSONValue(parsingStrictly: Array(existing))
        var lines: [String] = []
        // A node is readable when its own `.read` or the root's is anything but false:
        // a condition such as "auth != null" is the designer's choice.
        func readable(_ node: JSONValue?) -> Bool {
            guard let read = node?[".read"] else { return false }
            return read != .bool(false)
        }
        let rootReadable = readable(document?["rules"])
        var seen: Set<String> = []
        for template in layout.paths {
            guard case .literal(let name) = template.segments.first, seen.insert(name).inserted
            else { continue }
            if !rootReadable && !readable(document?["rules"]?[name]) {
                lines.append("\"rules\" > \(JSONText.quoted(name)): add \".read\": true")
            }
        }
        for template in layout.paths where template.isGeoFireNode {
            var names = ["rules"]
            for segment in template.segments.dropLast() {
                switch segment {
                case .literal(let text): names.append(text)
                case .whole, .interpolated: names.append("$" + "key")
                }
            }
            var node = document
            for name in names {
                // A wildcard matches whatever `$` name the file uses at that level.
                if name.hasPrefix("$"), case .object(let members)? = node {
                    node = members.first { $0.name.hasPrefix("$") }?.value
                } else {
                    node = node?[name]
                }
            }
            let indexed: Bool
            switch node?[".indexOn"] {
            case .string(let field)?: indexed = field == "g"
            case .array(let fields)?: indexed = fields.contains(.string("g"))
            default: indexed = false
            }
            if !indexed {
                let place = names.map { "\"\($0)\"" }.joined(separator: " > ")
                lines.append("\(place): add \".indexOn\": [\"g\"]")
            }
        }
        return lines
    }
}
