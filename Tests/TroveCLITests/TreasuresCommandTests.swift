import Foundation
import Testing

@testable import TroveCLI
@_spi(Testing) @testable import TroveStore

@Suite struct TreasuresCommandTests {
    let sandbox: Sandbox

    static let layout = """
        {
          "records": "treasures",
          "paths": {
            "treasureLocations/{key}": {"g": "{geohash}", "l": ["{lat}", "{lon}"]},
            "treasureProfiles/{key}": {
              "name": "{name}", "description": "{description}", "imageURL": "{image.full.url}",
              "points": "{extra.points}", "team": "{extra.team}", "label": "{name} of {extra.team}"
            }
          }
        }
        """

    /// Text that a careless writer would break: delimiters, quotes, line breaks, spaces
    /// around, digits that must stay text, accents; an extra some rows lack.
    static let csv = """
        key,name,lat,lon,image,description,points,team
        hairy-harry,"Hairy ""The Bull"" Harry",40.705576,-74.013421,https://example.com/h.png,"Guards the bull,
        mostly",050,red
        007-bond,  Spaced Name ,40.7,-74,,,7,
        ,Crème Brûlée; Café,-33.8688,151.2093,,A tab\there,,blue

        """

    static let geojson = """
        {"type": "FeatureCollection", "features": [
          {"type": "Feature", "id": "liberty", "geometry": {"type": "Point", "coordinates": [-74.0445, 40.6892]},
           "properties": {"name": "Lady Liberty", "points": 10, "team": "green", "tags": ["a", "b"]}},
          {"type": "Feature", "geometry": {"type": "Point", "coordinates": [2.2945, 48.8584]},
           "properties": {"title": "Eiffel", "image": "https://example.com/e.jpg", "points": "12"}}
        ]}
        """

    init() throws {
        sandbox = try Sandbox()
        #expect(sandbox.run("init").status == 0)
        try sandbox.write("layout.json", Self.layout)
        try sandbox.write("treasures.csv", Self.csv)
        try sandbox.write("more.geojson", Self.geojson)
        let result = sandbox.run("import", "treasures", "treasures.csv", "more.geojson")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(sandbox.run("geohash").status == 0)
        #expect(sandbox.run("export", "--layout", "layout.json", "-o", "a.json").status == 0)
    }

    func stored(_ workspace: String) throws -> [String] {
        try Workspace.testDatabase(at: workspace).query(
            "SELECT key, name, lat, lon, description, image, extra FROM treasures ORDER BY key"
        ) { row in (0..<7).map { plain(row[$0]) }.joined(separator: "|") }
    }

    @Test(arguments: ["csv", "geojson"])
    func listingImportsIntoAnEmptyWorkspaceAsTheSameTree(format: String) throws {
        let listing = sandbox.run("treasures", "list", "--format", format)
        #expect(listing.status == 0, "\(listing.stderr)")
        let other = try Sandbox()
        #expect(other.run("init").status == 0)
        try other.write("layout.json", Self.layout)
        try other.write("listing.\(format)", listing.stdout)
        let imported = other.run("import", "treasures", "listing.\(format)")
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(other.run("geohash").status == 0)
        #expect(other.run("export", "--layout", "layout.json", "-o", "b.json").status == 0)
        var first = try ExportSupport.read(sandbox.path("a.json"))
        let second = try ExportSupport.read(other.path("b.json"))
        if format == "csv" {
            // CSV has only text: the GeoJSON number and array come back as text, and the
            // listing says so.
            #expect(
                listing.stderr.contains(
                    "warning: 2 extra values are a number, boolean, array or object (first: "
                        + "liberty, column 'points'); CSV holds it as text. Use --format geojson"))
            first = first.replacingOccurrences(of: "\"points\": 10,", with: "\"points\": \"10\",")
        } else {
            #expect(listing.stderr.isEmpty)
        }
        #expect(second == first)
        #expect(first.contains("Spaced Name") && first.contains("\"points\": \"050\""))
        // And the listing of the copy is the listing of the original.
        #expect(other.run("treasures", "list", "--format", format).stdout == listing.stdout)
        if format == "geojson" {
            #expect(try stored(other.workspace) == (try stored(sandbox.workspace)))
        }
    }

    /// What a CSV import stores is text, and a CSV listing gives it back byte for byte.
    @Test func csvListingOfACSVImportGivesTheSameTreeBack() throws {
        let designer = try Sandbox()
        #expect(designer.run("init").status == 0)
        try designer.write("layout.json", Self.layout)
        try designer.write("treasures.csv", Self.csv)
        #expect(designer.run("import", "treasures", "treasures.csv").status == 0)
        #expect(designer.run("geohash").status == 0)
        #expect(designer.run("export", "--layout", "layout.json", "-o", "a.json").status == 0)
        let listing = designer.run("treasures", "list", "--format", "csv")
        #expect(listing.status == 0 && listing.stderr.isEmpty, "\(listing.stderr)")
        let copy = try Sandbox()
        #expect(copy.run("init").status == 0)
        try copy.write("layout.json", Self.layout)
        try copy.write("listing.csv", listing.stdout)
        #expect(copy.run("import", "treasures", "listing.csv").status == 0)
        #expect(copy.run("geohash").status == 0)
        #expect(copy.run("export", "--layout", "layout.json", "-o", "b.json").status == 0)
        let original = try ExportSupport.read(designer.path("a.json"))
        #expect(try ExportSupport.read(copy.path("b.json")) == original)
        #expect(original.contains("\"points\": \"050\""))
        #expect(try stored(copy.workspace) == (try stored(designer.workspace)))
    }

    @Test func csvListingQuotesWhatNeedsIt() {
        let listing = sandbox.run("treasures", "list", "--format", "csv").stdout
        let lines = listing.components(separatedBy: "\r\n")
        #expect(lines[0] == "key,name,lat,lon,image,description,points,team,tags")
        #expect(lines[1] == "007-bond,\"  Spaced Name \",40.7,-74,,,7,,")
        #expect(
            lines.contains(
                "creme-brulee-cafe,\"Crème Brûlée; Café\",-33.8688,151.2093,,\"A tab\there\",,blue,"
            ))
    }

    @Test func geojsonListingIsAFeatureCollectionOfPoints() throws {
        let listing = sandbox.run("treasures", "list", "--format", "geojson").stdout
        let json = try ExportSupport.parse(listing)
        let root = try #require(json.objectValue)
        #expect(root["type"] == .string("FeatureCollection"))
        guard case .array(let features)? = root["features"] else {
            Issue.record("no features")
            return
        }
        #expect(features.count == 5)
        for feature in features {
            let members = try #require(feature.objectValue)
            #expect(members["type"] == .string("Feature"))
            let geometry = try #require(members["geometry"]?.objectValue)
            #expect(geometry["type"] == .string("Point"))
            guard case .array(let position)? = geometry["coordinates"] else {
                Issue.record("no coordinates")
                continue
            }
            #expect(position.count == 2)
            #expect(members["properties"]?.objectValue?["name"] != nil)
        }
        #expect(
            listing.contains(
                "{\"type\": \"Feature\", \"id\": \"liberty\", \"geometry\": {\"type\": \"Point\", "
                    + "\"coordinates\": [-74.0445, 40.6892]}, \"properties\": {\"name\": "
                    + "\"Lady Liberty\", \"points\": "))
    }

    @Test func textAndJSONListings() {
        let text = sandbox.run("treasures", "list")
        #expect(text.status == 0)
        let lines = text.stdout.split(separator: "\n")
        #expect(lines.count == 6)
        #expect(lines[0].hasPrefix("KEY "))
        #expect(lines[1].hasPrefix("007-bond ") && lines[1].hasSuffix(" treasures.csv:4"))
        #expect(text.stderr == "5 treasures\n")
        let json = sandbox.run("treasures", "list", "--format", "json").stdout
        #expect(
            json.contains(
                "{\"key\": \"007-bond\", \"name\": \"  Spaced Name \", \"lat\": 40.7, \"lon\": -74, "
                    + "\"description\": null, \"image\": null, \"extra\": {\"points\": \"7\"}, "
                    + "\"geohash\": \"dr5rs14yej\", \"file\": \"treasures.csv\", \"line\": 4, "
                    + "\"feature\": null}"))
        // A feature of a FeatureCollection has no line: it is named by its index.
        #expect(json.contains("\"file\": \"more.geojson\", \"line\": null, \"feature\": 0}"))
        #expect(text.stdout.contains(" more.geojson:feature 0\n"))
        #expect(sandbox.run("treasures", "list", "--format", "xml").status == 2)
    }

    @Test func listingsPutOneElementALineAndEmptyOnesOnOne() throws {
        let json = sandbox.run("treasures", "list", "--format", "json").stdout
        #expect(json.hasPrefix("[\n  {\"key\": \"007-bond\", "))
        #expect(json.components(separatedBy: "},\n  {\"key\": ").count == 5)
        #expect(json.hasSuffix("\"feature\": 0}\n]\n"))
        let geojson = sandbox.run("treasures", "list", "--format", "geojson").stdout
        #expect(
            geojson.hasPrefix(
                "{\"type\": \"FeatureCollection\", \"features\": [\n{\"type\": \"Feature\", "))
        #expect(geojson.components(separatedBy: "}},\n{\"type\": \"Feature\", ").count == 5)
        #expect(geojson.hasSuffix("}}\n]}\n"))

        let empty = try Sandbox()
        #expect(empty.run("init").status == 0)
        #expect(empty.run("treasures", "list", "--format", "json").stdout == "[]\n")
        #expect(
            empty.run("treasures", "list", "--format", "geojson").stdout
                == "{\"type\": \"FeatureCollection\", \"features\": []}\n")
        #expect(empty.run("export", "log", "--format", "json").stdout == "[]\n")
        let log = sandbox.run("export", "log", "--format", "json").stdout
        #expect(log.hasPrefix("[\n  {\"id\": 1, ") && log.hasSuffix("\"kept\": true}\n]\n"))
    }

    @Test func showPrintsEveryFieldOrSaysThereIsNoSuchTreasure() {
        let result = sandbox.run("treasures", "show", "hairy-harry")
        #expect(result.status == 0)
        #expect(
            result.stdout == """
                key:          hairy-harry
                name:         Hairy "The Bull" Harry
                position:     40.705576, -74.013421
                geohash:      dr5ref1p4m
                description:  Guards the bull,
                mostly
                image:        https://example.com/h.png
                source:       treasures.csv:2
                extras:
                  points:     "050"
                  team:       "red"

                """)
        let json = sandbox.run("treasures", "show", "liberty", "--format", "json")
        #expect(
            json.stdout.hasSuffix(
                "\"file\": \"more.geojson\", \"line\": null, \"feature\": 0, \"renditions\": {}}\n")
        )
        let missing = sandbox.run("treasures", "show", "nobody")
        #expect(missing.status == 1)
        #expect(missing.stderr == "error: no treasure 'nobody'\n")
    }

    @Test func rmRemovesAllOrNothingAndTheUpdateWritesNulls() throws {
        let refused = sandbox.run("treasures", "rm", "liberty", "nobody")
        #expect(refused.status == 1)
        #expect(
            refused.stderr.contains("no treasure 'nobody' in the workspace; nothing was removed"))
        #expect(try stored(sandbox.workspace).count == 5)
        let dryRun = sandbox.run("treasures", "rm", "liberty", "--dry-run")
        #expect(dryRun.stderr == "would remove 1 treasure: liberty\n")
        #expect(try stored(sandbox.workspace).count == 5)

        let removed = sandbox.run("treasures", "rm", "-", stdin: "liberty\neiffel\n\n")
        #expect(removed.status == 0)
        #expect(removed.stderr == "removed 2 treasures: liberty, eiffel\n")
        #expect(try stored(sandbox.workspace).count == 3)
        #expect(sandbox.run("treasures", "show", "liberty").status == 1)
        #expect(sandbox.run("check").status == 0)
        let update = sandbox.run("export", "--layout", "layout.json", "--update")
        #expect(
            update.stdout == """
                {
                  "treasureLocations/eiffel": null,
                  "treasureLocations/liberty": null,
                  "treasureProfiles/eiffel": null,
                  "treasureProfiles/liberty": null
                }

                """)
        // Run twice: the keys are gone now, so the second refuses and changes nothing.
        #expect(sandbox.run("treasures", "rm", "liberty").status == 1)
    }
}
