import Testing

@testable import TroveBase
@testable import TroveKit

@Suite struct KeyDerivationTests {
    @Test(arguments: [
        ("Hairy Harry", "hairy-harry"),
        ("  Café  Crème! ", "cafe-creme"),
        ("Bull/Bear #1", "bull-bear-1"),
        ("???", "treasure"),
        ("Αθήνα", "athena"),
        ("Москва", "moskva"),
        ("Санкт-Петербург", "sankt-peterburg"),
        ("東京", "dong-jing"),
        ("القاهرة", "alqahrt"),
        ("Aßlar", "asslar"),
        ("Andøya", "andoya"),
        ("Đà Nẵng", "da-nang"),
        ("Łódź", "lodz"),
        ("Æbeltoft", "aebeltoft"),
        ("Iğdır", "igdir"),
        ("Þingvellir", "thingvellir"),
        ("Ðakovo", "dakovo"),
        ("Œuvre", "oeuvre"),
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

    /// A file read before: rows take their treasures' keys by position and image, and a
    /// row at a new position named like a stored treasure waits until the others claimed.
    @Test func storedKeysStayWithTheirTreasures() {
        var stored = StoredKeys()
        stored.add(key: "springfield", name: "Springfield", latitude: 1, longitude: 1, image: nil)
        stored.add(key: "springfield-2", name: "Springfield", latitude: 2, longitude: 2, image: nil)
        stored.add(key: "treasure", name: "Москва", latitude: 55.75, longitude: 37.62, image: nil)
        var deriver = KeyDeriver()
        deriver.begin(stored)
        // A new Springfield on top must not take a stored key: it waits.
        #expect(
            deriver.keyAndFirstUse(
                explicit: nil, name: "Springfield", latitude: 3, longitude: 3, image: nil) == nil)
        #expect(
            deriver.keyAndFirstUse(
                explicit: nil, name: "Springfield", latitude: 2, longitude: 2, image: nil)?.key
                == "springfield-2")
        #expect(
            deriver.keyAndFirstUse(
                explicit: nil, name: "Moscow", latitude: 55.75, longitude: 37.62, image: nil)?
                .key == "treasure")
        // An image changed: not the same treasure by position; a new name gets a new key.
        #expect(
            deriver.keyAndFirstUse(
                explicit: nil, name: "Athens", latitude: 1, longitude: 1, image: "/a.png")?.key
                == "athens")
        // The waiting row is the moved Springfield: it takes the unclaimed key.
        #expect(deriver.deferred(name: "Springfield").key == "springfield")
        // Fresh keys never reuse one the file had.
        #expect(deriver.deferred(name: "Treasure").key == "treasure-2")
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

    /// Long text is scanned eight bytes at a time: a character that needs escaping is
    /// found wherever it falls, and those around it that do not are kept.
    @Test func escapesAtEveryPositionOfLongText() {
        let escapes: [(String, String)] = [
            ("\"", #"\""#), ("\\", #"\\"#), ("\n", #"\n"#), ("\u{1}", #"\u0001"#),
            ("\u{1F}", #"\u001f"#), ("\u{7F}", #"\u007f"#), ("\u{2028}", #"\u2028"#),
            ("é", "é"), ("\u{2026}", "\u{2026}"), (" ", " "), ("~", "~"), ("!", "!"),
        ]
        // Every length around a word's eight bytes, so the character also falls in the
        // last, overlapping word.
        for length in [0, 1, 6, 7, 8, 9, 15, 16, 17, 24] {
            let filler = Array("abcdefghijklmnopqrstuvwx".prefix(length))
            for (character, escaped) in escapes {
                for position in 0...filler.count {
                    let prefix = String(filler[..<position])
                    let suffix = String(filler[position...])
                    #expect(
                        jsonString(prefix + character + suffix)
                            == "\"" + prefix + escaped + suffix + "\"")
                }
            }
        }
    }
}
