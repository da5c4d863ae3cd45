import Foundation

/// What an existing `database.rules.json` lacks for a layout's GeoFire queries.
enum RulesMerge {
    /// One line per GeoFire node whose `.indexOn` lacks `g`, naming where to add it
    /// (`"rules" > "treasureLocations": add ".indexOn": ["g"]`). A file that is not plain
    /// JSON (rules files may hold comments) gets every node listed.
    static func missing(in existing: Data, for layout: Layout) -> [String] {
        let document = try? JSONValue(parsingStrictly: Array(existing))
        var lines: [String] = []
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
