import TroveBase

extension GeoJSONTreasureSource {
    /// One feature being read: where it is, for messages, and the checks of its parts that
    /// need nothing else of the file.
    struct Feature {
        /// What keeps a feature from being a treasure.
        struct Refusal: Error {
            let diagnostic: Diagnostic
        }

        let entry: Entry
        /// Where the feature is; its key once read.
        var location: Diagnostic.Location

        /// The JSON path of `suffix` within the feature.
        func path(_ suffix: String) -> String {
            entry.path.isEmpty ? suffix : "\(entry.path).\(suffix)"
        }

        func refusal(_ code: String, _ message: String, at suffix: String, hint: String? = nil)
            -> Refusal
        {
            var place = location
            place.jsonPath = path(suffix)
            return Refusal(diagnostic: Diagnostic(.error, code, message, at: place, hint: hint))
        }

        /// The feature's properties, after checking it is a Feature at all.
        func properties(index: Int) throws(Refusal) -> [JSONMember] {
            let feature = entry.value
            guard case .object = feature, feature["type"] == .string("Feature") else {
                let found = feature["type"].map { $0.jsonText } ?? feature.kind
                var place = location
                place.jsonPath = entry.path.isEmpty ? "type" : entry.path
                throw Refusal(
                    diagnostic: Diagnostic(
                        .error, DiagnosticCode.brokenJSON,
                        "feature \(index) is not a GeoJSON Feature (\(found))", at: place))
            }
            switch feature["properties"] {
            case .object(let members)?: return members
            case .null?, nil: return []
            case let other?:
                throw refusal(
                    DiagnosticCode.brokenJSON, "properties is \(other.kind), not an object",
                    at: "properties")
            }
        }

        /// Reads and checks the key (the feature's id wins over the properties) into
        /// `location`; returns the property column it came from, if any.
        mutating func key(properties: [JSONMember], columns: [TreasureField: Int])
            throws(Refusal) -> Int?
        {
            var key: String?
            var keyPath = "id"
            var keyColumn: Int?
            if let id = entry.value["id"], id != .null {
                switch id {
                case .string, .number: key = GeoJSONTreasureSource.text(id)
                default:
                    throw refusal(
                        DiagnosticCode.illegalKey,
                        "the feature's id is \(id.kind), not a string or number", at: keyPath)
                }
            } else if let column = columns[.key], properties[column].value != .null {
                key = GeoJSONTreasureSource.text(properties[column].value)
                keyPath = "properties.\(properties[column].name)"
                keyColumn = column
            }
            if let key {
                location.key = key
                do throws(TreasureCheck.Problem) {
                    try TreasureCheck.key(key)
                } catch {
                    throw refusal(error.code, error.message, at: keyPath, hint: error.hint)
                }
            }
            return keyColumn
        }

        /// The name, which a treasure must have; a feature that lacks its position too says
        /// so at once, not at the next import.
        func name(properties: [JSONMember], columns: [TreasureField: Int]) throws(Refusal)
            -> String
        {
            if let column = columns[.name],
                let name = GeoJSONTreasureSource.text(
                    properties[column].value), !name.isEmpty
            {
                return name
            }
            let geometry = entry.value["geometry"]
            let noGeometry = geometry == nil || geometry == .null ? " and no geometry" : ""
            if let column = columns[.name] {
                // The property is there: renaming it would not help.
                let property = properties[column]
                let what = property.value == .null ? "null" : "empty"
                throw refusal(
                    DiagnosticCode.missingName,
                    "the feature's '\(TreasureCheck.shown(property.name))' is \(what): it has no "
                        + "name\(noGeometry)",
                    at: "properties.\(property.name)",
                    hint: "give it a name, or import with --skip-invalid to leave out the features "
                        + "without one, and --rejects FILE to list them")
            }
            let found =
                properties.isEmpty
                ? "it has no properties"
                : "its properties are "
                    + properties.prefix(12).map { "'\(TreasureCheck.shown($0.name))'" }
                    .joined(separator: ", ") + (properties.count > 12 ? ", …" : "")
            throw refusal(
                DiagnosticCode.missingName, "the feature has no name\(noGeometry); \(found)",
                at: "properties.name", hint: "name the property that holds it 'name' or 'title'")
        }
    }
}
