import Testing

@testable import TroveBase

@Suite struct JSONMembersTests {
    func split(_ json: String) -> [(String, String)]? {
        let bytes = Array(json.utf8)
        return JSONMembers.split(bytes)?.map {
            ($0.name, String(decoding: bytes[$0.value], as: UTF8.self))
        }
    }

    @Test func eachMemberIsFoundWithTheBytesOfItsValue() throws {
        let members = try #require(
            split(
                #" { "a" : {"x":"}]\"{","y":[1,{"z":null}]} , "b\u00e9":-1.5e3,"c":"q\"}","#
                    + #""d":true , "":[] } "#))
        #expect(members.map(\.0) == ["a", "bé", "c", "d", ""])
        #expect(
            members.map(\.1) == [
                #"{"x":"}]\"{","y":[1,{"z":null}]}"#, "-1.5e3", #""q\"}""#, "true", "[]",
            ])
        #expect(split("{}")?.isEmpty == true)
        #expect(split(" {\n}\n")?.isEmpty == true)
    }

    @Test func whatIsNotAnObjectIsNotSplit() {
        for json in [
            "null", "[1]", "\"a\"", "{", #"{"a":1"#, #"{"a":1,}"#, #"{"a" 1}"#, #"{a:1}"#,
            #"{"a":1} x"#, #"{"a":}"#, #"{"a":{"b":1}"#, #"{"a":"b}"#,
        ] {
            #expect(split(json) == nil, "\(json)")
        }
    }

    /// Wherever it splits, the names and values are those the parser reads.
    @Test func itAgreesWithTheParser() throws {
        var random = SystemRandomNumberGenerator()
        let values = [
            "1", "-2.5", "true", "null", #""s""#, #""a\"b""#, #"{"k":[1,"]"]}"#, "[]", "{}",
            #""{[""#,
        ]
        for _ in 0..<500 {
            let count = Int(random.next() % 6)
            let names = (0..<count).map { _ in
                ["a", "b", "é", #"q\"n"#, "-M1", "0"][Int(random.next() % 6)]
            }
            let json =
                "{"
                + names.map { #"""# + $0 + #"":"# + values[Int(random.next() % 10)] }
                .joined(separator: ",") + "}"
            var parser = JSONParser(Array(json.utf8))
            guard case .object(let parsed) = try parser.parseValue() else {
                Issue.record("not an object: \(json)")
                continue
            }
            let members = try #require(split(json), "\(json)")
            #expect(members.map(\.0) == parsed.map(\.name), "\(json)")
            for (member, expected) in zip(members, parsed) {
                var value = JSONParser(Array(member.1.utf8))
                #expect(try value.parseValue() == expected.value, "\(json)")
            }
        }
    }
}
