import Testing

@testable import TroveKit

@Suite struct KeyDerivationTests {
    @Test(arguments: [
        ("Hairy Harry", "hairy-harry"),
        ("  Café  Crème! ", "cafe-creme"),
        ("Bull/Bear #1", "bull-bear-1"),
        ("???", "treasure"),
    ])
    func slugsAreReadable(name: String, slug expected: String) {
        #expect(slug(name) == expected)
    }

    @Test func repeatsGetNumberedInOrder() {
        var deriver = KeyDeriver()
        #expect(deriver.key(explicit: nil, name: "Hairy Harry") == "hairy-harry")
        #expect(deriver.key(explicit: nil, name: "Hairy  Harry") == "hairy-harry-2")
        #expect(deriver.key(explicit: "hairy-harry-3", name: "x") == "hairy-harry-3")
        #expect(deriver.key(explicit: nil, name: "hairy harry") == "hairy-harry-4")
    }
}

@Suite struct ExtraJSONTests {
    @Test(arguments: [
        ("plain", #""plain""#),
        ("say \"hi\"\\", #""say \"hi\"\\""#),
        ("a\nb\tc\u{1}", #""a\nb\tc\u0001""#),
        ("line\u{2028}sep\u{2029}", #""line\u2028sep\u2029""#),
        ("café ✓ ‘’", "\"café ✓ ‘’\""),
        ("\u{7F}…\u{2029}", #""\u007f…\u2029""#),
    ])
    func escapesWhatJSONAndJavaScriptNeed(text: String, json: String) {
        #expect(jsonString(text) == json)
    }
}
