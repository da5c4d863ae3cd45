import Testing

@testable import TroveKit

@Suite struct JSONWriterTests {
    @Test func objectsKeepTheirOrderAndPrintEveryScalarOneWay() {
        let nothing: String? = nil
        let object = JSONObject([
            "name": "a \"b\"\n\u{2028}", "lat": 40.0, "lon": -74.006, "count": 3,
            "kept": true, "note": nothing, "tags": ["x", "y"], "empty": [Int](),
            "inner": JSONObject(["id": Int64(7)]),
        ])
        #expect(
            object.jsonText
                == #"{"name": "a \"b\"\n\u2028", "lat": 40, "lon": -74.006, "count": 3, "#
                + #""kept": true, "note": null, "tags": ["x", "y"], "empty": [], "#
                + #""inner": {"id": 7}}"#)
    }

    @Test func compactTextHasNoSpaces() {
        var object = JSONObject()
        object.add("name", "x")
        object.add("detail", json: "[1, 2]")
        #expect(object.compactJSONText == #"{"name":"x","detail":[1, 2]}"#)
        #expect(JSONObject().jsonText == "{}")
    }

    @Test func stringsAndNumbersMatchTheScalarWriters() {
        for text in ["plain", "tab\there", "\u{7F}", "\u{2029}", "é"] {
            #expect(text.jsonText == jsonString(text))
        }
        for value in [0.1, 1e21, 1e-7, -0.0, 123_456_789.0] {
            #expect(value.jsonText == jsonNumber(value))
        }
    }
}
