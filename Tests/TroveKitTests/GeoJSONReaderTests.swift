import Foundation
import Testing

@testable import TroveBase
@testable import TroveKit
@testable import TroveStore

@Suite struct GeoJSONReaderTests {
    let folder = TemporaryFolder()

    func rows(_ text: String, name: String = "t.geojson") throws -> [TreasureRow] {
        let path = try folder.write(text, to: name)
        return try readTreasures(path, displayPath: name)
    }

    static func feature(
        id: String? = nil, geometry: String = #"{"type":"Point","coordinates":[-74.006,40.7128]}"#,
        properties: String = #"{"name":"A"}"#
    ) -> String {
        let idText = id.map { #""id":\#($0),"# } ?? ""
        return #"{"type":"Feature",\#(idText)"geometry":\#(geometry),"properties":\#(properties)}"#
    }

    static func collection(_ features: [String]) -> String {
        #"{"type":"FeatureCollection","features":[\#(features.joined(separator: ",\n"))]}"#
    }

    // MARK: - Variants

    @Test func readsAFeatureCollection() throws {
        let rows = try rows(
            Self.collection([
                Self.feature(
                    id: #""harry""#,
                    properties:
                        #"{"title":"Hairy Harry","photo":"h.png","Description":"Boo","points":10,"tags":["a","b"],"nested":{"x":1.50},"gone":null,"yes":true}"#
                ),
                Self.feature(properties: #"{"name":"B","key":"b-key"}"#),
            ]))
        let first = try #require(rows.first?.treasure)
        #expect(first.key == "harry")
        #expect(first.name == "Hairy Harry")
        #expect(first.latitude == 40.7128)
        #expect(first.longitude == -74.006)
        #expect(first.image == "h.png")
        #expect(first.description == "Boo")
        // Values keep their JSON type (numbers as written); null is no value.
        #expect(
            first.extra == [
                ExtraField(name: "points", json: "10"),
                ExtraField(name: "tags", json: #"["a","b"]"#),
                ExtraField(name: "nested", json: #"{"x":1.50}"#),
                ExtraField(name: "yes", json: "true"),
            ])
        #expect(first.location == Diagnostic.Location(file: "t.geojson", feature: 0, key: "harry"))
        let second = try #require(rows.last?.treasure)
        #expect(second.key == "b-key")
        #expect(second.extra.isEmpty)
        #expect(second.location.feature == 1)
    }

    @Test func readsASingleFeature() throws {
        let rows = try rows(Self.feature(id: "7"))
        #expect(rows.count == 1)
        #expect(rows.first?.treasure?.key == "7")
    }

    @Test(arguments: ["7", "-12", "-0", "1e3", "12345678901234567890"])
    func numericIdsKeepTheirTextAsWritten(id: String) throws {
        #expect(try rows(Self.feature(id: id)).first?.treasure?.key == id)
    }

    @Test func readsNewlineDelimitedFeaturesWithLines() throws {
        let text =
            [Self.feature(id: "1"), "", Self.feature(id: "2"), Self.feature(id: "3")]
            .joined(separator: "\n") + "\n"
        let rows = try rows(text, name: "t.ndjson")
        #expect(rows.map { $0.treasure?.key } == ["1", "2", "3"])
        #expect(rows.map { $0.treasure?.location.line } == [1, 3, 4])
        #expect(rows.map { $0.treasure?.location.feature } == [0, 1, 2])
    }

    @Test(arguments: [
        "40.7128", "-74.0060", "0.1", "1e-7", "89.99999999999999", "-179.123456789012345",
    ])
    func coordinatesAreTheExactDoublesWritten(text: String) throws {
        let geometry = #"{"type":"Point","coordinates":[\#(text),0]}"#
        let longitude = try #require(
            rows(Self.feature(geometry: geometry)).first?.treasure?.longitude)
        #expect(longitude == Double(text))
    }

    @Test func numericIdWithAPointIsAnIllegalKey() throws {
        #expect(
            try rows(Self.feature(id: "7.5")).first?.diagnostic?.code == DiagnosticCode.illegalKey)
    }

    @Test(arguments: ["true", "[1]", #"{"a":1}"#])
    func idThatIsNeitherStringNorNumberIsAnIllegalKey(id: String) throws {
        let diagnostic = try #require(rows(Self.feature(id: id)).first?.diagnostic)
        #expect(diagnostic.code == DiagnosticCode.illegalKey)
        #expect(diagnostic.location.jsonPath == "id")
    }

    @Test func idPropertyIsTheKeyWhenTheFeatureHasNone() throws {
        let rows = try rows(Self.feature(properties: #"{"name":"A","id":42}"#))
        #expect(rows.first?.treasure?.key == "42")
        #expect(rows.first?.treasure?.extra == [])
    }

    @Test func featureIdWinsAndIdPropertyStaysAnExtra() throws {
        let rows = try rows(Self.feature(id: #""f""#, properties: #"{"name":"A","id":"p"}"#))
        #expect(rows.first?.treasure?.key == "f")
        #expect(rows.first?.treasure?.extra == [ExtraField(name: "id", value: "p")])
    }

    @Test func textKeepsEscapesAndUnicodeExactly() throws {
        let rows = try rows(
            Self.feature(properties: #"{"name":" Caf\u00e9 \"x\" \ud83d\ude00 \n"}"#))
        #expect(rows.first?.treasure?.name == " Café \"x\" 😀 \n")
    }

    @Test func byteOrderMarkIsSkipped() throws {
        let path = try folder.write(
            [0xEF, 0xBB, 0xBF] + Array(Self.feature().utf8), to: "b.geojson")
        #expect(try readTreasures(path).first?.treasure?.name == "A")
    }

    // MARK: - Feature problems

    static let badFeatures: [(String, String, String)] = [
        (
            feature(geometry: #"{"type":"LineString","coordinates":[[0,0],[1,1]]}"#),
            DiagnosticCode.notAPoint, "features[1].geometry.type"
        ),
        (feature(geometry: "null"), DiagnosticCode.missingPosition, "features[1].geometry"),
        (
            feature(geometry: #"{"type":"Point","coordinates":[1]}"#),
            DiagnosticCode.missingPosition, "features[1].geometry.coordinates"
        ),
        (
            feature(geometry: #"{"type":"Point","coordinates":["1",2]}"#),
            DiagnosticCode.notANumber, "features[1].geometry.coordinates[0]"
        ),
        (
            feature(geometry: #"{"type":"Point","coordinates":[1,1e999]}"#),
            DiagnosticCode.notANumber, "features[1].geometry.coordinates[1]"
        ),
        (
            feature(geometry: #"{"type":"Point","coordinates":[-74.0,140.2]}"#),
            DiagnosticCode.latitudeOutOfRange, "features[1].geometry.coordinates[1]"
        ),
        (
            feature(geometry: #"{"type":"Point","coordinates":[181,0]}"#),
            DiagnosticCode.longitudeOutOfRange, "features[1].geometry.coordinates[0]"
        ),
        (feature(properties: "{}"), DiagnosticCode.missingName, "features[1].properties.name"),
        (
            feature(properties: #"{"title":""}"#), DiagnosticCode.missingName,
            "features[1].properties.title"
        ),
        (feature(id: #""a/b""#), DiagnosticCode.illegalKey, "features[1].id"),
        (
            feature(properties: #"{"name":"A","key":"a.b"}"#), DiagnosticCode.illegalKey,
            "features[1].properties.key"
        ),
        (#"{"type":"Point","coordinates":[0,0]}"#, DiagnosticCode.brokenJSON, "features[1]"),
        ("[1,2]", DiagnosticCode.brokenJSON, "features[1]"),
    ]

    @Test(arguments: badFeatures)
    func badFeaturesGiveTheirCodeIndexAndPath(feature: String, code: String, path: String) throws {
        let rows = try rows(Self.collection([Self.feature(), feature, Self.feature()]))
        #expect(rows.count == 3)
        let diagnostic = try #require(rows[1].diagnostic)
        #expect(diagnostic.code == code)
        #expect(diagnostic.location.file == "t.geojson")
        #expect(diagnostic.location.feature == 1)
        #expect(diagnostic.location.jsonPath == path)
        #expect(diagnostic.location.line == nil)
        #expect(diagnostic.compilerStyle.hasPrefix("t.geojson:feature 1 \(path): error[\(code)]"))
        #expect(rows[0].treasure != nil && rows[2].treasure != nil)
    }

    @Test func newlineDelimitedProblemsNameTheLine() throws {
        let text =
            Self.feature() + "\n" + Self.feature(geometry: #"{"type":"Polygon","coordinates":[]}"#)
        let rows = try rows(text, name: "t.ndjson")
        let diagnostic = try #require(rows.last?.diagnostic)
        #expect(diagnostic.code == DiagnosticCode.notAPoint)
        #expect(diagnostic.location.line == 2)
        #expect(diagnostic.location.feature == 1)
        #expect(diagnostic.location.jsonPath == "geometry.type")
    }

    // MARK: - File problems

    static let brokenDocuments: [(String, Int?)] = [
        ("", nil),
        ("{\"type\":\"FeatureCollection\",\"features\":[\n{\"type\":}\n]}", 2),
        ("{\"type\":\"Feature\"", 1),
        ("{\"name\":'single'}", 1),
        ("{\"a\":01}", 1),
        ("{\"a\":NaN}", 1),
        ("{\"a\":\"x\ty\"}", 1),
        ("{\"a\":\"\\ud800\"}", 1),
        ("{\"type\":\"FeatureCollection\"}", nil),
        ("{\"type\":\"Point\",\"coordinates\":[0,0]}", nil),
        ("[]", nil),
        (String(repeating: "[", count: 100_000), 1),
    ]

    @Test(arguments: brokenDocuments)
    func brokenJSONIsAFileErrorWithALocation(text: String, line: Int?) throws {
        let error = #expect(throws: TreasureFileError.self) { try rows(text) }
        #expect(error?.code == DiagnosticCode.brokenJSON)
        #expect(error?.location.file == "t.geojson")
        #expect(error?.location.line == line)
    }

    @Test func syntaxErrorsGiveLineAndColumn() throws {
        let error = #expect(throws: TreasureFileError.self) {
            try rows("{\n  \"type\": \"Feature\",\n  \"geometry\": nul\n}")
        }
        #expect(error?.location == Diagnostic.Location(file: "t.geojson", line: 3, column: 15))
        #expect(error?.description.hasPrefix("t.geojson:3:15: broken JSON: ") == true)
    }

    @Test func invalidUTF8IsAnEncodingError() throws {
        let path = try folder.write(
            Array("{\n\"a\":\"".utf8) + [0xE9] + Array("\"}".utf8), to: "e.geojson")
        let error = #expect(throws: TreasureFileError.self) { try readTreasures(path) }
        #expect(error?.code == DiagnosticCode.invalidEncoding)
        #expect(error?.location.line == 2)
    }

    @Test func cp1252GeoJSONIsTranscodedWhenAsked() throws {
        let bytes = Array(Self.feature(properties: #"{"name":"Caf_"}"#).utf8).map {
            $0 == 0x5F ? 0xE9 : $0
        }
        let path = try folder.write(bytes, to: "w.geojson")
        #expect(try readTreasures(path, encoding: .cp1252).first?.treasure?.name == "Café")
    }
}
