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

/// A JSON value's text uses the one string escaper: DEL and the line separators that
/// end a JavaScript string are escaped too.
@Test func jsonValueTextEscapesAsTheWriterDoes() throws {
    let value = JSONValue.object([
        JSONMember(name: "k\u{2029}", value: .string("del\u{7F} ls\u{2028} \"q\" \u{01}"))
    ])
    #expect(value.jsonText == #"{"k\u2029":"del\u007f ls\u2028 \"q\" \u0001"}"#)
}
