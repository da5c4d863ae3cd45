import Testing

@testable import TroveBase
@testable import TroveKit

@Suite struct CanonicalTextTests {
    func canonical(_ json: String) -> String? {
        Array(json.utf8).withUnsafeBufferPointer(CanonicalText.canonical).map {
            String(decoding: $0, as: UTF8.self)
        }
    }

    /// The hash through the tree, as a refresh hashes what the database answers.
    func treeHash(_ json: String) -> UInt64? {
        var parser = JSONParser(Array(json.utf8))
        guard let value = try? parser.parseValue() else { return nil }
        return CanonicalValue.hash(value)
    }

    @Test func theValuesTroveRendersMostAreReadWithoutATree() {
        #expect(
            canonical(#"{"g":"dr5ru7c2","l":[40.7128,-74.006]}"#)
                == #"{"g":"dr5ru7c2","l":{"0":40.7128,"1":-74.006}}"#)
        #expect(canonical(#"{"imageURL":"https://x/y?a=b","name":"Hairy Harry"}"#) != nil)
        #expect(
            canonical(#" { "a" : 1.50e1 , "b" : [ true , false ] } "#)
                == #"{"a":15,"b":{"0":true,"1":false}}"#)
        #expect(canonical("-0.0") == "-0")
        #expect(canonical(#""plain""#) == #""plain""#)
    }

    @Test func whatOnlyTheTreeCanReadIsLeftToIt() {
        for json in [
            #"{"b":1,"a":2}"#, #"{"a":1,"a":2}"#, #"{"a":null}"#, #"{}"#, "[]", "null",
            #"{"a":{}}"#, #"{".priority":1,"a":2}"#, #""caf\u00e9""#, "\"café\"",
            #""tab\there""#, "[0,1,2,3,4,5,6,7,8,9,10]", "01", "1.", "-", "1e", "+1",
            #"{"a":1} x"#, #"{"a":1"#, #"{"":1}"#, "[1,,2]", "tru",
        ] {
            #expect(canonical(json) == nil, "\(json)")
        }
    }

    /// Random values, spelled in random ways: wherever the scanner answers, its hash is
    /// the tree's.
    @Test func whereverItAnswersItAgreesWithTheTree() {
        var random = SeededGenerator(state: 35)
        let names = ["a", "b", "g", "l", "name", "imageURL", ".priority", "0", "10", "Z", ""]
        let strings = ["x", "dr5ru7", "A b", "café", "tab\t", "q\"", "<b>", "\u{202E}x"]
        func number() -> String {
            [
                "0", "-0", "1", "-74.006", "40.712800", "1e3", "1.5E-2", "12345678901234567890",
                "0.1", "-0.0", "3.0",
            ][Int(random.next() % 11)]
        }
        func value(_ depth: Int) -> String {
            switch random.next() % (depth > 2 ? 5 : 8) {
            case 0: return number()
            case 1: return random.next() % 2 == 0 ? "true" : "false"
            case 2: return JSONText.quoted(strings[Int(random.next() % UInt64(strings.count))])
            case 3: return random.next() % 6 == 0 ? "null" : number()
            case 4: return JSONText.quoted("s\(random.next() % 100)")
            case 5, 6:
                let count = Int(random.next() % 4)
                var chosen = Array(Set((0..<count).map { _ in names[Int(random.next() % 11)] }))
                if random.next() % 3 > 0 {
                    chosen.sort { $0.utf8.lexicographicallyPrecedes($1.utf8) }
                }
                let space = random.next() % 4 == 0 ? " " : ""
                var members: [String] = []
                for name in chosen {
                    let member: String = JSONText.quoted(name) + space + ":"
                    members.append(member + value(depth + 1))
                }
                return "{" + members.joined(separator: "," + space) + "}"
            default:
                let count = Int(random.next() % 13)
                let elements: [String] = (0..<count).map { _ in value(depth + 1) }
                return "[" + elements.joined(separator: ",") + "]"
            }
        }
        var answered = 0
        for _ in 0..<20_000 {
            let json = value(0)
            guard let text = canonical(json) else { continue }
            answered += 1
            let fast = Array(text.utf8).withUnsafeBufferPointer(valueHash)
            #expect(fast == treeHash(json), "\(json)")
        }
        #expect(answered > 5_000)
    }
}
