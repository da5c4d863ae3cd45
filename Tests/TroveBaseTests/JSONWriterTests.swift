import Testing

@testable import TroveBase

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

    @Test func mergingAddsTheOtherMembersAfterTheseInTheirOrder() {
        var object = JSONObject(["key": "a", "lat": 40.5])
        let renditions = JSONObject(["thumb": JSONObject(["width": 64])])
        #expect(
            object.merging(JSONObject(["renditions": renditions, "kept": true])).jsonText
                == #"{"key": "a", "lat": 40.5, "renditions": {"thumb": {"width": 64}}, "#
                + #""kept": true}"#)
        #expect(object.merging(JSONObject()).jsonText == object.jsonText)
        #expect(JSONObject().merging(object).jsonText == object.jsonText)
        object.merge(JSONObject(["line": 3]))
        #expect(object.compactJSONText == #"{"key":"a","lat":40.5,"line":3}"#)
    }

    /// Empty, one and many elements, in each layout a listing uses.
    @Test(arguments: [
        (JSONLineWriter(), ["[]", "[\n  1\n]", "[\n  1,\n  2,\n  3\n]"]),
        (JSONLineWriter(indent: ""), ["[]", "[\n1\n]", "[\n1,\n2,\n3\n]"]),
        (
            JSONLineWriter(indent: "    ", closingIndent: "  ", breaksWhenEmpty: true),
            ["[\n  ]", "[\n    1\n  ]", "[\n    1,\n    2,\n    3\n  ]"]
        ),
    ])
    func lineWriterPutsEachElementOnALine(writer: JSONLineWriter, expected: [String]) {
        for (count, text) in zip([0, 1, 3], expected) {
            var streamed = writer
            var string = streamed.opening
            var bytes: [UInt8] = Array(streamed.opening.utf8)
            var bytesWriter = writer
            for element in (1...3).prefix(count).map(String.init) {
                string += streamed.next() + element
                bytesWriter.appendNext(to: &bytes)
                bytes += Array(element.utf8)
            }
            string += streamed.closing
            bytesWriter.appendClosing(to: &bytes)
            #expect(string == text)
            #expect(String(decoding: bytes, as: UTF8.self) == text)
            #expect(streamed.count == count)
        }
    }

    @Test func lineWriterWritesWholeListingsAndObjects() {
        #expect(JSONLineWriter.text([String]()) == "[]")
        #expect(JSONLineWriter.text([#"{"a": 1}"#]) == "[\n  {\"a\": 1}\n]")
        #expect(
            JSONLineWriter.text(["\"a\"", "\"b\""], indent: "    ", closingIndent: "  ")
                == "[\n    \"a\",\n    \"b\"\n  ]")
        var object = JSONLineWriter(.object)
        var text = object.opening
        #expect(object.closing == "}")
        for member in [#""a": 1"#, #""b": [2]"#] { text += object.next() + member }
        #expect(text + object.closing == "{\n  \"a\": 1,\n  \"b\": [2]\n}")
    }

    @Test func inlineWritersKeepTheListingOnOneLine() {
        for count in 0...3 {
            var array = JSONLineWriter.inline()
            var bytesWriter = JSONLineWriter.inline()
            var text = array.opening
            var bytes = Array(array.opening.utf8)
            for index in 0..<count {
                text += array.next() + String(index)
                bytesWriter.appendNext(to: &bytes)
                bytes += Array(String(index).utf8)
            }
            text += array.closing
            bytesWriter.appendClosing(to: &bytes)
            let expected = "[" + (0..<count).map(String.init).joined(separator: ", ") + "]"
            #expect(text == expected)
            #expect(String(decoding: bytes, as: UTF8.self) == expected)
        }
        var object = JSONLineWriter.inline(.object)
        var text = object.opening
        for member in [#""a": 1"#, #""b": [2]"#] { text += object.next() + member }
        #expect(text + object.closing == #"{"a": 1, "b": [2]}"#)
        #expect(JSONLineWriter.inline(.object).closing == "}")
    }

    @Test func compactArraysHaveNoSpaces() {
        #expect(compactJSONArray([String]()) == "[]")
        #expect(compactJSONArray(["1"]) == "[1]")
        #expect(compactJSONArray([#"{"a":1}"#, "2", "\"x\""]) == #"[{"a":1},2,"x"]"#)
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
