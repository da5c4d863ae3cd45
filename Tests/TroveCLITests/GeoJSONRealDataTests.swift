import Foundation
import Testing

@testable import TroveCLI
@_spi(Testing) @testable import TroveStore

/// GeoJSON as public data packages write it: a crs, lat,lon order, altitudes, numeric
/// names, names under other properties.
@Suite struct GeoJSONRealDataTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        #expect(sandbox.run("init").status == 0)
    }

    static func collection(crs: String? = nil, _ features: [(String, String)]) -> String {
        let members = features.map { coordinates, properties in
            "{\"type\": \"Feature\", \"geometry\": {\"type\": \"Point\", \"coordinates\": "
                + "[\(coordinates)]}, \"properties\": {\(properties)}}"
        }
        let crsMember =
            crs.map { "\"crs\": {\"type\": \"name\", \"properties\": {\"name\": \"\($0)\"}},\n" }
            ?? ""
        return "{\"type\": \"FeatureCollection\", \"name\": \"t\",\n\(crsMember)\"features\": [\n"
            + members.joined(separator: ",\n") + "\n]}\n"
    }

    func positions() throws -> [String] {
        try Workspace.testDatabase(at: sandbox.workspace).query(
            "SELECT key, lat, lon FROM treasures ORDER BY key"
        ) { "\($0.text(0) ?? "") \($0.double(1) ?? 0) \($0.double(2) ?? 0)" }
    }

    /// geojson.io numbers the features it draws 0, 1, 2…: the T207 warning names the flag
    /// that lets the names make those keys, and the flag does.
    @Test func geojsonIoNumbersGiveWayToNamesWithTheFlag() throws {
        let features = [
            "{\"type\": \"Feature\", \"id\": 0, \"geometry\": {\"type\": \"Point\", "
                + "\"coordinates\": [-9.2159, 38.6916]}, \"properties\": {\"name\": \"Torre de Belém\"}}",
            "{\"type\": \"Feature\", \"id\": 1, \"geometry\": {\"type\": \"Point\", "
                + "\"coordinates\": [-9.1393, 38.7139]}, \"properties\": {\"name\": \"Rossio\"}}",
            "{\"type\": \"Feature\", \"id\": \"lx-000\", \"geometry\": {\"type\": \"Point\", "
                + "\"coordinates\": [-9.1334, 38.7139]}, \"properties\": {\"name\": \"Castelo\"}}",
        ]
        try sandbox.write(
            "map.geojson",
            "{\"type\": \"FeatureCollection\", \"features\": [\n"
                + features.joined(separator: ",\n") + "\n]}\n")
        let numbered = sandbox.run("import", "treasures", "map.geojson", "--dry-run")
        #expect(numbered.status == 0, "\(numbered.stderr)")
        #expect(
            numbered.stderr.contains(
                "warning[T207]: 2 keys are all digits (0, 1); Firebase turns an object whose keys "
                    + "are all such numbers into an array (prefix them, e.g. 't0', give a key "
                    + "column, or import with --ignore-numeric-ids to key those rows by their "
                    + "names)"), "\(numbered.stderr)")
        let named = sandbox.run("import", "treasures", "map.geojson", "--ignore-numeric-ids")
        #expect(named.status == 0, "\(named.stderr)")
        #expect(!named.stderr.contains("T207"), "\(named.stderr)")
        #expect(
            try positions().map { $0.split(separator: " ")[0] } == [
                "lx-000", "rossio", "torre-de-belem",
            ])
    }

    @Test func webMercatorIsConvertedAndSaidSo() throws {
        try sandbox.write(
            "m.geojson",
            Self.collection(
                crs: "urn:ogc:def:crs:EPSG::3857",
                [
                    ("-8238310.24, 4970071.58", "\"name\": \"New York\""),
                    ("261845.72, 6250564.35", "\"name\": \"Paris\""),
                ]))
        for _ in 1...2 {
            let result = sandbox.run("import", "treasures", "m.geojson")
            #expect(result.status == 0, "\(result.stderr)")
            #expect(
                result.stderr.hasPrefix(
                    "m.geojson: warning[T224]: positions converted from "
                        + "'urn:ogc:def:crs:EPSG::3857' (Web Mercator, metres) to longitude "
                        + "and latitude\n"))
        }
        let rows = try Workspace.testDatabase(at: sandbox.workspace).query(
            "SELECT key, lat, lon FROM treasures ORDER BY key"
        ) { ($0.text(0) ?? "", $0.double(1) ?? 0, $0.double(2) ?? 0) }
        #expect(rows.map(\.0) == ["new-york", "paris"])
        #expect(abs(rows[0].1 - 40.7128) < 1e-4 && abs(rows[0].2 - -74.0060) < 1e-4)
        #expect(abs(rows[1].1 - 48.8566) < 1e-4 && abs(rows[1].2 - 2.3522) < 1e-4)
    }

    @Test(arguments: ["urn:ogc:def:crs:OGC:1.3:CRS84", "EPSG:4326"])
    func wgs84IsLongitudeLatitude(crs: String) throws {
        try sandbox.write(
            "w.geojson", Self.collection(crs: crs, [("2.3522, 48.8566", "\"name\": \"Paris\"")]))
        let result = sandbox.run("import", "treasures", "w.geojson")
        #expect(result.status == 0)
        #expect(!result.stderr.contains("warning"))
        #expect(try positions() == ["paris 48.8566 2.3522"])
    }

    @Test func anotherCRSIsRefusedByName() throws {
        try sandbox.write(
            "ny.geojson",
            Self.collection(
                crs: "urn:ogc:def:crs:EPSG::2263", [("987000, 211000", "\"name\": \"A\"")]))
        let result = sandbox.run("import", "treasures", "ny.geojson")
        #expect(result.status == 3)
        #expect(
            result.stderr.hasPrefix(
                "ny.geojson: error[T112]: the crs 'urn:ogc:def:crs:EPSG::2263' is not one trove "
                    + "reads (reproject to WGS 84"))
        #expect(try positions() == [])
    }

    /// Every position written [lat, lon], and out of range only as given.
    static let swapped = collection([
        ("-33.8688, 151.2093", "\"name\": \"Sydney\""),
        ("35.6762, 139.6503", "\"name\": \"Tokyo\""),
    ])

    @Test func aFileWrittenLatLonIsNamedWithTheFlag() throws {
        try sandbox.write("s.geojson", Self.swapped)
        let result = sandbox.run("import", "treasures", "s.geojson")
        #expect(result.status == 3)
        #expect(
            result.stderr.hasPrefix(
                "s.geojson:feature 0 features[0].geometry.coordinates[1]: error[T101]: latitude "
                    + "151.2093 is outside [-90, 90] (the position is valid as [latitude, "
                    + "longitude]: if the file is written so, pass --swap-coordinates)"),
            "\(result.stderr)")
        let validate = sandbox.run("validate", "s.geojson")
        #expect(
            validate.stdout.contains(
                "s.geojson: warning[T203]: every position of the file is valid only as "
                    + "[latitude, longitude]: the file is written lat,lon (import it with "
                    + "--swap-coordinates)\n"), "\(validate.stdout)")
        for _ in 1...2 {
            let swapped = sandbox.run("import", "treasures", "s.geojson", "--swap-coordinates")
            #expect(swapped.status == 0, "\(swapped.stderr)")
        }
        #expect(try positions() == ["sydney -33.8688 151.2093", "tokyo 35.6762 139.6503"])
    }

    @Test func altitudeIsKeptForLayouts() throws {
        try sandbox.write(
            "a.geojson", Self.collection([("7.6586, 45.9763, 4478", "\"name\": \"Matterhorn\"")]))
        #expect(sandbox.run("import", "treasures", "a.geojson").status == 0)
        #expect(sandbox.run("geohash").status == 0)
        try sandbox.write(
            "layout.json",
            #"{"records": "treasures", "paths": {"peaks/{key}": {"alt": "{alt}", "n": "{name}"}}}"#
        )
        let export = sandbox.run("export", "--layout", "layout.json")
        #expect(export.status == 0, "\(export.stderr)")
        #expect(!export.stderr.contains("warning"), "\(export.stderr)")
        #expect(
            try ExportSupport.parse(export.stdout)
                == (try ExportSupport.parse(
                    #"{"peaks": {"matterhorn": {"alt": 4478, "n": "Matterhorn"}}}"#)))
    }

    @Test func nonTextNamesAreWarnedOnce() throws {
        try sandbox.write(
            "n.geojson",
            Self.collection([
                ("2.35, 48.85", "\"name\": 75001"), ("2.36, 48.86", "\"name\": 75002"),
                ("2.37, 48.87", "\"name\": \"Bastille\", \"description\": {\"a\": 1}"),
            ]))
        let result = sandbox.run("import", "treasures", "n.geojson")
        #expect(result.status == 0)
        #expect(
            result.stderr.hasPrefix(
                "n.geojson:feature 0 features[0].properties.name: warning[T223]: the name 'name' "
                    + "is a number, not text; it is stored as its JSON text (and in 2 more "
                    + "features) (write it as a string)\n"), "\(result.stderr)")
    }

    @Test func aFeatureWithoutANameListsItsProperties() throws {
        try sandbox.write(
            "o.geojson",
            Self.collection([("2.35, 48.85", "\"OrganisationName\": \"Acme\", \"code\": 3")]))
        let result = sandbox.run("import", "treasures", "o.geojson")
        #expect(result.status == 3)
        #expect(
            result.stderr.hasPrefix(
                "o.geojson:feature 0 features[0].properties.name: error[T104]: the feature has no "
                    + "name; its properties are 'OrganisationName', 'code' (name the property "
                    + "that holds it 'name' or 'title')"), "\(result.stderr)")
    }

    /// An OSM export writes `"name": null` for unnamed places: the property is there, so
    /// renaming it is no advice; a feature that lacks its geometry too says both.
    @Test func aNullNameSaysSoAndANullGeometryIsToldWithIt() throws {
        try sandbox.write(
            "osm.geojson",
            "{\"type\": \"FeatureCollection\", \"features\": [\n"
                + "{\"type\": \"Feature\", \"geometry\": {\"type\": \"Point\", \"coordinates\": "
                + "[2.35, 48.85]}, \"properties\": {\"name\": null, \"amenity\": \"bench\"}},\n"
                + "{\"type\": \"Feature\", \"geometry\": null, \"properties\": {\"amenity\": "
                + "\"bench\"}}\n]}\n")
        let result = sandbox.run("validate", "osm.geojson")
        #expect(result.status == 1)
        #expect(
            result.stdout == """
                osm.geojson:feature 0 features[0].properties.name: error[T104]: the feature's \
                'name' is null: it has no name (give it a name, or import with --skip-invalid to \
                leave out the features without one, and --rejects FILE to list them)
                osm.geojson:feature 1 features[1].properties.name: error[T104]: the feature has \
                no name and no geometry; its properties are 'amenity' (name the property that \
                holds it 'name' or 'title')

                """, "\(result.stdout)")
    }
}
